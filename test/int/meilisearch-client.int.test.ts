/**
 * The Meilisearch client asks for uncompressed answers (see src/adapters/meilisearch/client.ts:
 * a compressed search answer stalls 40 ms on the client's delayed ACK). Checked on the
 * wire: a local server stands in for Meilisearch and records the headers each adapter sends.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { meilisearchClient } from '../../src/adapters/meilisearch/client.ts';
import { meilisearchProbe } from '../../src/adapters/meilisearch/probe.ts';

async function recordingServer(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ status: 'available', hits: [], estimatedTotalHits: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('Meilisearch client', () => {
  it('asks for identity encoding on searches and health probes, with the API key', async () => {
    const server = await recordingServer();
    try {
      await meilisearchClient(server.url, 'key-1').index('cases').search('state of', { limit: 20 });
      await meilisearchProbe(server.url, 'key-1').check(AbortSignal.timeout(5_000));
      assert.equal(server.seen.length, 2);
      for (const headers of server.seen) {
        assert.equal(headers['accept-encoding'], 'identity');
        assert.equal(headers.authorization, 'Bearer key-1');
      }
    } finally {
      await server.close();
    }
  });
});
