/**
 * Every keyed request that got past key lookup leaves an audit event in the event store,
 * refused or not, before its response: route pattern (no ids, no query), status, timing,
 * who and from where; never the body or query string.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiRequestRecorded } from '../../src/domain/audit/audit.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, TEST_CLIENT_HEADER, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

describe('audit capture', () => {
  let database: TestDatabase;
  let test: TestApp;
  let fixture: AccessFixture;
  const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));

  before(async () => {
    database = await databases[0]!.open();
    test = buildTestApp({ db: database.db, clock });
    await test.application.invalidator.poll();
    fixture = await createAccessFixture(test.application.accounts, clock);
  });
  after(async () => database.close());

  async function recorded(): Promise<ApiRequestRecorded[]> {
    const rows = await database.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'ApiRequestRecorded')
      .orderBy('globalPosition')
      .execute();
    return rows.map((r) => r.data as ApiRequestRecorded);
  }

  it('records a success with who, what, when and from where', async () => {
    const res = await test.app.request(`${BASE}/me?secret=Ramesh%20Kumar`, {
      headers: { 'X-API-Key': fixture.keys.active, 'User-Agent': 'kyc-vendor/2.1', [TEST_CLIENT_HEADER]: '198.51.100.20' },
    });
    assert.equal(res.status, 200);
    const last = (await recorded()).at(-1)!;
    assert.equal(last.requestId, res.headers.get('x-request-id'));
    assert.equal(last.endpoint, '/me');
    assert.equal(last.method, 'GET');
    assert.equal(last.status, 200);
    assert.equal(last.userId, fixture.users.active);
    assert.equal(last.organizationId, fixture.organizationId);
    assert.equal(last.clientAddress, '198.51.100.20');
    assert.equal(last.userAgent, 'kyc-vendor/2.1');
    assert.equal(last.creditsDeducted, 0);
    assert.ok(last.responseMs >= 0);
    assert.doesNotMatch(JSON.stringify(last), /Ramesh|secret/);
  });

  it('records refusals after key lookup (allowlist), but not requests without a valid key', async () => {
    const before = (await recorded()).length;
    assert.equal(
      (await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.allowlisted, [TEST_CLIENT_HEADER]: '198.51.100.7' } }))
        .status,
      403,
    );
    assert.equal((await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': 'not-a-key' } })).status, 401);
    const after = await recorded();
    assert.equal(after.length, before + 1);
    assert.equal(after.at(-1)!.status, 403);
  });

  it('has every one of 50 parallel calls committed to the trail by the time it answers', async () => {
    const before = (await recorded()).length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, async () => test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.member } })),
    );
    assert.ok(responses.every((r) => r.status === 200));
    const after = await recorded();
    assert.equal(after.length, before + 50);
    const ids = new Set(after.slice(before).map((e) => e.requestId));
    assert.deepEqual(ids, new Set(responses.map((r) => r.headers.get('x-request-id'))));
  });

  it('bounds a huge user agent', async () => {
    await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.active, 'User-Agent': 'x'.repeat(5000) } });
    assert.equal((await recorded()).at(-1)!.userAgent.length, 512);
  });
});
