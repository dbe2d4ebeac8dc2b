/**
 * The credit service on every test database: grant, reserve, settle, release, reverse;
 * many parallel charges on one busy account (never below zero, never double-charged,
 * never lost); the inline balance and lot rows equal to a fresh fold of the ledger stream;
 * and expiry: soonest-expiring credits spent first, the rest expired lazily by any command,
 * by `expireDue` and by the sweep, exactly once under concurrency, and a stream recorded
 * before lots upgraded on first touch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.ts';
import { CreditsService, LEDGER_STREAM_TYPE, ledgerStream } from '../../src/application/credits/credits-service.ts';
import { creditsReadModel } from '../../src/application/credits/read-model.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { evolveLedger, initialLedger, type LedgerEvent } from '../../src/domain/credits/ledger.ts';
import { fold } from '../../src/domain/decider.ts';
import { jsonb } from '../../src/db/jsonb.ts';
import { randomIds } from '../../src/ports/clock.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { eventStoreOf } from '../../src/wiring.ts';

/** What a successful charge left, without its server-made id. */
function balanceOf(result: Awaited<ReturnType<CreditsService['chargeNow']>>): { balance: number; reserved: number } {
  assert.ok(result.ok, JSON.stringify(result));
  return { balance: result.value.balance, reserved: result.value.reserved };
}

/** Holds in these tests never lapse while they run. */
const HOLD_MS = 3_600_000;

