/**
 * Black-box: the service started as a user starts it, under Node (embedded defaults, first
 * start ingests the real corpus) and under Deno, answering the public endpoints over HTTP.
 */
import assert from 'node:assert/strict';
import { createDecipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { devServerAddressFile } from '../../src/compose-workflows.ts';
import { corpusDir } from '../support/corpus.ts';
import { startService, type RunningService } from '../support/service-process.ts';

const API = '/api/v1/prod';

const NODE_ADMIN_TOKEN = 'node-admin-token-0123456789';

interface DeepHealth {
  readonly status: string;
  readonly checks: Record<string, { ok: boolean; backend: string; hard: boolean }>;
}
/** The deep checks the spec names, and the soft ones we add. */
const SPEC_CHECKS = ['documentDatabase', 'searchIndex', 'vectorIndex', 'cache', 'identityService'];
const OUR_CHECKS = ['workflowEngine', 'workers', 'analyticsStore'];

describe('the service under Node on embedded defaults', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('node', { CORPUS_DIR: corpusDir, AUTO_INGEST: 'true', ADMIN_TOKEN: NODE_ADMIN_TOKEN });
  });
  after(async () => service.stop());

  it('is healthy on every dependency, the workflow engine, its workers and the analytics store included', async () => {
    // The workers bundle the workflow code first (seconds): until one polls, the service is rightly degraded.
    // During first-start ingest the embedded database's one connection is busy, and on a loaded machine
    // its probe may time out (503 unhealthy) for a moment: what must hold is that it ends healthy.
    let body: DeepHealth | undefined;
    const seen: string[] = [];
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const res = await fetch(`${service.url}${API}/health?deep=1`, { headers: { Authorization: `Bearer ${NODE_ADMIN_TOKEN}` } });
      body = (await res.json()) as DeepHealth;
      seen.push(`${String(res.status)} ${body.status}`);
      if (res.status === 200 && body.status === 'healthy') break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    assert.equal(body?.status, 'healthy', `${JSON.stringify(body)} after ${seen.join(', ')}`);
    assert.deepEqual(Object.keys(body.checks).sort(), [...SPEC_CHECKS, ...OUR_CHECKS].sort());
    assert.equal(body.checks.documentDatabase?.backend, 'pglite');
    assert.equal(body.checks.workflowEngine?.backend, 'temporal-dev-server');
    // Recorded for `npm run worker` on this machine: the dev server's port may not be TEMPORAL_DEV_PORT's.
    assert.match(readFileSync(devServerAddressFile(service.dataDir), 'utf8'), /^127\.0\.0\.1:\d+\n$/);
  });

  it('ingests the real corpus on first start and reports it in /coverage', async () => {
    let total = 0;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && total < 30_000) {
      await new Promise((r) => setTimeout(r, 1000));
      if (!service.output().includes('corpus ingested')) continue;
      const body = (await (await fetch(`${service.url}${API}/coverage`)).json()) as { data: { totals: { total: number } } };
      total = body.data.totals.total;
    }
    assert.ok(total > 30_000, `coverage total ${total} after first-start ingest`);
  });

  it('lets a keyed caller search the real corpus, read a case and download its PDF, charging each call', async () => {
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${NODE_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(res.ok, `${path}: ${res.status}`);
      return ((await res.json()) as { data: Record<string, string> }).data;
    };
    const user = await admin('/admin/users', { email: 'e2e@lawfirm.example', name: 'E2E', tier: 'enterprise' });
    const key = (await admin(`/admin/users/${user.userId!}/keys`, { name: 'e2e' })).fullKey!;
    await admin(`/admin/users/${user.userId!}/credits`, { amount: 10_000, source: 'grant' });
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    type Page = { data: { caseId: string; caseNumber: string }[] };
    // The index fills in the background after first-start ingest; wait for a known record.
    let page: Page = { data: [] };
    let searches = 0;
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline && !page.data.some((d) => d.caseId === 'sc-inabs-5861')) {
      const res = await fetch(`${service.url}${API}/search/cases`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: 'CA 56/1987' }),
      });
      assert.equal(res.status, 200);
      searches += 1;
      page = (await res.json()) as Page;
      if (!page.data.some((d) => d.caseId === 'sc-inabs-5861')) await new Promise((r) => setTimeout(r, 2000));
    }
    assert.equal(page.data[0]?.caseId, 'sc-inabs-5861');
    const detail = await fetch(`${service.url}${API}/cases/sc-inabs-5861`, { headers });
    assert.equal(detail.status, 200);
    // PDFs are rendered in the background after ingest; PDF_NOT_STORED until then, uncharged.
    let pdfResponse = await fetch(`${service.url}${API}/cases/sc-inabs-5861/pdf`, { headers });
    while (pdfResponse.status === 404 && Date.now() < deadline) {
      assert.equal(((await pdfResponse.json()) as { code: string }).code, 'PDF_NOT_STORED');
      await new Promise((r) => setTimeout(r, 1000));
      pdfResponse = await fetch(`${service.url}${API}/cases/sc-inabs-5861/pdf`, { headers });
    }
    assert.equal(pdfResponse.status, 200);
    const pdf = (await pdfResponse.json()) as { data: { caseId: string; caseNumber: string; pdfUrl: string } };
    const [iv, ciphertext] = pdf.data.pdfUrl.split(':') as [string, string];
    const keyBytes = createHash('sha256').update(`${pdf.data.caseId}${pdf.data.caseNumber}`).digest();
    const decipher = createDecipheriv('aes-256-cbc', keyBytes, Buffer.from(iv, 'hex'));
    const url = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'hex')), decipher.final()]).toString('utf8');
    const download = await fetch(url);
    assert.equal(download.status, 200);
    assert.equal(
      Buffer.from(await download.arrayBuffer())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
    const usage = (await (await fetch(`${service.url}${API}/usage`, { headers })).json()) as { data: { balance: number } };
    assert.equal(usage.data.balance, 10_000 - 5 * searches - 1 - 5);
  });

  it('serves /docs with the Scalar bundle from our own origin', async () => {
    const page = await fetch(`${service.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /\/docs\/scalar\.js/);
    const bundle = await fetch(`${service.url}/docs/scalar.js`);
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 1_000_000);
  });

  it('never logs request bodies', async () => {
    const marker = 'Ramesh Kumar Body Marker';
    const res = await fetch(`${service.url}${API}/coverage`, {
      method: 'POST',
      body: JSON.stringify({ name: marker }),
      headers: { 'Content-Type': 'application/json' },
    });
    // The log is buffered (flushed at least once a second): wait for this request's line.
    const requestId = res.headers.get('x-request-id')!;
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !service.output().includes(requestId)) await new Promise((r) => setTimeout(r, 100));
    assert.ok(service.output().includes(requestId), 'the access log line was written');
    assert.ok(!service.output().includes(marker));
  });
});

const DENO_ADMIN_TOKEN = 'deno-admin-token-0123456789';

describe('the service under Deno', () => {
  let service: RunningService;
  before(async () => {
    service = await startService('deno', { AUTO_INGEST: 'false', ADMIN_TOKEN: DENO_ADMIN_TOKEN });
  });
  after(async () => service.stop());

  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${DENO_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { data: Record<string, string> }).data;
  };

  it('answers /health plain and deep, the embedded analytics store included', async () => {
    const plain = await fetch(`${service.url}${API}/health`);
    assert.equal(plain.status, 200);
    assert.equal(((await plain.json()) as { status: string }).status, 'ok');
    const deep = await fetch(`${service.url}${API}/health?deep=1`, { headers: { Authorization: `Bearer ${DENO_ADMIN_TOKEN}` } });
    assert.equal(deep.status, 200);
    const body = (await deep.json()) as DeepHealth;
    for (const name of SPEC_CHECKS) assert.equal(body.checks[name]?.ok, true, `${name}: ${JSON.stringify(body.checks[name])}`);
    // The service opens the analytics store before it listens, so it is up by the first answer.
    assert.deepEqual(
      { ok: body.checks.analyticsStore?.ok, backend: body.checks.analyticsStore?.backend },
      { ok: true, backend: 'chdb' },
      JSON.stringify(body.checks.analyticsStore),
    );
    // The workflow engine and its workers come up in the background after the first answer, and are soft.
    const failed = Object.entries(body.checks)
      .filter(([, check]) => !check.ok)
      .map(([name]) => name);
    assert.ok(
      failed.every((name) => OUR_CHECKS.includes(name)),
      `only soft checks of ours may fail: ${failed.join(', ')}`,
    );
    assert.equal(body.status, failed.length === 0 ? 'healthy' : 'degraded');
  });

  it('issues a key through the admin API and authenticates it on GET /me', async () => {
    const user = await admin('/admin/users', {
      email: 'deno@lawfirm.example',
      name: 'Deno',
      tier: 'enterprise',
      password: 'a long passphrase',
    });
    const key = await admin(`/admin/users/${user.userId!}/keys`, { name: 'deno' });
    const me = await fetch(`${service.url}${API}/me`, { headers: { Authorization: `Bearer ${key.fullKey!}` } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { data: { userId: string } }).data.userId, user.userId);
    const login = await fetch(`${service.url}/api/settings/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'deno@lawfirm.example', password: 'a long passphrase' }),
    });
    assert.equal(login.status, 200);
    assert.match(login.headers.get('set-cookie') ?? '', /HttpOnly/i);
  });

  it('charges a search and reports it in /usage and /audit from the embedded ClickHouse', async () => {
    const user = await admin('/admin/users', { email: 'deno-usage@lawfirm.example', name: 'Deno Usage', tier: 'enterprise' });
    const key = (await admin(`/admin/users/${user.userId!}/keys`, { name: 'deno-usage' })).fullKey!;
    await admin(`/admin/users/${user.userId!}/credits`, { amount: 100, source: 'grant' });
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    // An empty index still answers, and charges, a search.
    const search = await fetch(`${service.url}${API}/search/cases`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: 'CA 56/1987' }),
    });
    assert.equal(search.status, 200);
    assert.equal(search.headers.get('x-credits-charged'), '5');
    const requestId = search.headers.get('x-request-id');
    assert.ok(requestId);
    type Usage = { data: { balance: number; endpoints: { endpoint: string; calls: number; credits: number }[] } };
    type Audit = { data: { rows: { requestId: string; endpoint: string; statusCode: number; creditsDeducted: number }[] } };
    // Calls reach ClickHouse through an asynchronous projector: wait, bounded, for this one in /audit;
    // /usage counts from the same table, so it is read once the row is there.
    let audit: { status: number; body: Audit } | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const res = await fetch(`${service.url}${API}/audit?userId=${user.userId!}`, { headers });
      audit = { status: res.status, body: (await res.json()) as Audit };
      if (audit.status !== 200 || audit.body.data.rows.some((row) => row.requestId === requestId)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(audit?.status, 200, JSON.stringify(audit?.body));
    const row = audit.body.data.rows.find((r) => r.requestId === requestId);
    assert.deepEqual(
      row && { endpoint: row.endpoint, statusCode: row.statusCode, creditsDeducted: row.creditsDeducted },
      { endpoint: '/search/cases', statusCode: 200, creditsDeducted: 5 },
      JSON.stringify(audit.body.data.rows),
    );
    const usage = await fetch(`${service.url}${API}/usage`, { headers });
    assert.equal(usage.status, 200);
    const { data } = (await usage.json()) as Usage;
    assert.equal(data.balance, 95);
    assert.deepEqual(
      data.endpoints.find((e) => e.endpoint === '/search/cases'),
      { endpoint: '/search/cases', calls: 1, credits: 5 },
    );
  });

  it('serves the reference data with an ETag and a coded 404 for unknown routes', async () => {
    const res = await fetch(`${service.url}${API}/reference/courts`);
    assert.equal(res.status, 200);
    const etag = res.headers.get('etag');
    assert.ok(etag);
    assert.equal((await fetch(`${service.url}${API}/reference/courts`, { headers: { 'If-None-Match': etag } })).status, 304);
    const missing = await fetch(`${service.url}${API}/nope`);
    assert.equal(missing.status, 404);
    const body = (await missing.json()) as { code: string; requestId: string };
    assert.equal(body.code, 'ROUTE_NOT_FOUND');
    assert.equal(body.requestId, missing.headers.get('x-request-id'));
  });
});
