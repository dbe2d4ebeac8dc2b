/**
 * The SDK's pure parts: its User-Agent per runtime, its version against its manifest, its
 * per-operation timeouts against the server's longest bound, the error class of every code
 * of the server's error table, and auto-pagination's page-by-page fetching (over pages the
 * test hands it). One fake transport: the request the client sends for an in-band
 * `success: false` answer (sdk.int.test.ts gets that answer from the real service with both
 * search indexes down).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ERROR_STATUS } from '../../src/http/error-codes.ts';
import { createCourtRecordsClient } from '../../sdk/src/client.ts';
import {
  AuthenticationError,
  codedError,
  CourtRecordsError,
  IdempotencyError,
  InsufficientCreditsError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  UpstreamError,
  type ErrorCode,
} from '../../sdk/src/errors.ts';
import { autoPaginate } from '../../sdk/src/pagination.ts';
import { DEFAULT_TIMEOUT_MS, OPERATION_TIMEOUTS_MS } from '../../sdk/src/timeouts.ts';
import { userAgent } from '../../sdk/src/user-agent.ts';
import { SDK_VERSION } from '../../sdk/src/version.ts';

const SDK_MANIFEST = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'sdk', 'package.json'), 'utf8')) as { version: string };

describe('SDK identity', () => {
  it('its version is its manifest’s', () => {
    assert.equal(SDK_VERSION, SDK_MANIFEST.version);
  });

  it('names itself, its version and the runtime in User-Agent, and sets none in a browser page', () => {
    const v = SDK_MANIFEST.version;
    assert.equal(
      userAgent({ process: { versions: { node: '24.21.0' }, platform: 'linux', arch: 'x64' } }),
      `court-records-sdk/${v} (node 24.21.0; linux x64)`,
    );
    assert.equal(
      userAgent({ Deno: { version: { deno: '2.9.6' }, build: { os: 'linux', arch: 'x86_64' } }, process: { versions: { node: '24' } } }),
      `court-records-sdk/${v} (deno 2.9.6; linux x86_64)`,
    );
    assert.equal(
      userAgent({ Bun: { version: '1.3.0' }, process: { versions: { node: '24' }, platform: 'darwin', arch: 'arm64' } }),
      `court-records-sdk/${v} (bun 1.3.0; darwin arm64)`,
    );
    assert.equal(userAgent({ document: {} }), undefined);
    assert.match(userAgent() ?? '', new RegExp(`^court-records-sdk/${v.replaceAll('.', '\\.')} \\(node ${process.versions.node}; `));
  });
});

describe('SDK timeouts', () => {
  it('waits for a consolidated analysis longer than the server’s deadline for it, and for every call longer than its other bounds', () => {
    const config = loadConfig({});
    assert.ok((OPERATION_TIMEOUTS_MS.analyzeCaseConsolidated ?? 0) > config.CONSOLIDATED_DEADLINE_SECONDS * 1000);
    for (const bound of [config.DATABASE_STATEMENT_TIMEOUT_MS, config.COURT_PORTAL_TIMEOUT_MS, config.SHUTDOWN_DRAIN_SECONDS * 1000])
      assert.ok(DEFAULT_TIMEOUT_MS > bound, String(bound));
  });
});

describe('SDK error classes', () => {
  const classOf: Record<number, unknown> = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionError,
    404: NotFoundError,
    405: InvalidRequestError,
    408: UpstreamError,
    409: IdempotencyError,
    410: NotFoundError,
    413: InvalidRequestError,
    429: RateLimitError,
    500: InternalServerError,
    502: UpstreamError,
    503: UpstreamError,
  };

  it('every code of the server’s error table gets the class of its status, also when answered under 200', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      for (const answered of [status, 200]) {
        const error = codedError(answered, { code: code as ErrorCode, message: 'm' }, { idempotencyKey: 'k' });
        assert.ok(error instanceof (classOf[status] as typeof CourtRecordsError), `${code} answered ${answered}: ${error.name}`);
        assert.ok(error instanceof CourtRecordsError);
        assert.deepEqual([error.code, error.status, error.idempotencyKey], [code, answered, 'k']);
      }
    }
  });

  it('throws an HTTP 200 success:false answer as the typed error of its code, with the call’s idempotency key', async () => {
    const sent: Request[] = [];
    const client = createCourtRecordsClient({
      baseUrl: 'http://api.test/api/v1/prod',
      apiKey: 'crk_live_x',
      environment: {
        fetch: async (request) => {
          sent.push(request);
          return Response.json({ success: false, code: 'UPSTREAM_UNAVAILABLE', message: 'Neither index answered.', requestId: 'r1' });
        },
        idempotencyKey: () => 'generated-1',
      },
    });
    const error = await client.search.semantic({ query: 'bail' }).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof UpstreamError);
    assert.deepEqual([error.status, error.code, error.idempotencyKey], [200, 'UPSTREAM_UNAVAILABLE', 'generated-1']);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.headers.get('idempotency-key'), 'generated-1');
  });
});

describe('SDK auto-pagination', () => {
  const pages = [[1, 2], [3, 4], [5]];

  function paged() {
    const fetched: number[] = [];
    const fetchPage = (n: number) => async () => {
      fetched.push(n);
      return { n, items: pages[n]! };
    };
    const list = autoPaginate(
      fetchPage(0),
      (page) => (page.n + 1 < pages.length ? fetchPage(page.n + 1) : undefined),
      (page) => page.items,
    );
    return { list, fetched };
  }

  it('yields every item of every page in order', async () => {
    const { list, fetched } = paged();
    const seen: number[] = [];
    for await (const item of list) seen.push(item);
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    assert.deepEqual(fetched, [0, 1, 2]);
  });

  it('fetches a page only when the loop asks past the one it holds, so a break stops the spending', async () => {
    const { list, fetched } = paged();
    for await (const item of list) if (item === 2) break;
    assert.deepEqual(fetched, [0]);
    const three = paged();
    assert.deepEqual(await three.list.toArray({ limit: 3 }), [1, 2, 3]);
    assert.deepEqual(three.fetched, [0, 1]);
  });
});
