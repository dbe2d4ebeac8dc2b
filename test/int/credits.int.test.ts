/**
 * The credit service on every test database: grant, reserve, settle, release, reverse;
 * many parallel charges on one busy account (never below zero, never double-charged,
 * never lost); and the inline balance row equal to a fresh fold of the ledger stream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.ts';
import { CreditsService, ledgerStream } from '../../src/application/credits/credits-service.ts';
import { creditsReadModel } from '../../src/application/credits/read-model.ts';
import { evolveLedger, initialLedger, type LedgerEvent } from '../../src/domain/credits/ledger.ts';
import { fold } from '../../src/domain/decider.ts';
import { randomIds } from '../../src/ports/clock.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

for (const factory of databases) {
  describe(`credits service (${factory.name})`, () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let credits: CreditsService;

    before(async () => {
      database = await factory.open();
      store = new PostgresEventStore(database.db, [creditsReadModel]);
      credits = new CreditsService({ db: database.db, store, clock: { now: () => new Date() }, ids: randomIds });
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
    }

    it('grants, reserves the worst case, settles the final price and reverses a charge', async () => {
      const account = `org_flow_${factory.name}`;
      assert.deepEqual(await credits.grant(account, { amount: 500, source: 'purchase', note: 'PO 17' }), {
        ok: true,
        value: { balance: 500, reserved: 0 },
      });
      const reserved = await credits.reserve(account, 180, 'req-screen-1');
      assert.ok(reserved.ok);
      assert.deepEqual([reserved.value.balance, reserved.value.reserved], [320, 180]);
      const { reservationId } = reserved.value;

      assert.deepEqual(await credits.settle(account, reservationId, 100), {
        ok: true,
        value: { balance: 400, reserved: 0, charged: 100, released: 80 },
      });
      // A retried settlement records nothing and charges nothing more.
      assert.deepEqual(await credits.settle(account, reservationId, 100), {
        ok: true,
        value: { balance: 400, reserved: 0, charged: 0, released: 0 },
      });
      assert.deepEqual(await credits.reverse(account, reservationId, 'analysis job failed'), {
        ok: true,
        value: { balance: 500, reserved: 0, reversed: 100 },
      });
      assert.deepEqual(await credits.reverse(account, reservationId, 'again'), {
        ok: true,
        value: { balance: 500, reserved: 0, reversed: 0 },
      });

      const second = await credits.reserve(account, 120, 'req-analyze-2');
      assert.ok(second.ok);
      assert.deepEqual(await credits.release(account, second.value.reservationId), { ok: true, value: { balance: 500, reserved: 0 } });
      assert.deepEqual(await credits.reserve(account, 501, 'req-too-much'), {
        ok: false,
        error: { tag: 'InsufficientCredits', required: 501, balance: 500 },
      });
      assert.deepEqual(await credits.balance(account), { balance: 500, reserved: 0 });
      await assertRowEqualsFold(account);
    });

    it('refuses over-capture and unknown entries with tagged errors, writing nothing', async () => {
      const account = `usr_errors_${factory.name}`;
      await credits.grant(account, { amount: 50, source: 'grant' });
      const reserved = await credits.reserve(account, 20, 'req-1');
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

    it('charges a fixed price once per request reference', async () => {
      const account = `usr_once_${factory.name}`;
      await credits.grant(account, { amount: 10, source: 'grant' });
      assert.deepEqual(await credits.chargeNow(account, 5, 'req-pdf-1'), {
        ok: true,
        value: { chargeId: 'req-pdf-1', balance: 5, reserved: 0 },
      });
      assert.deepEqual(await credits.chargeNow(account, 5, 'req-pdf-1'), {
        ok: true,
        value: { chargeId: 'req-pdf-1', balance: 5, reserved: 0 },
      });
      assert.deepEqual(await credits.chargeNow(account, 0, 'req-me'), { ok: true, value: { chargeId: 'req-me', balance: 5, reserved: 0 } });
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

    it('parallel reserve-and-settle, charges and first grants on one account stay consistent', async () => {
      const account = `org_mixed_${factory.name}`;
      // Two first grants race for the stream's creation: both must land.
      await Promise.all([
        credits.grant(account, { amount: 300, source: 'purchase' }),
        credits.grant(account, { amount: 300, source: 'grant' }),
      ]);
      const work = Array.from({ length: 60 }, async (_, i) => {
        if (i % 2 === 0) return credits.chargeNow(account, 7, `req-fixed-${i}`);
        const reserved = await credits.reserve(account, 20, `req-priced-${i}`);
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
  });
}
