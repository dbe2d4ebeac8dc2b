/**
 * The request path's statement timeout, on PostgreSQL: a statement that runs past it is
 * cancelled by the server, the call answers 408 UPSTREAM_TIMEOUT in the spec's shape in
 * bounded time, and nothing is charged; the maintenance pool (migrations, ingest,
 * projections) has no such bound. The fault is real: another session holds a lock the
 * charge must wait for. PGlite cannot enforce a statement timeout (it has no timer signal
 * in WebAssembly), so this runs on PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import postgres from 'postgres';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { openPostgres, type OpenedDatabase } from '../../src/db/open.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const postgresFactory = databases.find((d) => d.name === 'postgres');
const TIMEOUT_MS = 300;

describe('the statement timeout of the request path', { skip: postgresFactory ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let created: TestDatabase;
  let bounded: OpenedDatabase;
  let t: TestApp;
  let key: string;
  let account: string;

  before(async () => {
    created = await postgresFactory!.open();
    bounded = await openPostgres(created.url!, { statementTimeoutMs: TIMEOUT_MS });
    t = buildTestApp({ db: bounded.db });
    const user = await t.application.accounts.registerUser(enterpriseUser('timeout@statement.example'), { kind: 'operator' });
    assert.ok(user.ok);
    account = user.value.userId;
    const made = await t.application.accounts.createKey(account, 'timeout', { kind: 'operator' });
    assert.ok(made.ok);
    key = made.value.fullKey;
    await t.application.credits.grantToUser(account, { amount: 1_000, source: 'grant' });
    await ingestCorpus({ db: bounded.maintenance, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
  });
  after(async () => {
    await bounded.close();
    await created.close();
  });

  it('cancels a request-path statement past the timeout; the maintenance pool runs long statements', async () => {
    await assert.rejects(sql`select pg_sleep(1)`.execute(bounded.db), (error: unknown) => (error as { code?: string }).code === '57014');
    await sql`select pg_sleep(${(TIMEOUT_MS * 2) / 1000})`.execute(bounded.maintenance);
  });

  it('answers 408 UPSTREAM_TIMEOUT in bounded time and charges nothing when the ledger row is held', async () => {
    const before = (await t.application.credits.balance(account)).balance;
    const holder = postgres(created.url!, { max: 1, onnotice: () => undefined });
    try {
      await holder.begin(async (tx) => {
        await tx`lock table credit_balances in access exclusive mode`;
        const started = performance.now();
        const res = await t.app.request(`${BASE}/cases/sc-inabs-5861`, { headers: { 'X-API-Key': key } });
        const elapsed = performance.now() - started;
        const body = (await res.json()) as Record<string, unknown>;
        assert.equal(res.status, 408, JSON.stringify(body));
        assert.equal(body.code, 'UPSTREAM_TIMEOUT');
        assert.equal(body.requestId, res.headers.get('x-request-id'));
        assert.ok(elapsed < 5_000, `answered in ${elapsed.toFixed(0)} ms`);
      });
    } finally {
      await holder.end();
    }
    assert.equal((await t.application.credits.balance(account)).balance, before);
    const res = await t.app.request(`${BASE}/cases/sc-inabs-5861`, { headers: { 'X-API-Key': key } });
    assert.equal(res.status, 200);
    assert.equal((await t.application.credits.balance(account)).balance, before - 1);
  });
});
