/**
 * An Idempotency-Key whose call was left in flight by an instance that died: the record is a
 * lease, so a retry with the same request takes the call over once the lease lapses, runs
 * under the dead call's id and finds the charge the dead call made rather than charging
 * again; finance reconcile matches that charge to the retry's audit row. A live holder
 * renews its lease and is never taken over. The dead instance is simulated by what it
 * leaves behind: a started record (and, in one case, its charge) that nobody renews.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { IdempotencyService } from '../../src/application/idempotency/idempotency-service.ts';
import { callChargeId } from '../../src/application/credits/credits-service.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { AUDIT_EVENT_TYPE } from '../../src/domain/audit/audit.ts';
import { fixedPrice } from '../../src/domain/credits/prices.ts';
import { IDEMPOTENCY_LEASE_MS, inFlightTakeoverMs } from '../../src/domain/idempotency/idempotency.ts';
import { idempotent, requestFingerprint } from '../../src/http/middleware/idempotency.ts';
import { requireApiKey } from '../../src/http/middleware/require-api-key.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

const PATH = `${BASE}/search/cases`;
const PRICE = fixedPrice('keywordSearch');

for (const factory of databases)
  describe(`a call left in flight by a dead instance, on ${factory.name}`, () => {
    let database: OpenedDatabase;
    let t: TestApp;
    let fixture: AccessFixture;
    let keyId: string;
    /** A live holder on a short lease, so renewals happen within the test. */
    const leaseMs = 300;
    let service: IdempotencyService;
    let release!: () => void;
    let runs = 0;
    const clock = new SettableClock(new Date('2026-11-28T10:00:00Z'));

    const search = (key: string, body: string) =>
      t.app.request(PATH, {
        method: 'POST',
        headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body,
      });
    const balance = async () => (await t.application.credits.balance(fixture.organizationId)).balance;
    const charges = async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from events where type = 'CreditsCharged' and stream_id = ${`credit-ledger-${fixture.organizationId}`}`.execute(
        database.db,
      );
      return rows[0]!.n;
    };
    /** What an instance that died mid-call leaves: the record it started, and maybe the charge it made. */
    const deadCall = async (key: string, body: string, requestId: string, charged: boolean) => {
      const print = await requestFingerprint('POST', PATH, body);
      const begun = await t.application.idempotency.begin(keyId, key, print, requestId);
      assert.deepEqual(begun, { kind: 'proceed', callId: requestId });
      if (charged) {
        const charge = await t.application.credits.chargeNow(fixture.organizationId, PRICE, requestId, undefined, callChargeId(requestId));
        assert.ok(charge.ok);
      }
    };

    before(async () => {
      database = await factory.open();
      const index = new PostgresSearchIndex(database.db);
      t = buildTestApp({ db: database.db, clock, index });
      fixture = await createAccessFixture(t.application.accounts, clock);
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource] });
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
      await t.application.credits.grant(fixture.organizationId, { amount: 1_000, source: 'grant' });
      const auth = await t.application.authenticator.authenticate(fixture.keys.active);
      assert.ok(auth.ok);
      keyId = auth.principal.keyId;
      service = new IdempotencyService({
        store: t.application.store,
        transaction: (work) => database.db.transaction().execute(work),
        clock,
        leaseMs,
        legacyTakeoverAfterMs: inFlightTakeoverMs(0),
      });
      const gate = new Promise<void>((r) => (release = r));
      t.app.put(`${BASE}/slow-leased`, requireApiKey(t.gate), idempotent(service, t.application.audit), async (c) => {
        runs += 1;
        await gate;
        return c.json({ success: true }, 201);
      });
    });
    after(async () => database.close());

    it('refuses a retry while the dead call lease still runs, then takes it over: charged once, under the dead call', async () => {
      const body = JSON.stringify({ query: 'appeal', limit: 5 });
      const before = { balance: await balance(), charges: await charges() };
      await deadCall('dead-charged', body, 'req-dead-charged', true);
      clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000 - 1);
      const early = await search('dead-charged', body);
      assert.equal(early.status, 409);
      assert.equal(((await early.json()) as { code: string }).code, 'IDEMPOTENCY_IN_PROGRESS');

      clock.advanceSeconds(1);
      const retry = await search('dead-charged', body);
      assert.equal(retry.status, 200, await retry.clone().text());
      assert.equal(retry.headers.get('idempotency-replayed'), null);
      assert.equal(retry.headers.get('x-credits-charged'), String(PRICE));
      assert.equal(await balance(), before.balance - PRICE, 'the dead call charge is the only one');
      assert.equal(await charges(), before.charges + 1);
      // Completed by the retry: a further retry replays it.
      const replay = await search('dead-charged', body);
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      assert.equal(await replay.text(), await retry.text());
      assert.equal(await balance(), before.balance - PRICE);
    });

    it('runs a dead call that had charged nothing, and charges it once', async () => {
      const body = JSON.stringify({ query: 'tax', limit: 5 });
      const before = { balance: await balance(), charges: await charges() };
      await deadCall('dead-uncharged', body, 'req-dead-uncharged', false);
      clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000);
      const retry = await search('dead-uncharged', body);
      assert.equal(retry.status, 200);
      assert.equal(await balance(), before.balance - PRICE);
      assert.equal(await charges(), before.charges + 1);
    });

    it('never gives a dead call to a retry with another body: 409 IDEMPOTENCY_KEY_REUSED', async () => {
      const body = JSON.stringify({ query: 'land acquisition', limit: 5 });
      const before = await balance();
      await deadCall('dead-other-body', body, 'req-dead-other', true);
      clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000 + 5);
      const other = await search('dead-other-body', JSON.stringify({ query: 'murder', limit: 5 }));
      assert.equal(other.status, 409);
      assert.equal(((await other.json()) as { code: string }).code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(await balance(), before - PRICE, 'only the dead call charge');
    });

    it('audits the retry under the dead call id, so finance reconcile matches its charge', async () => {
      const { rows } = await sql<{ requestId: string; callId: string | null; credits: number }>`
        select data->>'requestId' as request_id, data->>'callId' as call_id, (data->>'creditsDeducted')::int as credits
        from events where type = ${AUDIT_EVENT_TYPE} and data->>'callId' is not null order by global_position`.execute(database.db);
      assert.deepEqual(
        rows.map((r) => [r.callId, r.credits]),
        [
          ['req-dead-charged', PRICE],
          ['req-dead-uncharged', PRICE],
        ],
      );
      assert.ok(rows.every((r) => r.requestId !== r.callId));
      // The dead call with another body was never answered: its charge has no audit row, and reconcile says so.
      const report = await reconcileLedger({ db: database.db, events: eventStoreOf(database.db), analytics: null }, {});
      assert.deepEqual(
        report.differences.map((d) => [d.kind, 'requestId' in d ? d.requestId : '']),
        [['charge-without-audit', 'req-dead-other']],
      );
    });

    it('keeps a live call that renews its lease: a retry after the first lease would have lapsed is still in progress', async () => {
      const put = () =>
        t.app.request(`${BASE}/slow-leased`, {
          method: 'PUT',
          headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json', 'Idempotency-Key': 'live-1' },
          body: '{}',
        });
      const first = put();
      while (runs === 0) await new Promise((r) => setTimeout(r, 5));
      clock.set(new Date(clock.now().getTime() + leaseMs - 50));
      // Real time for at least one renewal at the advanced clock: the lease now runs to now + leaseMs.
      await new Promise((r) => setTimeout(r, service.renewEveryMs * 2));
      clock.set(new Date(clock.now().getTime() + 100));
      // Released first: a retry that wrongly took the call over would otherwise wait on the gate too.
      const during = await Promise.race([put(), new Promise<null>((r) => setTimeout(() => r(null), 1_000))]);
      release();
      assert.ok(during, 'the retry answered at once');
      assert.equal(during.status, 409);
      assert.equal(((await during.json()) as { code: string }).code, 'IDEMPOTENCY_IN_PROGRESS');
      assert.equal((await first).status, 201);
      assert.equal(runs, 1);
    });
  });
