/**
 * Charging under real concurrency: the app behind a real HTTP listener, 500 charged calls
 * on one account fired 32 at a time over sockets, 30% of them sharing Idempotency-Keys
 * (so some repeats race their first call and some replay it). Afterwards the ledger must
 * hold exactly one charge per call that ran, the balance must equal the ledger's fold and
 * the initial grant minus those charges, the audit trail must carry the same credits, and
 * every replay must be byte-identical to the answer it replays. Then an account that can
 * afford only some of a burst: exactly that many succeed, the rest get 402, balance zero.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { sql } from 'kysely';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { AUDIT_EVENT_TYPE } from '../../src/domain/audit/audit.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const PRICE = 5;
const CALLS = 500;
const SHARED_SHARE = 0.3;
const PARALLEL = 32;
const QUERIES = ['appeal', 'tax', 'land acquisition', 'murder', 'contract', 'writ petition', 'evidence', 'bail'];

interface Call {
  readonly body: string;
  readonly idempotencyKey?: string;
}
interface Answer {
  readonly call: Call;
  readonly status: number;
  readonly replayed: boolean;
  readonly text: string;
}

/** Runs `tasks` with at most `width` in flight. */
async function pool<T>(tasks: readonly (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await tasks[i]!();
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/** A fixed shuffle, so a failure replays in the same order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

for (const factory of databases)
  describe(`charged calls under concurrency on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let t: TestApp;
    let fixture: AccessFixture;
    let server: ServerType;
    let origin: string;
    const clock = new SettableClock(new Date('2026-11-20T10:00:00Z'));

    const post = async (key: string, call: Call): Promise<Answer> => {
      const res = await fetch(`${origin}${BASE}/search/cases`, {
        method: 'POST',
        headers: {
          'X-API-Key': key,
          'Content-Type': 'application/json',
          ...(call.idempotencyKey ? { 'Idempotency-Key': call.idempotencyKey } : {}),
        },
        body: call.body,
      });
      return { call, status: res.status, replayed: res.headers.get('idempotency-replayed') === 'true', text: await res.text() };
    };

    before(async () => {
      database = await factory.open();
      const index = new PostgresSearchIndex(database.db);
      t = buildTestApp({ db: database.db, clock, index });
      fixture = await createAccessFixture(t.application.accounts, clock);
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource] });
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
      server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
      await new Promise((resolve) => server.once('listening', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise((resolve) => server.close(resolve));
      await database.close();
    });

    it(`${CALLS} calls, ${SHARED_SHARE * 100}% sharing keys: one charge per call that ran, replays byte-identical, balance exact`, async () => {
      const account = fixture.organizationId;
      const granted = 10_000;
      await t.application.credits.grant(account, { amount: granted, source: 'grant' });
      const shared = Math.round(CALLS * SHARED_SHARE);
      const calls: Call[] = [];
      for (let i = 0; i < CALLS - shared; i += 1) {
        const body = JSON.stringify({ query: QUERIES[i % QUERIES.length], limit: 5, page: 1 + (i % 3) });
        calls.push(i % 2 === 0 ? { body } : { body, idempotencyKey: `solo-${i}` });
      }
      // Three calls per shared key, same body, spread through the run so some race and some replay.
      for (let i = 0; i < shared; i += 1) {
        const group = Math.floor(i / 3);
        calls.push({ body: JSON.stringify({ query: QUERIES[group % QUERIES.length], limit: 5 }), idempotencyKey: `shared-${group}` });
      }
      const answers = await pool(
        shuffled(calls, 42).map((call) => () => post(fixture.keys.active, call)),
        PARALLEL,
      );

      const unexpected = answers.filter((a) => a.status !== 200 && !(a.status === 409 && a.text.includes('IDEMPOTENCY_IN_PROGRESS')));
      assert.deepEqual(
        unexpected.map((a) => `${a.status} ${a.text.slice(0, 120)}`),
        [],
      );
      const ran = answers.filter((a) => a.status === 200 && !a.replayed);
      const replays = answers.filter((a) => a.replayed);
      assert.ok(replays.length > 0, 'some repeats came after their first call finished');

      const firstByKey = new Map<string, Answer>();
      for (const a of ran) {
        const key = a.call.idempotencyKey;
        if (key === undefined) continue;
        assert.ok(!firstByKey.has(key), `idempotency key ${key} ran twice`);
        firstByKey.set(key, a);
      }
      for (const r of replays) assert.equal(r.text, firstByKey.get(r.call.idempotencyKey!)?.text, 'replay is byte-identical');

      const expectedCharged = ran.length * PRICE;
      assert.equal((await t.application.credits.balance(account)).balance, granted - expectedCharged);
      const charges = await sql<{ n: number; total: number; ids: number }>`
        select count(*)::int as n, coalesce(sum((data->>'amount')::int), 0)::int as total, count(distinct data->>'chargeId')::int as ids
        from events where type = 'CreditsCharged' and stream_id = ${`credit-ledger-${account}`}`.execute(database.db);
      assert.deepEqual(charges.rows[0], { n: ran.length, total: expectedCharged, ids: ran.length });

      const audited = await sql<{ credits: number; calls: number }>`
        select coalesce(sum((data->>'creditsDeducted')::int), 0)::int as credits, count(*)::int as calls
        from events where type = ${AUDIT_EVENT_TYPE} and data->>'endpoint' = '/search/cases' and data->>'organizationId' = ${account}`.execute(
        database.db,
      );
      assert.deepEqual(audited.rows[0], { credits: expectedCharged, calls: CALLS });

      const report = await reconcileLedger(
        { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
        { accountId: account },
      );
      assert.deepEqual(report.differences, []);
    });

    it('a burst larger than the balance: exactly the affordable calls succeed, the rest get 402, balance ends at zero', async () => {
      const account = fixture.users.noOrg;
      await t.application.credits.grant(account, { amount: 20 * PRICE, source: 'grant' });
      const answers = await pool(
        Array.from(
          { length: 60 },
          (_, i) => () => post(fixture.keys.noOrg, { body: JSON.stringify({ query: QUERIES[i % QUERIES.length] }) }),
        ),
        PARALLEL,
      );
      assert.equal(answers.filter((a) => a.status === 200).length, 20);
      const refused = answers.filter((a) => a.status === 402);
      assert.equal(refused.length, 40);
      for (const r of refused) assert.equal((JSON.parse(r.text) as { code: string }).code, 'INSUFFICIENT_API_CREDITS');
      assert.equal((await t.application.credits.balance(account)).balance, 0);
    });
  });
