/**
 * Black-box: test mode on the started service (embedded defaults, its own Temporal dev
 * server). An operator issues a crk_test key to a live, funded account; with it a caller
 * reaches the keyed routes and gets real answers from the fixture corpus, deterministic
 * ones where the work is, charged to a test ledger of 1,000,000 test credits, while the
 * live balance, the live corpus and the live records never move or show. And the reverse:
 * live keys never see test-mode records; test keys are revocable; a forged one is refused.
 * Webhooks follow the mode: a test-mode fact reaches the account's test endpoints only.
 */
import assert from 'node:assert/strict';
import { createDecipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook } from '../../sdk/src/webhooks.ts';
import { corpusDir } from '../support/corpus.ts';
import { runCommand, startService, type RunningService } from '../support/service-process.ts';

type Json = Record<string, unknown>;

const FIXTURE_CASE = 'sc-inabs-5861';
const TEST_CREDITS = 1_000_000;
const LIVE_CREDITS = 5_000;

describe('test mode: crk_test keys on the started service', { timeout: 600_000 }, () => {
  let service: RunningService;
  let api: string;
  let adminToken: string;
  let userId: string;
  let email: string;
  let password: string;
  let liveKey: string;
  let testKey: string;
  /** The live balance once set-up (which searches until the live index answers) is done. */
  let liveStart: number | undefined;
  /** What the live calls after set-up were charged, by their X-Credits-Charged. */
  let liveCharged = 0;

  const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (key === liveKey && liveStart !== undefined) liveCharged += Number(res.headers.get('x-credits-charged') ?? 0);
    return { res, body: (await res.json()) as Json };
  };
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${new URL(api).origin}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: Json } };
  };
  const balance = async (key: string) => ((await call(key, 'GET', '/usage')).body.data as { balance: number }).balance;
  const search = (key: string, query: string, headers: Record<string, string> = {}) =>
    call(key, 'POST', '/search/cases', { query, limit: 10 }, headers);
  const ids = (body: Json) => (body.data as { caseId: string }[]).map((c) => c.caseId);

  before(async () => {
    service = await startService('node', { AUTO_INGEST: 'true', CORPUS_DIR: corpusDir });
    const url = new URL(service.url);
    const env = { HOST: url.hostname, PORT: url.port, DATA_DIR: service.dataDir, DATABASE_URL: '', COURT_RECORDS_URL: '' };
    const seeded = await runCommand(
      process.execPath,
      ['bin/court-records.mjs', 'dev', 'seed', '--json', '--credits', String(LIVE_CREDITS)],
      env,
    );
    assert.equal(seeded.code, 0, seeded.stderr);
    ({
      userId,
      email,
      password,
      apiKey: liveKey,
      apiRoot: api,
    } = JSON.parse(seeded.stdout) as { userId: string; email: string; password: string; apiKey: string; apiRoot: string });
    adminToken = readFileSync(join(service.dataDir, 'secrets', 'admin-token'), 'utf8').trim();
    const issued = await admin(`/admin/users/${userId}/keys`, { name: 'ci', mode: 'test' });
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    assert.equal(issued.body.data.mode, 'test');
    testKey = String(issued.body.data.fullKey);
    assert.match(testKey, /^crk_test-/);
    // Test mode is built once the start-up work is done, before any test call.
    for (let i = 0; i < 600 && !service.output().includes('"msg":"test mode ready"'); i += 1) await new Promise((r) => setTimeout(r, 500));
    assert.ok(service.output().includes('"msg":"test mode ready"'), 'test mode was built without waiting for a test call');
    // Were it still starting, a call would be told when to retry, nothing charged.
    let probe = await call(testKey, 'GET', '/me');
    for (let i = 0; i < 120 && probe.res.status === 502; i += 1) {
      const retryAfter = Number(probe.res.headers.get('retry-after'));
      assert.ok(retryAfter > 0, JSON.stringify(probe.body));
      await new Promise((r) => setTimeout(r, retryAfter * 1_000));
      probe = await call(testKey, 'GET', '/me');
    }
    assert.equal(probe.res.status, 200, JSON.stringify(probe.body));
    // The live corpus is indexed after /health answers: wait until it answers a search.
    for (let i = 0; i < 180 && ids((await search(liveKey, 'appeal')).body).length === 0; i += 1)
      await new Promise((r) => setTimeout(r, 1_000));
    liveStart = await balance(liveKey);
  });
  after(async () => service.stop());

  it('answers a test key from the fixture corpus, charged to its own ledger of test credits; the live balance does not move', async () => {
    const first = await search(testKey, 'union of india');
    assert.equal(first.res.status, 200, JSON.stringify(first.body));
    assert.ok(ids(first.body).length > 0);
    assert.equal(first.res.headers.get('x-credits-charged'), '5');
    assert.equal(first.res.headers.get('x-credits-remaining'), String(TEST_CREDITS - 5));
    assert.equal(await balance(testKey), TEST_CREDITS - 5);
    assert.equal(await balance(liveKey), liveStart, 'nothing of the live balance was spent');
    const again = await search(testKey, 'union of india');
    assert.deepEqual(ids(again.body), ids(first.body), 'the fixture corpus answers the same way each time');
  });

  it('sees only the fixture corpus: a live-only case is not found in test mode, a fixture case is', async () => {
    // Ids of the fixture sources start sc-inabs-, sc-ik- and hc-; the Supreme Court metadata's do not (ingested
    // after the judgments with text, so a loaded machine may still be indexing them).
    const liveOnlyIn = async () =>
      ids((await search(liveKey, 'state of')).body).find((id) => id.startsWith('sc-') && !/^sc-(?:inabs|ik)-/.test(id));
    let liveOnly = await liveOnlyIn();
    for (let i = 0; i < 180 && liveOnly === undefined; i += 1) {
      await new Promise((r) => setTimeout(r, 1_000));
      liveOnly = await liveOnlyIn();
    }
    assert.ok(liveOnly, 'a live case outside the fixture sources');
    assert.equal((await call(liveKey, 'GET', `/cases/${liveOnly}`)).res.status, 200);
    const hidden = await call(testKey, 'GET', `/cases/${liveOnly}`);
    assert.deepEqual([hidden.res.status, hidden.body.code], [404, 'CASE_NOT_FOUND']);
    assert.equal((await call(testKey, 'GET', `/cases/${FIXTURE_CASE}`)).res.status, 200);
  });

  it('keeps idempotency records apart: one Idempotency-Key runs once in each mode', async () => {
    const headers = { 'Idempotency-Key': `test-mode-${Date.now()}` };
    const live = await search(liveKey, 'land acquisition', headers);
    const test = await search(testKey, 'land acquisition', headers);
    assert.deepEqual([live.res.status, test.res.status], [200, 200]);
    assert.equal(live.res.headers.get('idempotency-replayed'), null);
    assert.equal(test.res.headers.get('idempotency-replayed'), null, 'the test call did not replay the live answer');
    assert.equal((await search(testKey, 'land acquisition', headers)).res.headers.get('idempotency-replayed'), 'true');
  });

  it('runs an analysis through test mode’s own workflow, readable in test mode only', async () => {
    const started = await call(testKey, 'POST', `/cases/${FIXTURE_CASE}/analyze`, {});
    assert.equal(started.res.status, 202, JSON.stringify(started.body));
    const stored = (r: { body: Json }) => (r.body.data as { hasAnalysis?: boolean } | undefined)?.hasAnalysis !== false;
    let analysis: { res: Response; body: Json } | undefined;
    for (let i = 0; i < 180; i += 1) {
      analysis = await call(testKey, 'GET', `/cases/${FIXTURE_CASE}/analysis`);
      if (analysis.res.status === 200 && stored(analysis)) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    assert.ok(analysis, 'polled at least once');
    assert.equal(analysis.res.status, 200, JSON.stringify(analysis.body));
    assert.ok(stored(analysis), JSON.stringify(analysis.body));
    assert.equal(analysis.res.headers.get('x-credits-charged'), '1', 'read from the test ledger');
    const live = await call(liveKey, 'GET', `/cases/${FIXTURE_CASE}/analysis`);
    assert.equal(live.res.status, 200);
    assert.equal(stored(live), false, 'the live side has no analysis of this case');
  });

  it('screens deterministically: the same check twice gives the same matches', async () => {
    const body = { name: 'Union of India', entityType: 'company', purpose: 'due_diligence' };
    const [a, b] = [await call(testKey, 'POST', '/party/screen', body), await call(testKey, 'POST', '/party/screen', body)];
    assert.deepEqual([a.res.status, b.res.status], [200, 200], JSON.stringify(a.body));
    const matches = (r: Json) => JSON.stringify((r.data as Json).matches ?? (r.data as Json).cases ?? r.data);
    assert.equal(matches(a.body), matches(b.body));
  });

  it('hands out PDF links under /test-mode/ that download the fixture judgment', async () => {
    const { res, body } = await call(testKey, 'GET', `/cases/${FIXTURE_CASE}/pdf`);
    assert.equal(res.status, 200, JSON.stringify(body));
    const { pdfUrl, caseId, caseNumber } = body.data as { pdfUrl: string; caseId: string; caseNumber: string };
    const [iv, ciphertext] = pdfUrl.split(':') as [string, string];
    const key = createHash('sha256').update(`${caseId}${caseNumber}`).digest();
    const decipher = createDecipheriv('aes-256-cbc', key, Buffer.from(iv, 'hex'));
    const url = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'hex')), decipher.final()]).toString('utf8');
    assert.ok(new URL(url).pathname.startsWith('/test-mode/'), url);
    const download = await fetch(url);
    assert.equal(download.status, 200);
    assert.equal(new TextDecoder().decode((await download.arrayBuffer()).slice(0, 5)), '%PDF-');
  });

  it('refuses a forged test key and a revoked one, like live keys', async () => {
    const forged = `${testKey.slice(0, -5)}${testKey.endsWith('a') ? 'b' : 'a'}${testKey.slice(-4)}`;
    assert.equal((await call(forged, 'GET', '/me')).res.status, 401);
    const second = await admin(`/admin/users/${userId}/keys`, { name: 'to revoke', mode: 'test' });
    const revoked = String(second.body.data.fullKey);
    assert.equal((await call(revoked, 'GET', '/me')).res.status, 200);
    assert.equal((await admin(`/admin/keys/${String(second.body.data.id)}/revoke`, {})).status, 200);
    // Revocation reaches the key cache at its next poll (KEY_CACHE_POLL_MS, 200 ms), as for live keys.
    let after = await call(revoked, 'GET', '/me');
    for (let i = 0; i < 50 && after.res.status === 200; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      after = await call(revoked, 'GET', '/me');
    }
    assert.deepEqual([after.res.status, after.body.code], [401, 'API_KEY_REVOKED']);
  });

  it('runs a live fetch (refresh: true) through the fixture portal for test credits, and its stored order PDF downloads', async () => {
    const before = await balance(testKey);
    const started = await call(testKey, 'POST', '/request-timeline', { cnr: 'JKHC020113752018', refresh: true });
    assert.equal(started.res.status, 202, JSON.stringify(started.body));
    const requestId = String((started.body.data as Json).requestId);
    let job: Json = started.body.data as Json;
    for (let i = 0; i < 120 && job.status === 'running'; i += 1) {
      await new Promise((r) => setTimeout(r, 1_000));
      job = (await call(testKey, 'GET', `/request-timeline/${requestId}`)).body.data as Json;
    }
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual(job.charge, { credits: 50, state: 'charged' });
    assert.equal((job.timeline as Json | null)?.cnr, 'JKHC020113752018', JSON.stringify(job.timeline));
    assert.equal(await balance(testKey), before - 50, 'the live fetch was charged to the test ledger');
    // The portal's latest order document is stored, in test mode only.
    const pdf = await call(testKey, 'GET', `/cases/${String(job.caseId)}/pdf`);
    assert.equal(pdf.res.status, 200, JSON.stringify(pdf.body));
    const live = await call(liveKey, 'GET', `/request-timeline/${requestId}`);
    assert.deepEqual([live.res.status, live.body.code], [404, 'JOB_NOT_FOUND'], 'the live side has no such job');
  });

  it('sends test-mode events to the account’s test endpoints only, and live ones to its live endpoints, signed and marked', async () => {
    const origin = new URL(api).origin;
    const login = await fetch(`${origin}/api/settings/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    assert.equal(login.status, 200);
    const csrf = ((await login.json()) as { data: { csrfToken: string } }).data.csrfToken;
    const cookie = /^session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[0];
    assert.ok(cookie);
    const settings = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${origin}/api/settings${path}`, {
        method,
        headers: { Cookie: cookie, 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as { data: Json & Json[] } };
    };
    const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}`;
    const endpoints: Record<'live' | 'test', { id: string; secret: string }> = {
      live: { id: '', secret: '' },
      test: { id: '', secret: '' },
    };
    try {
      for (const mode of ['live', 'test'] as const) {
        const made = await settings('POST', '/webhooks', { url: `${base}/${mode}`, eventTypes: ['timeline.completed'], mode });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        assert.equal(made.body.data.mode, mode);
        endpoints[mode] = { id: String(made.body.data.id), secret: String(made.body.data.secret) };
      }
      // A stored High Court record of the fixture corpus: answered at once, free, in each mode.
      const asked: Record<'live' | 'test', string> = { live: '', test: '' };
      for (const [mode, key] of [
        ['test', testKey],
        ['live', liveKey],
      ] as const) {
        const timeline = await call(key, 'POST', '/request-timeline', { cnr: 'GAHC010225502018' });
        assert.equal(timeline.res.status, 202, JSON.stringify(timeline.body));
        asked[mode] = String((timeline.body.data as Json).requestId);
      }
      const deadline = Date.now() + 120_000;
      while (received.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      for (const mode of ['live', 'test'] as const) {
        const got = received.filter((r) => r.path === `/${mode}`);
        assert.equal(got.length, 1, `${mode}: ${JSON.stringify(received.map((r) => r.path))}`);
        const event = await verifyWebhook({ payload: got[0]!.body, headers: got[0]!.headers, secret: endpoints[mode].secret });
        assert.ok(event.type === 'timeline.completed', event.type);
        assert.deepEqual([event.mode, event.data.requestId], [mode, asked[mode]]);
      }
      const listed = await settings('GET', '/webhooks');
      assert.deepEqual(
        listed.body.data.map((e) => [e.id, e.mode]).sort(),
        [
          [endpoints.live.id, 'live'],
          [endpoints.test.id, 'test'],
        ].sort(),
      );
      // Nothing more arrives for either: each fact went to its own mode's endpoint once.
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(received.length, 2);
    } finally {
      for (const { id } of Object.values(endpoints)) if (id) await settings('DELETE', `/webhooks/${id}`);
      receiver.close();
    }
  });

  it('never moved the live balance, whatever test mode charged', async () => {
    assert.ok(liveCharged > 0, 'the suite made charged live calls');
    assert.equal(await balance(liveKey), (liveStart ?? Number.NaN) - liveCharged, 'only what the live calls of this suite were charged');
    assert.ok((await balance(testKey)) < TEST_CREDITS - 5);
  });
});
