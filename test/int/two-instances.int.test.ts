/**
 * Two service instances on one fresh PostgreSQL database, each with its own connection pool
 * (as two processes have): every event is projected once although both run the projector;
 * a lapsed hold is released once although both sweep; and an instance killed while it holds
 * a projector's or a sweeper's lock (its backend terminated with pg_terminate_backend, which
 * is what the server sees of a kill -9) is taken over by the other within 30 s.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { CreditExpirySweeper, type SweepReport } from '../../src/application/credits/expiry-sweeper.ts';
import { CreditsService } from '../../src/application/credits/credits-service.ts';
import { ledgerStream } from '../../src/application/credits/streams.ts';
import type { Db } from '../../src/db/database.ts';
import { openPostgres, type OpenedDatabase } from '../../src/db/open.ts';
import { underSessionLock } from '../../src/db/session-lock.ts';
import { randomIds, systemClock } from '../../src/ports/clock.ts';
import type { RecordedEvent } from '../../src/ports/event-store.ts';
import { ProjectorRunner, type AsyncProjection } from '../../src/projections/projector.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const postgres = databases.find((d) => d.name === 'postgres');
/** How soon another instance must take over from a killed holder. */
const TAKEOVER_BOUND_MS = 30_000;

async function eventually(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${String(ms)} ms`);
    await delay(50);
  }
}

/** Records every event it is given, with the instance that applied it; a gate, when set, holds the first batch. */
function recording(name: string, instance: string, hold?: { pid?: number; released: Promise<void> }): AsyncProjection {
  return {
    name,
    async apply(events: readonly RecordedEvent[], trx) {
      if (hold && hold.pid === undefined) {
        hold.pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
        await hold.released;
      }
      for (const e of events)
        await sql`insert into projected (projector, global_position, instance) values (${name}, ${e.globalPosition}, ${instance})`.execute(
          trx,
        );
    },
    reset: async () => undefined,
  };
}

describe('two instances on one PostgreSQL database', { skip: postgres ? false : 'needs TEST_DATABASE_URL', timeout: 180_000 }, () => {
  let database: TestDatabase;
  let second: OpenedDatabase;
  /** Each instance's pool; `admin` is a third, the operator's. */
  let a: Db;
  let b: Db;
  let admin: OpenedDatabase;

  before(async () => {
    database = await postgres!.open();
    second = await openPostgres(database.url!, { max: 10 });
    admin = await openPostgres(database.url!, { max: 2 });
    a = database.db;
    b = second.db;
    await sql`create table projected (projector text not null, global_position bigint not null, instance text not null)`.execute(a);
  });

  after(async () => {
    await admin.close();
    await second.close();
    await database.close();
  });

  /** Writes `n` ledger facts through instance A; their positions. */
  async function grants(n: number, prefix: string): Promise<number[]> {
    const credits = new CreditsService({ db: a, store: eventStoreOf(a), clock: systemClock, ids: randomIds });
    for (let i = 0; i < n; i += 1) assert.ok((await credits.grant(`org_${prefix}_${String(i)}`, { amount: 10, source: 'grant' })).ok);
    const rows = await a.selectFrom('events').select('globalPosition').orderBy('globalPosition').execute();
    return rows.map((r) => r.globalPosition);
  }

  const projectedBy = async (name: string) =>
    (
      await sql<{
        position: string;
        instance: string;
      }>`select global_position as position, instance from projected where projector = ${name}`.execute(a)
    ).rows;

  it('projects each event once while both instances run the projector', async () => {
    const positions = await grants(40, 'once');
    const runner = (db: Db, instance: string) =>
      new ProjectorRunner(db, eventStoreOf(db), recording('two-instances-once', instance), {
        now: () => new Date(),
        batchSize: 3,
        idleMs: 5,
      });
    const runners = [runner(a, 'a'), runner(b, 'b')];
    for (const r of runners) r.start();
    await eventually('every event projected', async () => (await projectedBy('two-instances-once')).length >= positions.length, 30_000);
    // A little longer: a second application would land now.
    await delay(300);
    await Promise.all(runners.map((r) => r.stop()));
    const rows = await projectedBy('two-instances-once');
    assert.deepEqual(
      rows.map((r) => Number(r.position)).sort((x, y) => x - y),
      positions,
      'each event once, none skipped',
    );
  });

  it('takes over a projector whose holder is killed mid-batch within 30 s', async () => {
    const positions = await grants(5, 'takeover');
    let release: () => void = () => undefined;
    const hold: { pid?: number; released: Promise<void> } = { released: new Promise<void>((resolve) => (release = resolve)) };
    const holder = new ProjectorRunner(a, eventStoreOf(a), recording('two-instances-takeover', 'a', hold), {
      now: () => new Date(),
      idleMs: 5,
    });
    const other = new ProjectorRunner(b, eventStoreOf(b), recording('two-instances-takeover', 'b'), { now: () => new Date(), idleMs: 5 });
    holder.start();
    await eventually('the holder is mid-batch', async () => hold.pid !== undefined, 10_000);
    other.start();
    await delay(500);
    assert.equal((await projectedBy('two-instances-takeover')).length, 0, 'the other instance waits while the holder holds the projector');
    const killedAt = Date.now();
    await sql`select pg_terminate_backend(${hold.pid!})`.execute(admin.db);
    await eventually(
      'the other instance projected every event',
      async () => (await projectedBy('two-instances-takeover')).length >= positions.length,
      TAKEOVER_BOUND_MS,
    );
    const tookMs = Date.now() - killedAt;
    release();
    await Promise.all([holder.stop(), other.stop()]);
    const rows = await projectedBy('two-instances-takeover');
    assert.ok(tookMs < TAKEOVER_BOUND_MS, `took over in ${String(tookMs)} ms`);
    assert.deepEqual(
      rows.map((r) => r.instance),
      positions.map(() => 'b'),
      'the killed batch was not committed; the other applied it once',
    );
  });

  it('releases each lapsed hold once while both instances sweep', async () => {
    const credits = (db: Db) => new CreditsService({ db, store: eventStoreOf(db), clock: systemClock, ids: randomIds });
    const accounts = Array.from({ length: 12 }, (_, i) => `org_lapsed_${String(i)}`);
    for (const account of accounts) {
      assert.ok((await credits(a).grant(account, { amount: 100, source: 'grant' })).ok);
      // Lapsed at once: its owner "died" before settling.
      assert.ok((await credits(a).reserve(account, 40, `req_${account}`, 0)).ok);
    }
    const sweeper = (db: Db) =>
      new CreditExpirySweeper(credits(db), {
        intervalMs: 60_000,
        oneAtATime: (sweep) => underSessionLock<SweepReport | 'busy'>(db, 'postgres', 'credit-expiry-sweep', false, sweep, 'busy'),
        onError: (error) => assert.fail(String(error)),
      });
    const [sa, sb] = [sweeper(a), sweeper(b)];
    const reports = (await Promise.all([sa.sweep(), sb.sweep(), sa.sweep(), sb.sweep()])).filter((r) => r !== 'busy');
    assert.equal(
      reports.reduce((n, r) => n + r.lapsedHolds, 0),
      accounts.length,
      'every hold counted released once across the instances',
    );
    const store = eventStoreOf(a);
    for (const account of accounts) {
      const events = (await store.readStream(ledgerStream(account))).events.map((e) => e.type);
      assert.equal(events.filter((t) => t === 'CreditsReleased').length, 1, `${account}: released once`);
    }
    assert.deepEqual(
      await Promise.all(accounts.map(async (account) => (await credits(b).balance(account)).reserved)),
      accounts.map(() => 0),
    );
  });

  it('takes over a sweep whose holder is killed mid-sweep within 30 s', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    const holding = underSessionLock(
      a,
      'postgres',
      'credit-expiry-sweep',
      false,
      async () => {
        entered = true;
        await released;
        return 'swept by a';
      },
      'busy',
    ).catch((error: unknown) => `a lost its connection: ${String(error)}`);
    await eventually('a holds the sweep', async () => entered, 10_000);
    const tryB = () => underSessionLock(b, 'postgres', 'credit-expiry-sweep', false, async () => 'swept by b', 'busy');
    assert.equal(await tryB(), 'busy', 'the other instance skips while a sweeps');
    const holderPid = await sql<{ pid: number }>`
      select pid from pg_locks where locktype = 'advisory' and objid::int = hashtext('credit-expiry-sweep') and granted`.execute(admin.db);
    assert.equal(holderPid.rows.length, 1);
    const killedAt = Date.now();
    await sql`select pg_terminate_backend(${holderPid.rows[0]!.pid})`.execute(admin.db);
    let outcome = await tryB();
    while (outcome === 'busy' && Date.now() - killedAt < TAKEOVER_BOUND_MS) {
      await delay(100);
      outcome = await tryB();
    }
    assert.equal(outcome, 'swept by b', `taken over in ${String(Date.now() - killedAt)} ms`);
    release();
    assert.match(await holding, /a lost its connection/);
  });
});
