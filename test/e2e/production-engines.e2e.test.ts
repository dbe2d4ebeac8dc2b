/**
 * The service on its production engines, black box: started under Node on PostgreSQL (with
 * pgvector), Redis and Meilisearch, it ingests the real corpus on first start and serves
 * keyword search from Meilisearch, semantic search through pgvector's HNSW index, the
 * litigation check from Meilisearch's party retrieval, and an analysis through its
 * Temporal workflow; every call is charged its price and the balance adds up. Needs
 * TEST_DATABASE_URL and TEST_REDIS_URL (CI sets them), and Meilisearch (MEILI_URL, or the
 * binary in ../shared/bin).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { corpusDir } from '../support/corpus.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../support/meilisearch.ts';
import { startService, type RunningService } from '../support/service-process.ts';

const API = '/api/v1/prod';
const ADMIN_TOKEN = 'engines-admin-token-0123456789';
const adminUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const INABS = 'sc-inabs-5861'; // C.A. 56/1987, a Supreme Court judgment with its full text
const DESARDA = 'sc-19885-2000-19020209'; // PADMA v. HIRALAL MOTILAL DESARDA

type Json = Record<string, unknown>;

const missing = !adminUrl || !redisUrl ? 'TEST_DATABASE_URL and TEST_REDIS_URL not set' : meilisearchMissing;

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `${what} within ${String(deadlineMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe('the service on PostgreSQL + pgvector, Redis and Meilisearch', { skip: missing, timeout: 900_000 }, () => {
  let service: RunningService;
  let sql: postgres.Sql;
  let cleanup: () => Promise<void>;
  let key: string;
  let spent = 0;
  const GRANT = 10_000;

  /** Every call's X-Credits-Charged is added to `spent`, which the balance must equal at the end. */
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json; charged: number }> => {
    const res = await fetch(`${service.url}${API}${path}`, {
      method,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const charged = Number(res.headers.get('x-credits-charged') ?? 0);
    spent += charged;
    return { status: res.status, body: (await res.json()) as Json, charged };
  };

  before(async () => {
    const name = `engines_${Date.now()}`;
    const admin = postgres(adminUrl!, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(adminUrl!);
    url.pathname = `/${name}`;
    sql = postgres(url.toString(), { max: 2, onnotice: () => undefined });
    const meili = await meilisearchForSuite();
    const meiliIndex = `e2e_${randomUUID().slice(0, 8)}`;
    cleanup = async () => {
      await dropIndexes(meili.url, meili.apiKey, meiliIndex);
      await sql.end();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      // Test mode's database beside it, which the service creates (composition/test-mode-adapters.ts).
      await admin.unsafe(`drop database if exists ${name}_test_mode with (force)`);
      await admin.end();
      await meili.close();
    };
    service = await startService('node', {
      DATABASE_URL: url.toString(),
      REDIS_URL: redisUrl!,
      MEILI_URL: meili.url,
      ...(meili.apiKey ? { MEILI_API_KEY: meili.apiKey } : {}),
      MEILI_INDEX: meiliIndex,
      CORPUS_DIR: corpusDir,
      AUTO_INGEST: 'true',
      ADMIN_TOKEN,
      KEY_HASH_SECRET: 'e2e-key-hash-secret-of-at-least-32-chars',
    });
    const adminCall = async (path: string, body: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.ok(res.ok, `${path}: ${String(res.status)}`);
      return ((await res.json()) as { data: Record<string, string> }).data;
    };
    const user = await adminCall('/admin/users', { email: 'engines@lawfirm.example', name: 'Engines', tier: 'enterprise' });
    key = (await adminCall(`/admin/users/${user.userId!}/keys`, { name: 'engines' })).fullKey!;
    await adminCall(`/admin/users/${user.userId!}/credits`, { amount: GRANT, source: 'grant' });
  });
  after(async () => {
    await service.stop();
    await cleanup();
  });

  it('reports every production engine in the deep health check, all healthy', async () => {
    const body = await until('a healthy service (workers bundle their workflows first)', 180_000, async () => {
      const res = await fetch(`${service.url}${API}/health?deep=1`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
      const health = (await res.json()) as { status: string; checks: Record<string, { ok: boolean; backend: string }> };
      return health.status === 'healthy' ? health : undefined;
    });
    assert.equal(body.checks.documentDatabase?.backend, 'postgres');
    assert.equal(body.checks.searchIndex?.backend, 'meilisearch');
    assert.equal(body.checks.vectorIndex?.ok, true);
    assert.equal(body.checks.cache?.backend, 'redis');
  });

  it('keyword search answers from Meilisearch once the first-start ingest is indexed', async () => {
    const page = await until('the ingested corpus searchable', 300_000, async () => {
      const { status, body, charged } = await call('POST', '/search/cases', { query: 'Civil Appeal No. 56 of 1987' });
      assert.equal(status, 200);
      assert.equal(charged, 5);
      const data = body.data as { caseId: string }[];
      return data[0]?.caseId === INABS ? data : undefined;
    });
    assert.ok(page.length > 1);
    const parties = await call('POST', '/search/cases', { query: 'Hiralal Motilal Desarda', sortBy: 'recent' });
    assert.equal(parties.status, 200);
    assert.equal(parties.charged, 5);
    assert.ok((parties.body.data as { caseId: string }[]).some((d) => d.caseId === DESARDA));
  });

  it('semantic search finds a judgment by a passage, through pgvector', async () => {
    const [embedded] = await until('a judgment embedded', 300_000, async () => {
      const rows = await sql<{ caseId: string; text: string }[]>`
        select c.case_id as "caseId", c.text from cases c
        where exists (select 1 from case_chunks k where k.case_id = c.case_id) and c.text is not null
        order by c.case_id limit 1`;
      return rows.length > 0 ? rows : undefined;
    });
    assert.ok(embedded);
    const passage = embedded.text.split(/\s+/).slice(40, 160).join(' ');
    const { status, body, charged } = await call('POST', '/search/cases/semantic', { query: passage });
    assert.equal(status, 200);
    assert.equal(body.success, true);
    assert.equal((body.meta as Json).fallbackMode, undefined, 'answered from the vector index, not the keyword fallback');
    assert.equal(charged, 10);
    assert.ok(
      (body.data as { caseId: string }[]).slice(0, 3).some((d) => d.caseId === embedded.caseId),
      JSON.stringify(body.data),
    );
  });

  it('the litigation check retrieves its candidates from Meilisearch', async () => {
    const { status, body, charged } = await call('POST', '/party/screen', {
      name: 'Hiralal Motilal Desarda',
      entityType: 'person',
      purpose: 'kyc',
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.ok(charged > 0);
    assert.ok(((body.data as Json).matches as { caseId: string }[]).some((m) => m.caseId === DESARDA));
  });

  it('an analysis runs through its workflow and is read back; the balance equals the grant less every charge', async () => {
    const admitted = await call('POST', `/cases/${INABS}/analyze`, {});
    assert.equal(admitted.status, 202, JSON.stringify(admitted.body));
    assert.equal(admitted.charged, 100);
    const read = await until('the analysis stored', 180_000, async () => {
      const { status, body } = await call('GET', `/cases/${INABS}/analysis`);
      assert.equal(status, 200);
      return (body.data as Json).hasAnalysis === true ? body : undefined;
    });
    assert.equal((read.data as Json).caseId, INABS);
    const usage = await call('GET', '/usage');
    assert.equal(
      (usage.body.data as { balance: number }).balance,
      GRANT - spent,
      'the balance is the grant less what each answer said it charged',
    );
  });
});
