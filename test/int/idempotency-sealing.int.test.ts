/**
 * Idempotency records sealed at rest, through the real gate, middleware and event store on
 * both databases: a stored success (standing in for a litigation check's report, which
 * quotes the parties of the matched records) still replays verbatim for 24 hours, yet the
 * event store holds neither its body nor the plain SHA-256 fingerprint of the request
 * (which would let a list of likely names be tested against the store); a sealed body does
 * not open for another record or under another secret; after the window the key runs anew.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { IdempotencyService } from '../../src/application/idempotency/idempotency-service.ts';
import { IdempotencyRecordSealer, SealedRecordError } from '../../src/application/idempotency/record-sealer.ts';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { idempotent } from '../../src/http/middleware/idempotency.ts';
import { requireApiKey } from '../../src/http/middleware/require-api-key.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const PATH = `${BASE}/party/screen/sealed-probe`;
/** A party of a real record, as a screening report would quote it. */
const QUOTED_PARTY = 'HIRALAL MOTILAL DESARDA';

for (const factory of databases) {
  describe(`sealed idempotency records on ${factory.name}`, () => {
    let database: TestDatabase;
    let test: TestApp;
    let fixture: AccessFixture;
    let runs = 0;
    const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
    const sealer = new IdempotencyRecordSealer(KEY_HASH_SECRET);

    before(async () => {
      database = await factory.open();
      test = buildTestApp({ db: database.db, clock });
      await test.application.invalidator.poll();
      fixture = await createAccessFixture(test.application.accounts, clock);
      const sealed = new IdempotencyService({
        store: test.application.store,
        transaction: (work) => database.db.transaction().execute(work),
        clock,
        sealer,
        leaseMs: 15_000,
        legacyTakeoverAfterMs: 10 * 60_000,
      });
      test.app.post(PATH, requireApiKey(test.gate), idempotent(sealed, test.application.audit), async (c) => {
        runs += 1;
        const body = await c.req.json<{ name: string }>();
        return c.json({ success: true, data: { run: runs, matches: [{ matchedName: QUOTED_PARTY, nameLength: body.name.length }] } }, 200);
      });
    });
    after(async () => database.close());

    const call = (idempotencyKey: string, body: unknown) =>
      test.app.request(PATH, {
        method: 'POST',
        headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
        body: JSON.stringify(body),
      });

    const recordEvents = async (idempotencyKey: string) =>
      database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('streamId', 'like', `idempotency-%-${idempotencyKey}`)
        .orderBy('globalPosition')
        .execute();

    it('replays verbatim, while the store holds neither the body nor the plain fingerprint', async () => {
      const body = { name: 'Hiralal Motilal Desarda', entityType: 'person', purpose: 'kyc' };
      const first = await call('sealed-1', body);
      const firstText = await first.text();
      assert.equal(first.status, 200);
      assert.ok(firstText.includes(QUOTED_PARTY));
      const again = await call('sealed-1', body);
      assert.equal(again.headers.get('idempotency-replayed'), 'true');
      assert.equal(await again.text(), firstText);
      assert.equal(runs, 1);

      const events = await recordEvents('sealed-1');
      assert.deepEqual(
        events.map((e) => e.type),
        ['IdempotentCallStarted', 'IdempotentCallCompleted'],
      );
      const stored = JSON.stringify(events);
      assert.ok(!stored.includes(QUOTED_PARTY), 'the stored response is readable');
      assert.ok(!stored.toLowerCase().includes('desarda'));
      const plainPrint = createHash('sha256')
        .update(`POST ${PATH}\n${canonicalJson(body)}`)
        .digest('hex');
      assert.ok(!stored.includes(plainPrint), 'the unkeyed fingerprint of the request is stored');
      const completed = events[1]!.data as { response: { body: string } };
      assert.match(completed.response.body, /^sealed-v1:/);
    });

    it('a sealed body opens only for its own record and under its own secret', async () => {
      const events = await recordEvents('sealed-1');
      const { body } = (events[1]!.data as { response: { body: string } }).response;
      await assert.rejects(sealer.open(body, 'idempotency-another-key-sealed-1'), SealedRecordError);
      const own = await database.db
        .selectFrom('events')
        .select('streamId')
        .where('streamId', 'like', 'idempotency-%-sealed-1')
        .executeTakeFirstOrThrow();
      assert.ok((await sealer.open(body, own.streamId)).includes(QUOTED_PARTY));
      await assert.rejects(new IdempotencyRecordSealer(`${KEY_HASH_SECRET}-other`).open(body, own.streamId), SealedRecordError);
      await assert.rejects(sealer.open('{"success":true}', own.streamId), SealedRecordError);
    });

    it('after its 24 hours the key runs the call again instead of replaying it', async () => {
      const body = { name: 'Padma', entityType: 'person', purpose: 'bgv' };
      await call('sealed-2', body);
      const before = runs;
      clock.advanceSeconds(24 * 3600 + 1);
      const later = await call('sealed-2', body);
      assert.equal(later.status, 200);
      assert.equal(later.headers.get('idempotency-replayed'), null);
      assert.equal(runs, before + 1);
    });
  });
}
