/**
 * The read path's HTTP to Meilisearch: POST /indexes/{uid}/search and /multi-search over a
 * keep-alive node:http(s) agent. The SDK sends every request through fetch and builds a URL
 * and a Headers object for each; on this project's 2-core machine that costs 0.3 to 0.6 ms
 * of CPU a request against 0.1 to 0.24 ms for node:http (`docs/performance.md`), and a
 * keyword search makes two to four. Writes, settings and tasks stay on the SDK.
 *
 * Uncompressed answers, as the SDK client asks for them (client.ts says why). A request
 * with no answer within `timeoutMs` fails, so a stalled engine cannot hold a paid call.
 */
import http from 'node:http';
import https from 'node:https';
import type { FederatedMultiSearchParams, MultiSearchParams, MultiSearchResponse, SearchParams, SearchResponse } from 'meilisearch';

/** Meilisearch answered with an error status, or not at all. */
export class MeilisearchRequestError extends Error {
  override readonly name = 'MeilisearchRequestError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Over documents of type T. */
export class MeilisearchSearchTransport<T> {
  readonly #base: URL;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  readonly #headers: Readonly<Record<string, string>>;

  constructor(
    url: string,
    apiKey: string | undefined,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {
    // A base with a path (a proxy's prefix) keeps it: the API paths are resolved under it.
    this.#base = new URL(url.endsWith('/') ? url : `${url}/`);
    const secure = this.#base.protocol === 'https:';
    this.#agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.#request = secure ? https.request : http.request;
    this.#headers = {
      'Content-Type': 'application/json',
      'Accept-Encoding': 'identity',
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
    };
  }

  search<S extends SearchParams>(indexUid: string, q: string, params: S): Promise<SearchResponse<T, S>> {
    return this.#post(`indexes/${encodeURIComponent(indexUid)}/search`, { q, ...params });
  }

  multiSearch(params: MultiSearchParams): Promise<MultiSearchResponse<T>> {
    return this.#post('multi-search', params);
  }

  federated(params: FederatedMultiSearchParams): Promise<SearchResponse<T>> {
    return this.#post('multi-search', params);
  }

  close(): void {
    this.#agent.destroy();
  }

  #post<R>(path: string, body: unknown): Promise<R> {
    const url = new URL(path, this.#base);
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise<R>((resolve, reject) => {
      const req = this.#request(
        url,
        { method: 'POST', agent: this.#agent, headers: { ...this.#headers, 'Content-Length': String(payload.length) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            let parsed: unknown;
            try {
              parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch (error) {
              reject(
                new MeilisearchRequestError(`Meilisearch answered ${String(status)} with a body that is not JSON`, status, undefined, {
                  cause: error,
                }),
              );
              return;
            }
            if (status >= 200 && status < 300) resolve(parsed as R);
            else {
              const { message, code } = (parsed ?? {}) as { message?: string; code?: string };
              reject(new MeilisearchRequestError(`Meilisearch answered ${String(status)}: ${message ?? 'no message'}`, status, code));
            }
          });
        },
      );
      req.setTimeout(this.timeoutMs, () =>
        req.destroy(new MeilisearchRequestError(`Meilisearch did not answer within ${String(this.timeoutMs)} ms`, undefined, undefined)),
      );
      req.on('error', (error) =>
        reject(
          error instanceof MeilisearchRequestError
            ? error
            : new MeilisearchRequestError('Meilisearch could not be reached', undefined, undefined, { cause: error }),
        ),
      );
      req.end(payload);
    });
  }
}