for (const factory of databases) {
  describe(`credits service (${factory.name})`, () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let credits: CreditsService;
    let now = new Date();

    before(async () => {
      database = await factory.open();
      store = new PostgresEventStore(database.db, [creditsReadModel]);
      credits = new CreditsService({ db: database.db, store, clock: { now: () => now }, ids: randomIds });
    });
    after(async () => database.close());

    async function assertRowEqualsFold(accountId: string): Promise<void> {
      const { events, version } = await store.readStream(ledgerStream(accountId));
      const folded = fold(
        evolveLedger,
        initialLedger,
        events.map((e) => ({ type: e.type, data: e.data }) as LedgerEvent),
      );
      const row = await database.db.selectFrom('creditBalances').selectAll().where('accountId', '=', accountId).executeTakeFirstOrThrow();
      assert.deepEqual([row.balance, row.reserved, row.version], [folded.available, folded.reserved, version]);
      const lots = await database.db.selectFrom('creditLots').select(['grantId', 'remaining']).where('accountId', '=', accountId).execute();
      assert.deepEqual(
        Object.fromEntries(lots.map((l) => [l.grantId, l.remaining])),
        Object.fromEntries(Object.entries(folded.lots).map(([id, l]) => [id, l.remaining])),
      );
    }

    const types = async (accountId: string) => (await store.readStream(ledgerStream(accountId))).events.map((e) => e.type);
    const expiredAmounts = async (accountId: string) =>
      (await store.readStream(ledgerStream(accountId))).events.flatMap((e) =>
        e.type === 'CreditsExpired' ? [(e.data as { amount: number }).amount] : [],
      );

    it('releases a hold its owner left open once it lapses, and only then; the sweep records it in the ledger', async () => {
      const account = `usr_lapse_${factory.name}`;
      now = new Date('2027-05-01T10:00:00.000Z');
      await credits.grant(account, { amount: 500, source: 'grant' });
      const orphan = await credits.reserve(account, 180, 'req-died-mid-call', 15 * 60_000);
      const live = await credits.reserve(account, 100, 'req-still-running', 60 * 60_000);
      assert.ok(orphan.ok && live.ok);
      const row = await database.db
        .selectFrom('creditReservations')
        .select('holdUntil')
        .where('reservationId', '=', orphan.value.reservationId)
        .executeTakeFirstOrThrow();
      assert.equal(row.holdUntil?.toISOString(), '2027-05-01T10:15:00.000Z');
      now = new Date('2027-05-01T10:14:59.000Z');
      const early = await credits.releaseLapsedHolds();
      assert.equal(early.holds, 0);
      now = new Date('2027-05-01T10:15:00.000Z');
      const swept = await credits.releaseLapsedHolds();
      assert.ok(swept.holds >= 1);
      assert.deepEqual(await credits.balance(account), { balance: 400, reserved: 100 });
      assert.deepEqual((await types(account)).slice(-1), ['CreditsReleased']);
      assert.equal((await credits.releaseLapsedHolds()).holds, 0, 'a released hold is not released twice');
      // Its owner coming back late settles nothing: the credits already went back.
      const late = await credits.settle(account, orphan.value.reservationId, 100);
      assert.ok(late.ok);
      assert.equal(late.value.charged, 0);
      await assertRowEqualsFold(account);
    });

    it('grants, reserves the worst case, settles the final price and reverses a charge', async () => {
      const account = `org_flow_${factory.name}`;
      const granted = await credits.grant(account, { amount: 500, source: 'purchase', note: 'PO 17' });
      assert.ok(granted.ok);
      assert.deepEqual(granted.value, { balance: 500, reserved: 0, grantId: granted.value.grantId, replayed: false });
      const reserved = await credits.reserve(account, 180, 'req-screen-1', HOLD_MS);
      assert.ok(reserved.ok);
      assert.deepEqual([reserved.value.balance, reserved.value.reserved], [320, 180]);
      const { reservationId } = reserved.value;

      assert.deepEqual(await credits.settle(account, reservationId, 100), {
        ok: true,
        value: { balance: 400, reserved: 0, charged: 100, released: 80 },
      });
      // A retried settlement records nothing and charges nothing more; it says what the reservation was charged.
      assert.deepEqual(await credits.settle(account, reservationId, 100), {
        ok: true,
        value: { balance: 400, reserved: 0, charged: 100, released: 0 },
      });
      assert.deepEqual(await credits.reverse(account, reservationId, 'analysis job failed'), {
        ok: true,
        value: { balance: 500, reserved: 0, reversed: 100 },
      });
      assert.deepEqual(await credits.reverse(account, reservationId, 'again'), {
        ok: true,
        value: { balance: 500, reserved: 0, reversed: 0 },
      });

      const second = await credits.reserve(account, 120, 'req-analyze-2', HOLD_MS);
      assert.ok(second.ok);
      assert.deepEqual(await credits.release(account, second.value.reservationId), { ok: true, value: { balance: 500, reserved: 0 } });
      assert.deepEqual(await credits.reserve(account, 501, 'req-too-much', HOLD_MS), {
        ok: false,
        error: { tag: 'InsufficientCredits', required: 501, balance: 500 },
      });
      assert.deepEqual(await credits.balance(account), { balance: 500, reserved: 0 });
      await assertRowEqualsFold(account);
    });

    it('refuses over-capture and unknown entries with tagged errors, writing nothing', async () => {
      const account = `usr_errors_${factory.name}`;
      await credits.grant(account, { amount: 50, source: 'grant' });
      const reserved = await credits.reserve(account, 20, 'req-1', HOLD_MS);
      assert.ok(reserved.ok);
      const before = await store.readStream(ledgerStream(account));
      assert.deepEqual(await credits.settle(account, reserved.value.reservationId, 21), {
        ok: false,
        error: { tag: 'ChargeExceedsReservation', reservationId: reserved.value.reservationId, reserved: 20, amount: 21 },
      });
      assert.deepEqual(await credits.settle(account, 'rsv_unknown', 1), {
        ok: false,
        error: { tag: 'ReservationNotFound', reservationId: 'rsv_unknown' },
      });
      assert.deepEqual(await credits.reverse(account, 'chg_unknown', 'x'), {
        ok: false,
        error: { tag: 'ChargeNotFound', chargeId: 'chg_unknown' },
      });
      assert.deepEqual(await credits.grant(account, { amount: 0, source: 'correction' }), {
        ok: false,
        error: { tag: 'InvalidAmount', amount: 0 },
      });
      assert.equal((await store.readStream(ledgerStream(account))).version, before.version);
    });

    it('charges under an id of its own: a request reference is never the charge id', async () => {
      const account = `usr_once_${factory.name}`;
      await credits.grant(account, { amount: 10, source: 'grant' });
      const first = await credits.chargeNow(account, 5, 'req-pdf-1');
      const second = await credits.chargeNow(account, 5, 'req-pdf-1');
      assert.ok(first.ok && second.ok);
      assert.match(first.value.chargeId, /^chg_/);
      assert.notEqual(first.value.chargeId, second.value.chargeId);
      assert.equal(second.value.balance, 0, 'the same reference twice is two charges');
      await assertRowEqualsFold(account);
    });

    it('charges an internal charge id at most once (a retried run start)', async () => {
      const account = `usr_run_${factory.name}`;
      await credits.grant(account, { amount: 10, source: 'grant' });
      assert.deepEqual(await credits.chargeNow(account, 5, 'req-a', undefined, 'analysis-x-1'), {
        ok: true,
        value: { chargeId: 'analysis-x-1', balance: 5, reserved: 0 },
      });
      assert.deepEqual(await credits.chargeNow(account, 5, 'req-a', undefined, 'analysis-x-1'), {
        ok: true,
        value: { chargeId: 'analysis-x-1', balance: 5, reserved: 0 },
      });
      await assertRowEqualsFold(account);
    });

    it('joins a caller transaction: a rollback undoes the charge', async () => {
      const account = `usr_trx_${factory.name}`;
      await credits.grant(account, { amount: 10, source: 'grant' });
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          const charged = await credits.chargeNow(account, 10, 'req-rolled-back', trx);
          assert.ok(charged.ok);
          throw new Error('the call failed after charging');
        }),
        /the call failed/,
      );
      assert.deepEqual(await credits.balance(account), { balance: 10, reserved: 0 });
      await assertRowEqualsFold(account);
    });

    it('200 parallel 1-credit charges on an account holding 100: 100 succeed, 100 are refused, balance 0', async () => {
      const account = `org_busy_${factory.name}`;
      await credits.grant(account, { amount: 100, source: 'purchase' });
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => credits.chargeNow(account, 1, `req-${i}`)));
      const elapsed = performance.now() - started;
      const succeeded = results.filter((r) => r.ok).length;
      const refused = results.filter(
        (r) => !r.ok && r.error.tag === 'InsufficientCredits' && r.error.required === 1 && r.error.balance === 0,
      );
      assert.equal(succeeded, 100);
      assert.equal(refused.length, 100);
      assert.deepEqual(await credits.balance(account), { balance: 0, reserved: 0 });
      const charges = await database.db.selectFrom('creditCharges').select('chargeId').where('accountId', '=', account).execute();
      assert.equal(new Set(charges.map((c) => c.chargeId)).size, 100);
      await assertRowEqualsFold(account);
      console.log(
        `[${factory.name}] 200 parallel chargeNow on one account: ${elapsed.toFixed(0)} ms, ${(200_000 / elapsed).toFixed(0)} calls/s`,
      );
    });

    it('charges of 40 accounts at once share commits, each decided on its own balance', async () => {
      const accounts = Array.from({ length: 40 }, (_, i) => `org_many_${String(i)}_${factory.name}`);
      // First grants open the accounts' streams (no row to lock yet: committed one account at a time).
      await Promise.all(accounts.map((account, i) => credits.grant(account, { amount: 2 + (i % 3), source: 'purchase' })));
      const results = await Promise.all(
        accounts.flatMap((account) => [1, 2, 3].map((n) => credits.chargeNow(account, 1, `req-many-${n}`).then((r) => ({ account, r })))),
      );
      for (const [i, account] of accounts.entries()) {
        const mine = results.filter((x) => x.account === account);
        const funded = 2 + (i % 3);
        assert.equal(mine.filter((x) => x.r.ok).length, Math.min(3, funded), account);
        assert.ok(mine.filter((x) => !x.r.ok).every((x) => !x.r.ok && x.r.error.tag === 'InsufficientCredits'));
        assert.deepEqual(await credits.balance(account), { balance: funded - Math.min(3, funded), reserved: 0 });
        await assertRowEqualsFold(account);
      }
      const { rows } = await sql<{ commits: number }>`
        select count(distinct e.transaction_id)::int as commits from events e
        where e.type = 'CreditsCharged' and e.stream_id in (select jsonb_array_elements_text(${JSON.stringify(accounts.map(ledgerStream))}::text::jsonb))`.execute(
        database.db,
      );
      assert.ok(
        rows[0]!.commits <= accounts.length / 4,
        `${String(rows[0]!.commits)} commits for the charges of ${String(accounts.length)} accounts`,
      );
    });

    it(
      'an account whose row another transaction holds does not hold up the accounts charged with it',
      { skip: factory.name === 'pglite' && 'one connection: a held transaction holds everything' },
      async () => {
        const held = `org_held_${factory.name}`;
        const free = `org_free_${factory.name}`;
        await credits.grant(held, { amount: 10, source: 'purchase' });
        await credits.grant(free, { amount: 10, source: 'purchase' });
        let release = (): void => undefined;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let locked = (): void => undefined;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const holder = credits.transaction(async (trx) => {
          await credits.chargeNow(held, 1, 'req-holder', trx);
          locked();
          await gate;
        });
        await isLocked;
        const waiting = credits.chargeNow(held, 2, 'req-waits');
        const passing = credits.chargeNow(free, 3, 'req-passes');
        const first = await Promise.race([
          passing.then(() => 'free account charged'),
          waiting.then(() => 'held account charged'),
          new Promise((resolve) => setTimeout(() => resolve('timed out'), 5_000)),
        ]);
        assert.equal(first, 'free account charged');
        assert.deepEqual(balanceOf(await passing), { balance: 7, reserved: 0 });
        release();
        await holder;
        assert.deepEqual(balanceOf(await waiting), { balance: 7, reserved: 0 });
        await assertRowEqualsFold(held);
        await assertRowEqualsFold(free);
      },
    );

    it('parallel reserve-and-settle, charges and first grants on one account stay consistent', async () => {
      const account = `org_mixed_${factory.name}`;
      // Two first grants race for the stream's creation: both must land.
      await Promise.all([
        credits.grant(account, { amount: 300, source: 'purchase' }),
        credits.grant(account, { amount: 300, source: 'grant' }),
      ]);
      const work = Array.from({ length: 60 }, async (_, i) => {
        if (i % 2 === 0) return credits.chargeNow(account, 7, `req-fixed-${i}`);
        const reserved = await credits.reserve(account, 20, `req-priced-${i}`, HOLD_MS);
        if (!reserved.ok) return reserved;
        return credits.settle(account, reserved.value.reservationId, 13);
      });
      const results = await Promise.all(work);
      // A reservation may be refused while others hold credits; a refusal is only ever that.
      assert.ok(results.every((r) => r.ok || r.error.tag === 'InsufficientCredits'));
      const balance = await credits.balance(account);
      assert.equal(balance.reserved, 0);
      assert.ok(balance.balance >= 0);
      // 600 granted; each success spent 7 (fixed) or 13 (settled); what is left is the rest.
      const spent = results.reduce((n, r, i) => n + (r.ok ? (i % 2 === 0 ? 7 : 13) : 0), 0);
      assert.equal(balance.balance, 600 - spent);
      await assertRowEqualsFold(account);
    });

    it('grant 100 expiring at T and 50 not, charge 30 before T: at T+1 the balance is 50 and the ledger holds one CreditsExpired of 70', async () => {
      const account = `org_expiry_${factory.name}`;
      const T = new Date('2027-03-31T18:30:00.000Z');
      now = new Date('2027-03-01T00:00:00Z');
      assert.ok((await credits.grant(account, { amount: 100, source: 'purchase', expiresAt: T.toISOString() })).ok);
      assert.ok((await credits.grant(account, { amount: 50, source: 'grant' })).ok);
      assert.deepEqual(balanceOf(await credits.chargeNow(account, 30, 'req-early')), { balance: 120, reserved: 0 });
      now = new Date(T.getTime() + 1_000);
      assert.deepEqual(await credits.balance(account), { balance: 50, reserved: 0 });
      // Any command expires first: a charge the unexpired credits cannot cover is refused, and the expiry is recorded anyway.
      assert.deepEqual(await credits.chargeNow(account, 60, 'req-late'), {
        ok: false,
        error: { tag: 'InsufficientCredits', required: 60, balance: 50 },
      });
      assert.deepEqual(await expiredAmounts(account), [70]);
      assert.deepEqual(await credits.expireDue(account), { balance: 50, reserved: 0, expired: 0 });
      assert.deepEqual(balanceOf(await credits.chargeNow(account, 50, 'req-late-2')), { balance: 0, reserved: 0 });
      assert.deepEqual(await expiredAmounts(account), [70]);
      await assertRowEqualsFold(account);
    });

    it('a hold outlives its lot; the released rest expires at once, and so does a refund of credits from a lapsed lot', async () => {
      const account = `org_hold_${factory.name}`;
      const T = new Date('2027-04-30T00:00:00.000Z');
      now = new Date('2027-04-29T00:00:00Z');
      await credits.grant(account, { amount: 40, source: 'purchase', expiresAt: T.toISOString() });
      await credits.grant(account, { amount: 100, source: 'grant' });
      const held = await credits.reserve(account, 120, 'req-hold', HOLD_MS);
      assert.ok(held.ok);
      assert.ok((await credits.chargeNow(account, 10, 'req-fixed')).ok);
      now = new Date(T.getTime() + 1);
      // 30 charged from the expiring part of the hold; its other 10 lapse on release; 80 never-expiring come back to the 10 left.
      assert.deepEqual(await credits.settle(account, held.value.reservationId, 30), {
        ok: true,
        value: { balance: 90, reserved: 0, charged: 30, released: 90 },
      });
      assert.deepEqual(await expiredAmounts(account), [10]);
      // The 30 charged came from the lapsed lot: refunded into it, they expire in the same append.
      assert.deepEqual(await credits.reverse(account, held.value.reservationId, 'job failed'), {
        ok: true,
        value: { balance: 90, reserved: 0, reversed: 30 },
      });
      assert.deepEqual(await expiredAmounts(account), [10, 30]);
      const lots = await database.db
        .selectFrom('creditLots')
        .select(['grantId', 'remaining', 'expiresAt'])
        .where('accountId', '=', account)
        .orderBy('remaining')
        .execute();
      assert.deepEqual(
        lots.map((l) => [l.remaining, l.expiresAt?.toISOString() ?? null]),
        [
          [0, T.toISOString()],
          [90, null],
        ],
      );
      await assertRowEqualsFold(account);
    });

    it('expires exactly once under 150 parallel charges and sweeps racing the expiry', async () => {
      const account = `org_race_${factory.name}`;
      const T = new Date('2027-05-31T00:00:00.000Z');
      now = new Date('2027-05-30T00:00:00Z');
      await credits.grant(account, { amount: 100, source: 'purchase', expiresAt: T.toISOString() });
      await credits.grant(account, { amount: 100, source: 'grant' });
      const early = await Promise.all(Array.from({ length: 80 }, (_, i) => credits.chargeNow(account, 1, `req-early-${i}`)));
      assert.ok(early.every((r) => r.ok));
      now = new Date(T.getTime() + 1);
      const late = await Promise.all([
        ...Array.from({ length: 150 }, (_, i) => credits.chargeNow(account, 1, `req-late-${i}`)),
        ...Array.from({ length: 5 }, () => credits.expireDue(account)),
        credits.expireAllDue(),
      ]);
      assert.equal(late.slice(0, 150).filter((r) => 'ok' in r && r.ok).length, 100);
      assert.deepEqual(await expiredAmounts(account), [20]);
      assert.deepEqual(await credits.balance(account), { balance: 0, reserved: 0 });
      await assertRowEqualsFold(account);
    });

    it('sweeps every account with credits past their expiry', async () => {
      now = new Date('2027-06-01T00:00:00Z');
      const accounts = [`org_sweep_a_${factory.name}`, `org_sweep_b_${factory.name}`];
      for (const account of accounts) await credits.grant(account, { amount: 25, source: 'grant', expiresAt: '2027-06-02T00:00:00Z' });
      now = new Date('2027-06-02T00:00:00Z');
      const swept = await credits.expireAllDue();
      assert.ok(swept.accounts >= 2 && swept.expired >= 50, JSON.stringify(swept));
      for (const account of accounts) {
        assert.deepEqual(await types(account), ['CreditsGranted', 'CreditsExpired']);
        await assertRowEqualsFold(account);
      }
      assert.deepEqual(await credits.expireAllDue(), { accounts: 0, expired: 0 });
    });

    it('gives a stream recorded before lots its lots from its own history, then expires and reconciles it', async () => {
      const account = `org_legacy_${factory.name}`;
      const at = '2027-07-01T00:00:00.000Z';
      const bare = new PostgresEventStore(database.db);
      const legacy: LedgerEvent[] = [
        {
          type: 'CreditsGranted',
          data: {
            accountId: account,
            grantId: 'g-old',
            amount: 100,
            source: 'purchase',
            expiresAt: '2027-07-15T00:00:00Z',
            note: null,
            at,
          },
        },
        {
          type: 'CreditsGranted',
          data: { accountId: account, grantId: 'g-never', amount: 50, source: 'grant', expiresAt: null, note: null, at },
        },
        {
          type: 'CreditsCharged',
          data: { accountId: account, chargeId: 'req-old', reservationId: null, amount: 30, requestRef: 'req-old', at },
        },
        { type: 'CreditsReserved', data: { accountId: account, reservationId: 'rsv-old', amount: 20, requestRef: 'req-open', at } },
      ];
      await bare.append(ledgerStream(account), 0, legacy, { streamType: LEDGER_STREAM_TYPE, metadata: { occurredAt: at } });
      // The rows the projection wrote before lots: no lot rows, no draws, not ready.
      const t = new Date(at);
      await database.db
        .insertInto('creditBalances')
        .values({ accountId: account, balance: 100, reserved: 20, version: 4, updatedAt: t, lotsReady: false })
        .execute();
      await database.db
        .insertInto('creditCharges')
        .values({
          accountId: account,
          chargeId: 'req-old',
          reservationId: null,
          amount: 30,
          requestRef: 'req-old',
          reversed: false,
          chargedAt: t,
          lots: jsonb([]),
        })
        .execute();
      await database.db
        .insertInto('creditReservations')
        .values({
          accountId: account,
          reservationId: 'rsv-old',
          amount: 20,
          requestRef: 'req-open',
          status: 'open',
          held: jsonb([]),
          createdAt: t,
          settledAt: null,
        })
        .execute();

      now = new Date('2027-07-20T00:00:00Z');
      const swept = await credits.expireAllDue();
      assert.ok(swept.accounts >= 1);
      // The old grant drew the charge and the hold first: 50 of it were left to expire.
      assert.deepEqual(await expiredAmounts(account), [50]);
      assert.deepEqual(await credits.release(account, 'rsv-old'), { ok: true, value: { balance: 50, reserved: 0 } });
      assert.deepEqual(await expiredAmounts(account), [50, 20]);
      await assertRowEqualsFold(account);
      const report = await reconcileLedger({ db: database.db, events: eventStoreOf(database.db), analytics: null }, { accountId: account });
      assert.deepEqual(
        report.differences.filter((d) => d.kind !== 'charge-without-audit'),
        [],
      );
    });
  });
}
