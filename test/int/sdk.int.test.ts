/**
 * The TypeScript SDK (sdk/) against the real app behind a real HTTP listener: its generated
 * files match the document the code serves; typed calls return bodies and credit headers;
 * refusals arrive as CourtRecordsError typed by code; a charged POST whose answer is lost
 * on the wire is retried with the same Idempotency-Key and charged once (a TCP proxy cuts
 * the connection after the server answered); a 429's Retry-After is waited exactly (the
 * wait advances the service's clock) and a long one is handed back; a reused key is not
 * retried; a PDF link decrypts and downloads. The resource namespaces: bodies with their
 * answer's facts (the idempotency key among them) on `lastResponse`; the key on every error,
 * so a caller whose call was lost retries with it and is charged once; per-call timeout and
 * signal; semantic search's in-band refusal (200, success false) thrown typed;
 * auto-pagination across real page boundaries, charged per page; redirects followed
 * without the key to another origin (two loopback servers).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { sql } from 'kysely';
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import {
  AuthenticationError,
  createCourtRecordsClient,
  CourtRecordsConnectionError,
  CourtRecordsError,
  InsufficientCreditsError,
  NotFoundError,
  SDK_VERSION,
  UpstreamError,
  type CourtRecordsClient,
} from '@court-records/sdk';
import type { SearchIndex } from '../../src/ports/search-index.ts';
import type { VectorIndex } from '../../src/ports/vector-index.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { renderSdkSources } from '../../scripts/generate-sdk.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { runCommand } from '../support/service-process.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const SEARCH_PRICE = 5;

/** A TCP proxy in front of the service that can cut the connection of the next answer after the server sent it. */
async function startCuttingProxy(
  upstreamPort: number,
): Promise<{ port: number; cutNextAnswers: (n: number) => void; close: () => Promise<void> }> {
  let toCut = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    upstream.connect(upstreamPort, '127.0.0.1');
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (toCut > 0) {
        toCut -= 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cutNextAnswers: (n) => {
      toCut = n;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function rejection(promise: Promise<unknown>): Promise<CourtRecordsError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CourtRecordsError) return error;
    throw error;
  }
  assert.fail('expected a CourtRecordsError');
}

const pglite = databases.find((d) => d.name === 'pglite')!;

const down = (what: string) => () => Promise.reject(new Error(`${what} is down`));
/** The vector path down: semantic search answers from the keyword index (fallbackMode), real hits without embedding the corpus here. */
const vectorsDown: VectorIndex = { search: down('vector index'), ping: down('vector index') };

