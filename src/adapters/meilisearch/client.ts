/**
 * The Meilisearch client every adapter uses. It asks for uncompressed responses: when a
 * client accepts gzip or br, Meilisearch (actix-web) streams a compressed body of more
 * than a few kilobytes in small writes, and the last one waits for the client's delayed
 * ACK, a 40 ms stall on every such search (measured on loopback: 44 ms with
 * `Accept-Encoding: gzip`, 1.9 ms with `identity`). Our answers are a page of case ids, so
 * compression saves nothing worth that.
 */
import { Meilisearch } from 'meilisearch';

export function meilisearchClient(url: string, apiKey: string | undefined): Meilisearch {
  return new Meilisearch({
    host: url,
    ...(apiKey ? { apiKey } : {}),
    requestInit: { headers: { 'Accept-Encoding': 'identity' } },
  });
}
