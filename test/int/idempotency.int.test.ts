/**
 * The spec's seven idempotency rules through the real app, gate and event store, on a
 * keyed POST route mounted at one of the idempotent paths (the real charging routes arrive
 * with their issues): replay verbatim, reuse and in-flight conflicts, malformed header
 * before the body, errors never stored, scope per key, and parallel duplicates; and a stored
 * reply committed with its call's audit row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditRecorder } from '../../src/application/audit/audit-recorder.ts';
import { AUDIT_EVENT_TYPE, type ApiRequestRecorded, type AuditEntry } from '../../src/domain/audit/audit.ts';
import { ApiError } from '../../src/http/api-error.ts';
import { randomIds } from '../../src/ports/clock.ts';
import { idempotent } from '../../src/http/middleware/idempotency.ts';
import { requireApiKey } from '../../src/http/middleware/require-api-key.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

for (const factory of databases) {
  describe(`Idempotency-Key on ${factory.name}`, () => {
    let database: TestDatabase;
    let test: TestApp;
    let fixture: AccessFixture;
    let runs = 0;
    let gate: Promise<void> | undefined;
    const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));

    before(async () => {
      database = await factory.open();
      test = buildTestApp({ db: database.db, clock });
      await test.application.invalidator.poll();
      fixture = await createAccessFixture(test.application.accounts, clock);
      test.app.put(
        `${BASE}/request-timeline`,
        requireApiKey(test.gate),
        idempotent(test.application.idempotency, test.application.audit),
        async (c) => {
          runs += 1;
          await gate;
          const body = await c.req.json<{ fail?: boolean; caseNumber?: string }>();
          if (body.fail) throw new ApiError('UPSTREAM_UNAVAILABLE');
          return c.json({ success: true, data: { run: runs, caseNumber: body.caseNumber ?? null } }, 201);
        },
      );
      // Stands for an instance killed after its answer and before its trail batch: the batch never commits.
      class DyingBatchRecorder extends AuditRecorder {
        override record(_entry: AuditEntry): Promise<void> {
          return Promise.reject(new Error('instance gone before the trail batch'));
        }
      }
      const dying = new DyingBatchRecorder({ store: test.application.store, ids: randomIds });
      test.app.put(
        `${BASE}/charged-call`,
        requireApiKey({ ...test.gate, audit: { ...test.gate.audit, recorder: dying, onFailure: () => undefined } }),
        idempotent(test.application.idempotency, dying),
        async (c) => {
          c.set('creditsDeducted', 5);
          return c.json({ success: true }, 201);
        },
      );
    });
    after(async () => database.close());

    const post = (key: string | undefined, body: unknown, apiKey = fixture.keys.active) =>
      test.app.request(`${BASE}/request-timeline`, {
        method: 'PUT',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('runs every call without the header', async () => {
      const before = runs;
      await post(undefined, { caseNumber: 'WP(C) 1/2024' });
      await post(undefined, { caseNumber: 'WP(C) 1/2024' });
      assert.equal(runs, before + 2);
    });

    it('replays a success verbatim with Idempotency-Replayed, without running it again', async () => {
      const first = await post('order-7731', { caseNumber: 'CRL.A 12/2020', priority: 1 });
      const firstBody = await first.text();
      assert.equal(first.status, 201);
      const before = runs;
      // Same JSON meaning, other key order and spacing: the same request.
      const again = await post('order-7731', '{ "priority": 1, "caseNumber": "CRL.A 12/2020" }');
      assert.equal(again.status, 201);
      assert.equal(await again.text(), firstBody);
      assert.equal(again.headers.get('idempotency-replayed'), 'true');
      assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
      assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
      assert.equal(runs, before);
    });

    it('refuses the same key with another body: 409 IDEMPOTENCY_KEY_REUSED', async () => {
      await post('order-8000', { caseNumber: 'A' });
      const reused = await post('order-8000', { caseNumber: 'B' });
      assert.equal(reused.status, 409);
      assert.equal(((await reused.json()) as { code: string }).code, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('refuses a malformed header with 400 before the body is read', async () => {
      for (const bad of ['', 'has space', 'x'.repeat(129), 'ünïcode']) {
        const res = await post(bad, '{ not json');
        assert.equal(res.status, 400, JSON.stringify(bad));
        assert.equal(((await res.json()) as { code: string }).code, 'IDEMPOTENCY_KEY_INVALID');
      }
      assert.equal((await post('x'.repeat(128), { caseNumber: 'ok' })).status, 201);
    });

    it('never stores an error: the same key runs again after a failure', async () => {
      const failed = await post('order-9000', { fail: true });
      assert.equal(failed.status, 502);
      const retried = await post('order-9000', { fail: true });
      assert.equal(retried.status, 502);
      assert.equal(retried.headers.get('idempotency-replayed'), null);
      const before = runs;
      assert.equal((await post('order-9001', { fail: false })).status, 201);
      assert.equal(runs, before + 1);
    });

    it('scopes keys per API key', async () => {
      const before = runs;
      assert.equal((await post('shared-key', { caseNumber: 'X' })).status, 201);
      const other = await post('shared-key', { caseNumber: 'X' }, fixture.keys.member);
      assert.equal(other.status, 201);
      assert.equal(other.headers.get('idempotency-replayed'), null);
      assert.equal(runs, before + 2);
    });

    it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first call runs, then replays it', async () => {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      const before = runs;
      const first = post('slow-1', { caseNumber: 'slow' });
      await new Promise((r) => setTimeout(r, 50));
      const during = await post('slow-1', { caseNumber: 'slow' });
      assert.equal(during.status, 409);
      assert.equal(((await during.json()) as { code: string }).code, 'IDEMPOTENCY_IN_PROGRESS');
      release();
      gate = undefined;
      assert.equal((await first).status, 201);
      assert.equal((await post('slow-1', { caseNumber: 'slow' })).headers.get('idempotency-replayed'), 'true');
      assert.equal(runs, before + 1);
    });

    it('runs one of 20 parallel duplicates; the rest are in progress or replays', async () => {
      const before = runs;
      const results = await Promise.all(Array.from({ length: 20 }, async () => post('burst-1', { caseNumber: 'burst' })));
      const statuses = results.map((r) => r.status);
      assert.equal(runs, before + 1);
      assert.ok(
        statuses.every((s) => s === 201 || s === 409),
        statuses.join(','),
      );
      assert.equal(results.filter((r) => r.status === 201 && r.headers.get('idempotency-replayed') === null).length, 1);
    });

    async function auditRows(requestId: string | null): Promise<ApiRequestRecorded[]> {
      const events = await test.application.store.readEventTypeByPosition({ type: AUDIT_EVENT_TYPE, after: 0, limit: 100_000 });
      return events.map((e) => e.data as ApiRequestRecorded).filter((row) => row.requestId === requestId);
    }

    it('records one audit row for a stored call, not one per middleware', async () => {
      const first = await post('audited-once', { caseNumber: 'once' });
      assert.equal(first.status, 201);
      const rows = await auditRows(first.headers.get('x-request-id'));
      assert.deepEqual(
        rows.map((r) => r.status),
        [201],
      );
    });

    it('commits a stored reply with its audit row: a replay after the trail batch was lost still finds the charge audited', async () => {
      const charged = (key: string) =>
        test.app.request(`${BASE}/charged-call`, {
          method: 'PUT',
          headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: '{}',
        });
      const first = await charged('charged-audit-1');
      assert.equal(first.status, 201);
      const replay = await charged('charged-audit-1');
      assert.equal(replay.headers.get('idempotency-replayed'), 'true');
      const rows = await auditRows(first.headers.get('x-request-id'));
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.creditsDeducted, 5);
      assert.equal(rows[0]!.status, 201);
      assert.equal(rows[0]!.endpoint, '/charged-call');
    });

    it('treats a key as new once its 24 hours have passed', async () => {
      await post('daily-1', { caseNumber: 'd' });
      clock.advanceSeconds(24 * 3600 + 1);
      const before = runs;
      const later = await post('daily-1', { caseNumber: 'other body' });
      assert.equal(later.status, 201);
      assert.equal(runs, before + 1);
    });
  });
}