describe('the TypeScript SDK against the real service', { timeout: 300_000 }, () => {
  let database: OpenedDatabase;
  let t: TestApp;
  let server: ServerType;
  let origin: string;
  let proxy: Awaited<ReturnType<typeof startCuttingProxy>>;
  let fallbackServer: ServerType;
  let fallbackPort: number;
  const clock = new SettableClock(new Date('2026-11-20T10:00:30Z'));
  const slept: number[] = [];
  let account: { userId: string; key: string };

  const client = (
    apiKey: string | undefined,
    over: { port?: number; idempotencyKey?: () => string; maxDelayMs?: number } = {},
  ): CourtRecordsClient =>
    createCourtRecordsClient({
      baseUrl: `http://127.0.0.1:${over.port ?? new URL(origin).port}${BASE}`,
      ...(apiKey === undefined ? {} : { apiKey }),
      retry: { baseDelayMs: 1, ...(over.maxDelayMs === undefined ? {} : { maxDelayMs: over.maxDelayMs }) },
      environment: {
        // Waiting moves the service's clock, so a Retry-After is honoured without real seconds passing.
        sleep: async (ms) => {
          slept.push(ms);
          clock.advanceSeconds(ms / 1000);
        },
        now: () => clock.now().getTime(),
        ...(over.idempotencyKey ? { idempotencyKey: over.idempotencyKey } : {}),
      },
    });
  const balance = async (id: string) => (await t.application.credits.balance(id)).balance;

  before(async () => {
    database = await pglite.open();
    const index = new PostgresSearchIndex(database.db);
    // The listener exists before the app, so document links can point at its real origin.
    server = serve({ fetch: (request) => t.app.fetch(request), port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = buildTestApp({ db: database.db, clock, index, publicBaseUrl: `${origin}${BASE}`, version: PACKAGE_VERSION });
    await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource] });
    await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
    await storeJudgmentDocuments({ db: database.db, storage: t.research.documents, now: () => clock.now() });
    account = await keyedUser(t.application.accounts, 'sdk', { requestsPerMinute: 1_000 });
    await t.application.credits.grant(account.userId, { amount: 10_000, source: 'grant' });
    const fallback = buildTestApp({ db: database.db, clock, index, vectors: vectorsDown, publicBaseUrl: `${origin}${BASE}` });
    fallbackServer = serve({ fetch: (request) => fallback.app.fetch(request), port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => fallbackServer.once('listening', resolve));
    fallbackPort = (fallbackServer.address() as AddressInfo).port;
    proxy = await startCuttingProxy(new URL(origin).port === '' ? 80 : Number(new URL(origin).port));
  });
  after(async () => {
    await proxy.close();
    await new Promise((resolve) => fallbackServer.close(resolve));
    await new Promise((resolve) => server.close(resolve));
    await database.close();
  });

  it('its generated types and operation table are what the served document generates (run npm run sdk:generate)', async () => {
    const document = (await (await t.app.request(`${BASE}/openapi.json`)).json()) as Parameters<typeof renderSdkSources>[0];
    for (const [name, text] of Object.entries(await renderSdkSources(document)))
      assert.equal(readFileSync(join(ROOT, 'sdk', 'src', 'generated', name), 'utf8'), text, `sdk/src/generated/${name} is stale`);
  });

  it('a typed charged call returns the body and the credit headers, and the balance moves by the price', async () => {
    const before = await balance(account.userId);
    const result = await client(account.key).searchCases({ body: { query: 'union of india', limit: 3 } });
    assert.equal(result.status, 200);
    assert.ok(result.body.data.length > 0);
    assert.equal(result.creditsCharged, SEARCH_PRICE);
    assert.equal(result.creditsRemaining, before - SEARCH_PRICE);
    assert.equal(await balance(account.userId), before - SEARCH_PRICE);
    assert.match(result.requestId ?? '', /\S/);
    assert.equal(result.replayed, false);
  });

  it('a public call needs no key', async () => {
    const result = await client(undefined).listCourts();
    assert.ok(result.body.data.courts.length > 0);
  });

  it('gives every POST an Idempotency-Key: the same generated key replays and charges once', async () => {
    const key = `sdk-test-${Date.now()}`;
    const sdk = client(account.key, { idempotencyKey: () => key });
    const before = await balance(account.userId);
    const first = await sdk.searchCases({ body: { query: 'land acquisition', limit: 2 } });
    const second = await sdk.searchCases({ body: { query: 'land acquisition', limit: 2 } });
    assert.deepEqual([first.replayed, second.replayed], [false, true]);
    assert.deepEqual(second.body, first.body);
    assert.equal(await balance(account.userId), before - SEARCH_PRICE);
  });

  it('refusals are CourtRecordsError typed by code, with the body of that code', async () => {
    const forged = `${account.key.slice(0, -1)}${account.key.endsWith('a') ? 'b' : 'a'}`;
    const invalid = await rejection(client(forged).getMe());
    assert.deepEqual([invalid.status, invalid.code], [401, 'API_KEY_INVALID']);
    assert.ok(invalid instanceof AuthenticationError);
    assert.match(invalid.requestId ?? '', /\S/);

    const missing = await rejection(client(account.key).getCase({ params: { path: { id: 'sc-inabs-does-not-exist' } } }));
    assert.deepEqual([missing.status, missing.code], [404, 'CASE_NOT_FOUND']);
    assert.ok(missing instanceof NotFoundError);

    const bad = await rejection(client(account.key).searchCases({ body: { query: 'x', limit: 100_000 } }));
    assert.equal(bad.status, 400);
    assert.ok(bad.is('VALIDATION_ERROR') || bad.is('PAGE_LIMIT_EXCEEDED'), bad.code);

    const broke = await keyedUser(t.application.accounts, 'sdk-broke');
    const poor = await rejection(client(broke.key).searchCases({ body: { query: 'appeal' } }));
    assert.ok(poor.is('INSUFFICIENT_API_CREDITS'));
    assert.ok(poor instanceof InsufficientCreditsError);
    assert.match(poor.idempotencyKey ?? '', /^sdk-[0-9a-f-]{36}$/, 'the refused POST’s generated key is on the error');
    assert.deepEqual([poor.body.required, poor.body.balance, poor.body.shortfall], [SEARCH_PRICE, 0, SEARCH_PRICE]);
    assert.match(poor.body.topUpUrl, /^https?:\/\//);
  });

  it('a charged POST whose answer is cut on the wire is retried with the same key and charged once', async () => {
    const sdk = client(account.key, { port: proxy.port });
    const before = await balance(account.userId);
    slept.length = 0;
    proxy.cutNextAnswers(1);
    const result = await sdk.searchCases({ body: { query: 'murder', limit: 2 } });
    assert.equal(slept.length, 1, 'one retry');
    assert.equal(result.replayed, true, 'the retry was answered from the first attempt’s record');
    assert.equal(await balance(account.userId), before - SEARCH_PRICE);
    const report = await reconcileLedger(
      { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
      { accountId: account.userId },
    );
    assert.deepEqual(report.differences, []);
  });

  it('without the retry the cut costs the caller the answer but still one charge (what the key protects)', async () => {
    const before = await balance(account.userId);
    proxy.cutNextAnswers(1);
    const sdk = createCourtRecordsClient({
      baseUrl: `http://127.0.0.1:${proxy.port}${BASE}`,
      apiKey: account.key,
      retry: { maxRetries: 0 },
    });
    await assert.rejects(sdk.searchCases({ body: { query: 'bail', limit: 2 } }), { name: 'CourtRecordsConnectionError' });
    assert.equal(await balance(account.userId), before - SEARCH_PRICE);
  });

  it('honours a 429’s Retry-After exactly, then succeeds; a wait longer than maxDelayMs is handed back', async () => {
    const limited = await keyedUser(t.application.accounts, 'sdk-limited', { requestsPerMinute: 1 });
    await t.application.credits.grant(limited.userId, { amount: 100, source: 'grant' });
    const sdk = client(limited.key);
    await sdk.getMe();
    slept.length = 0;
    const now = clock.now().getTime();
    const windowEnd = now - (now % 60_000) + 60_000;
    const result = await sdk.getMe();
    assert.equal(result.status, 200);
    assert.deepEqual(slept, [Math.ceil((windowEnd - now) / 1000) * 1000]);

    slept.length = 0;
    const impatient = client(limited.key, { maxDelayMs: 1 });
    const refused = await rejection(impatient.getMe());
    assert.ok(refused.is('RATE_LIMITED'));
    assert.ok((refused.retryAfter ?? 0) > 0);
    assert.deepEqual(slept, []);
  });

  it('does not retry a reused key with another body (409 IDEMPOTENCY_KEY_REUSED)', async () => {
    const key = `sdk-reused-${Date.now()}`;
    const sdk = client(account.key);
    const header = { 'idempotency-key': key };
    await sdk.searchCases({ params: { header }, body: { query: 'tax', limit: 1 } });
    slept.length = 0;
    const reused = await rejection(sdk.searchCases({ params: { header }, body: { query: 'contract', limit: 1 } }));
    assert.deepEqual([reused.status, reused.code], [409, 'IDEMPOTENCY_KEY_REUSED']);
    assert.deepEqual(slept, []);
  });

  it('casePdfUrl decrypts the link, and the link downloads the judgment', async () => {
    const { url, expiresAt, result } = await client(account.key).casePdfUrl('sc-inabs-5861');
    assert.equal(result.creditsCharged, 5);
    assert.ok(url.startsWith(`${origin}${BASE}/documents/`), url);
    assert.ok(Date.parse(expiresAt) > clock.now().getTime());
    const download = await fetch(url);
    assert.equal(download.status, 200);
    assert.equal(new TextDecoder().decode((await download.arrayBuffer()).slice(0, 5)), '%PDF-');
  });

  it('resource namespaces resolve with the body itself; lastResponse (not enumerable) has the credits and the idempotency key', async () => {
    const sdk = client(account.key);
    const before = await balance(account.userId);
    const found = await sdk.search.cases({ query: 'union of india', limit: 2 });
    assert.equal(found.success, true);
    assert.ok(found.data.length > 0);
    assert.deepEqual(Object.keys(found).sort(), ['data', 'meta', 'pagination', 'success']);
    assert.ok(!JSON.stringify(found).includes('lastResponse'));
    const info = found.lastResponse;
    assert.deepEqual(
      [info.status, info.creditsCharged, info.creditsRemaining, info.replayed],
      [200, SEARCH_PRICE, before - SEARCH_PRICE, false],
    );
    assert.match(info.idempotencyKey ?? '', /^sdk-[0-9a-f-]{36}$/);
    const given = `given-${Date.now()}`;
    const again = await sdk.search.cases({ query: 'union of india', limit: 2 }, { idempotencyKey: given });
    assert.equal(again.lastResponse.idempotencyKey, given);
    const replay = await sdk.search.cases({ query: 'union of india', limit: 2 }, { idempotencyKey: given });
    assert.equal(replay.lastResponse.replayed, true);
    assert.equal(await balance(account.userId), before - 2 * SEARCH_PRICE);

    const read = await sdk.cases.get('sc-inabs-5861');
    assert.equal(read.data.caseId, 'sc-inabs-5861');
    assert.equal(read.lastResponse.idempotencyKey, undefined, 'a GET carries no key');
    const me = await sdk.account.me();
    assert.equal(me.lastResponse.status, 200);
    assert.ok((await sdk.reference.courts()).data.courts.length > 0);
    const { url } = await sdk.cases.pdfUrl('sc-inabs-5861');
    assert.ok(url.startsWith(`${origin}${BASE}/documents/`), url);
  });

  it('a call whose answer is lost keeps its key on the error; retried with that key it is answered from the first call, charged once', async () => {
    const sdk = client(account.key, { port: proxy.port });
    const before = await balance(account.userId);
    proxy.cutNextAnswers(1);
    const lost = await sdk.search.cases({ query: 'writ petition', limit: 2 }, { maxRetries: 0 }).then(
      () => assert.fail('resolved'),
      (error: unknown) => error,
    );
    assert.ok(lost instanceof CourtRecordsConnectionError);
    assert.equal(lost.reason, 'network');
    assert.match(lost.idempotencyKey ?? '', /^sdk-/);
    assert.equal(await balance(account.userId), before - SEARCH_PRICE, 'the server answered, and charged, before the cut');
    const retried = await sdk.search.cases({ query: 'writ petition', limit: 2 }, { idempotencyKey: lost.idempotencyKey! });
    assert.equal(retried.lastResponse.replayed, true);
    assert.equal(await balance(account.userId), before - SEARCH_PRICE);
  });

  it('a per-call timeout gives up with the key in hand, and a caller’s abort is final', async () => {
    const sdk = client(account.key);
    const before = await balance(account.userId);
    const timedOut = await sdk.search.cases({ query: 'negotiable instruments', limit: 2 }, { timeout: 1, maxRetries: 0 }).then(
      () => assert.fail('resolved'),
      (error: unknown) => error,
    );
    assert.ok(timedOut instanceof CourtRecordsConnectionError);
    assert.equal(timedOut.reason, 'timeout');
    assert.match(timedOut.idempotencyKey ?? '', /^sdk-/);
    // Whether or not the first attempt reached the server, the retry with its key is charged once in all
    // (real backoff: while the first still runs, the retry is answered 409 IDEMPOTENCY_IN_PROGRESS and waits).
    const patient = createCourtRecordsClient({ baseUrl: `${origin}${BASE}`, apiKey: account.key, retry: { baseDelayMs: 100 } });
    await patient.search.cases({ query: 'negotiable instruments', limit: 2 }, { idempotencyKey: timedOut.idempotencyKey! });
    assert.equal(await balance(account.userId), before - SEARCH_PRICE);

    const aborted = await sdk.account.me({ signal: AbortSignal.abort() }).then(
      () => assert.fail('resolved'),
      (error: unknown) => error,
    );
    assert.ok(aborted instanceof CourtRecordsConnectionError);
    assert.equal(aborted.reason, 'aborted');
  });

  it('auto-pagination yields the hits of consecutive pages across their boundaries, one charged call per page fetched', async () => {
    const sdk = client(account.key);
    const query = { query: 'union of india', limit: 2, sortBy: 'recent' as const };
    const pages = [];
    for (const page of [1, 2, 3]) pages.push(await sdk.search.cases({ ...query, page }));
    assert.ok(pages[2]!.pagination.hasMore, 'the query has more than three pages of two');
    const expected = pages.flatMap((p) => p.data.map((hit) => hit.caseId));
    assert.equal(new Set(expected).size, 6);

    const before = await balance(account.userId);
    const seen: string[] = [];
    for await (const hit of sdk.search.casesAutoPaginate(query)) {
      seen.push(hit.caseId);
      if (seen.length === 5) break;
    }
    assert.deepEqual(seen, expected.slice(0, 5));
    assert.equal(await balance(account.userId), before - 3 * SEARCH_PRICE, 'three pages fetched for five hits, not a fourth');

    // Semantic search pages by number; here it answers from the keyword fallback (the vector path is down on this listener).
    const fallback = client(account.key, { port: fallbackPort });
    const semanticQuery = { query: 'land acquisition compensation', limit: 2 };
    const semanticPages = [
      ...(await fallback.search.semantic({ ...semanticQuery, page: 1 })).data,
      ...(await fallback.search.semantic({ ...semanticQuery, page: 2 })).data,
    ];
    assert.equal(semanticPages.length, 4, 'two full pages of two');
    const semantic = await fallback.search.semanticAutoPaginate(semanticQuery).toArray({ limit: 3 });
    assert.deepEqual(
      semantic.map((hit) => hit.caseId),
      semanticPages.slice(0, 3).map((hit) => hit.caseId),
    );
  });

  it('throws semantic search’s in-band refusal (HTTP 200, success false) as an UpstreamError with its key; the retry with that key runs afresh', async () => {
    const index: SearchIndex = {
      name: 'postgres',
      checkpointKey: 'postgres',
      writeBatchSize: 200,
      search: down('search index'),
      upsert: down('search index'),
      remove: down('search index'),
      ping: down('search index'),
    };
    const broken = buildTestApp({ db: database.db, clock, index, vectors: vectorsDown });
    const brokenServer = serve({ fetch: (request) => broken.app.fetch(request), port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => brokenServer.once('listening', resolve));
    try {
      const before = await balance(account.userId);
      const body = { query: 'land acquisition compensation', limit: 2 };
      const refused = await client(account.key, { port: (brokenServer.address() as AddressInfo).port })
        .search.semantic(body)
        .then(
          () => assert.fail('resolved'),
          (error: unknown) => error,
        );
      assert.ok(refused instanceof UpstreamError);
      assert.deepEqual([refused.status, refused.code], [200, 'UPSTREAM_UNAVAILABLE']);
      assert.match(refused.requestId ?? '', /\S/);
      assert.match(refused.idempotencyKey ?? '', /^sdk-/);
      assert.equal(await balance(account.userId), before, 'nothing charged');
      // The same key on a listener whose keyword index answers: run afresh (an error is never stored), and charged then.
      const retried = await client(account.key, { port: fallbackPort }).search.semantic(body, { idempotencyKey: refused.idempotencyKey! });
      assert.deepEqual([retried.lastResponse.replayed, retried.lastResponse.idempotencyKey], [false, refused.idempotencyKey]);
      assert.ok(retried.data.length > 0);
      assert.ok((retried.lastResponse.creditsCharged ?? 0) > 0);
    } finally {
      await new Promise((resolve) => brokenServer.close(resolve));
    }
  });

  it('follows a redirect on the same origin with the key, and to another origin without it (two loopback servers)', async () => {
    interface Seen {
      readonly server: 'a' | 'b';
      readonly method: string;
      readonly url: string;
      readonly headers: IncomingHttpHeaders;
      readonly body: string;
    }
    const seen: Seen[] = [];
    const start = (name: 'a' | 'b', answer: (url: string) => { status: number; location?: string }) =>
      new Promise<{ port: number; close: () => Promise<void> }>((resolve) => {
        const server = createHttpServer((req, res) => {
          let body = '';
          req.on('data', (chunk: Buffer) => (body += chunk.toString()));
          req.on('end', () => {
            seen.push({ server: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
            const { status, location } = answer(req.url ?? '');
            res.writeHead(status, { 'content-type': 'application/json', ...(location ? { location } : {}) });
            res.end(JSON.stringify({ success: true, data: { echo: body } }));
          });
        });
        server.listen(0, '127.0.0.1', () =>
          resolve({ port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) }),
        );
      });
    const b = await start('b', () => ({ status: 200 }));
    const a = await start('a', (url) => {
      if (url === `${BASE}/me`) return { status: 302, location: `http://127.0.0.1:${b.port}${BASE}/me` };
      if (url === `${BASE}/search/cases`) return { status: 307, location: `http://127.0.0.1:${b.port}${BASE}/search/cases` };
      if (url === `${BASE}/usage`) return { status: 301, location: `${BASE}/usage-moved` };
      return { status: 200 };
    });
    try {
      const sdk = createCourtRecordsClient({
        baseUrl: `http://127.0.0.1:${a.port}${BASE}`,
        apiKey: 'crk_live_secret',
        retry: { maxRetries: 0 },
      });
      await sdk.account.me();
      await sdk.search.cases({ query: 'redirected' }, { idempotencyKey: 'kept-across' });
      await sdk.account.usage();
      const line = (s: Seen) => [s.server, s.method, s.url, s.headers['x-api-key'] ?? null];
      assert.deepEqual(seen.map(line), [
        ['a', 'GET', `${BASE}/me`, 'crk_live_secret'],
        ['b', 'GET', `${BASE}/me`, null],
        ['a', 'POST', `${BASE}/search/cases`, 'crk_live_secret'],
        ['b', 'POST', `${BASE}/search/cases`, null],
        ['a', 'GET', `${BASE}/usage`, 'crk_live_secret'],
        ['a', 'GET', `${BASE}/usage-moved`, 'crk_live_secret'],
      ]);
      const resent = seen[3]!;
      assert.deepEqual(
        [resent.body, resent.headers['idempotency-key']],
        ['{"query":"redirected"}', 'kept-across'],
        '307 resends the body and key',
      );
      for (const s of seen) assert.match(s.headers['user-agent'] ?? '', new RegExp(`^court-records-sdk/${SDK_VERSION} \\(node `));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('ships as JavaScript: built, packed and installed into a fresh project, it typechecks and makes a charged call from plain Node', async () => {
    const work = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
    // Asynchronous: the service under test answers from this process's event loop.
    const run = async (command: string, args: string[], cwd: string, env: Record<string, string> = {}) => {
      const done = await runCommand(command, args, env, cwd);
      assert.equal(done.code, 0, `${command} ${args.join(' ')}:\n${done.stdout}\n${done.stderr}`);
      return done.stdout;
    };
    try {
      await run('npm', ['run', 'sdk:build'], ROOT);
      const tarball = (await run('npm', ['pack', '--pack-destination', work, './sdk/dist'], ROOT)).trim().split('\n').at(-1)!;
      writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball)], work);
      // A JavaScript project: plain node, no TypeScript loader.
      writeFileSync(
        join(work, 'search.mjs'),
        [
          "import { createCourtRecordsClient } from '@court-records/sdk';",
          'const client = createCourtRecordsClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });',
          "const result = await client.searchCases({ body: { query: 'union of india', limit: 2 } });",
          'console.log(JSON.stringify({ status: result.status, charged: result.creditsCharged, cases: result.body.data.length }));',
        ].join('\n'),
      );
      const before = await balance(account.userId);
      const answer = JSON.parse(
        await run(process.execPath, ['search.mjs'], work, { BASE_URL: `${origin}${BASE}`, API_KEY: account.key }),
      ) as {
        status: number;
        charged: number;
        cases: number;
      };
      assert.deepEqual([answer.status, answer.charged], [200, SEARCH_PRICE]);
      assert.ok(answer.cases > 0);
      assert.equal(await balance(account.userId), before - SEARCH_PRICE);
      // A TypeScript project: the shipped declarations type the calls, and reject a wrong one.
      writeFileSync(
        join(work, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2023', 'dom'],
            types: [],
            noEmit: true,
          },
          files: ['typed.ts'],
        }),
      );
      writeFileSync(
        join(work, 'typed.ts'),
        [
          "import { createCourtRecordsClient, type CourtRecordsClient } from '@court-records/sdk';",
          "const client: CourtRecordsClient = createCourtRecordsClient({ baseUrl: 'https://api.example.in/api/v1/prod', apiKey: 'k' });",
          "export const cases: Promise<number> = client.searchCases({ body: { query: 'q' } }).then((r) => r.body.data.length);",
          '// @ts-expect-error searchCases needs a body with a query',
          'export const wrong = client.searchCases({ body: { limit: 3 } });',
        ].join('\n'),
      );
      await run(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('every charge it made is one CreditsCharged event with a server-made id', async () => {
    const rows = await sql<{ n: number; ids: number; spent: number }>`
      select count(*)::int as n, count(distinct data->>'chargeId')::int as ids, coalesce(sum((data->>'amount')::int), 0)::int as spent
      from events where type = 'CreditsCharged' and stream_id = ${`credit-ledger-${account.userId}`}`.execute(database.db);
    assert.equal(rows.rows[0]!.n, rows.rows[0]!.ids);
    // Searches and also, from the namespace tests, a case read, PDF links and semantic pages.
    assert.equal(rows.rows[0]!.spent, 10_000 - (await balance(account.userId)));
  });
});

/** Compile-time checks: wrong calls must not typecheck (tsc runs over the tests in CI). */
export async function typeChecks(sdk: CourtRecordsClient): Promise<unknown[]> {
  const error = await rejection(sdk.getMe());
  // @ts-expect-error getCase needs its path parameter
  const noPath: unknown = sdk.getCase();
  // @ts-expect-error searchCases needs a body with a query
  const noQuery: unknown = sdk.searchCases({ body: { limit: 3 } });
  // @ts-expect-error not an operation of the API
  const unknownOperation: unknown = sdk.deleteEverything;
  // @ts-expect-error not an error code of the API
  const unknownCode: unknown = error.is('NOT_A_CODE');
  return [noPath, noQuery, unknownOperation, unknownCode];
}
