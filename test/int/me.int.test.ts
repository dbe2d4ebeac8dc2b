/**
 * GET /me through the real app and gate: identity fields, organizationId absent without an
 * organisation, rate-limit headers and slot consumption, and the shared security matrix.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openPglite } from '../../src/db/open.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';

for (const factory of databases) {
  describe(`GET /me on ${factory.name}`, () => {
    let database: TestDatabase;
    let test: TestApp;
    let down: TestApp;
    let fixture: AccessFixture;
    const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));

    before(async () => {
      database = await factory.open();
      test = buildTestApp({ db: database.db, clock });
      await test.application.invalidator.poll();
      fixture = await createAccessFixture(test.application.accounts, clock);
      const closed = await openPglite(undefined);
      await closed.close();
      down = buildTestApp({ db: closed.db, clock });
    });
    after(async () => database.close());

    securityMatrix({ method: 'GET', path: '/me', okStatus: 200 }, () => ({ app: test.app, fixture, appWithIdentityDown: down.app }));

    it('returns the identity behind the key', async () => {
      const res = await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.active } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { success: boolean; data: Record<string, unknown> };
      assert.equal(body.success, true);
      assert.equal(body.data.userId, fixture.users.active);
      assert.equal(body.data.organizationId, fixture.organizationId);
      assert.equal(body.data.role, 'ORG_ADMIN');
      assert.equal(body.data.tier, 'enterprise');
      assert.match(body.data.email as string, /^admin\.\d+@lawfirm\.example$/);
    });

    it('leaves organizationId out (not null) for an account without an organisation', async () => {
      const res = await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.noOrg } });
      const body = (await res.json()) as { data: Record<string, unknown> };
      assert.equal(res.status, 200);
      assert.equal('organizationId' in body.data, false);
      assert.equal(body.data.userId, fixture.users.noOrg);
    });

    it('consumes a rate-limit slot per call and says so in RateLimit headers', async () => {
      const first = await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.member } });
      const second = await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.member } });
      assert.equal(first.headers.get('ratelimit-limit'), '1000');
      assert.equal(Number(first.headers.get('ratelimit-remaining')) - 1, Number(second.headers.get('ratelimit-remaining')));
      assert.ok(Number(second.headers.get('ratelimit-reset')) >= 1);
    });

    it('stops a revoked key on the next call, even after it was cached', async () => {
      const created = await test.application.accounts.createKey(fixture.users.member, 'to revoke', { kind: 'operator' });
      assert.ok(created.ok);
      const headers = { 'X-API-Key': created.value.fullKey };
      assert.equal((await test.app.request(`${BASE}/me`, { headers })).status, 200);
      const revoked = await test.application.accounts.revokeKey(created.value.id, { kind: 'operator' });
      assert.ok(revoked.ok);
      await test.application.invalidator.poll();
      const after = await test.app.request(`${BASE}/me`, { headers });
      assert.equal(after.status, 401);
      assert.equal(((await after.json()) as { code: string }).code, 'API_KEY_REVOKED');
    });
  });
}
