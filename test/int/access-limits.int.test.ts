/**
 * Limits of the access gate through the real app: the per-key rate limit (bare shape,
 * Retry-After, separate keys do not compete), distinct keys per address per day, and the
 * allowlist cache's failure modes (strict fails closed, otherwise open).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AccountsService } from '../../src/application/accounts/accounts-service.ts';
import { createAccessFixture, enterpriseUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, TEST_CLIENT_HEADER, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const operator = { kind: 'operator' } as const;

async function userWithKeys(accounts: AccountsService, organizationId: string | null, count: number, overrides = {}) {
  const email = `limits.${Date.now()}.${Math.random().toString(36).slice(2)}@lawfirm.example`;
  const registered = await accounts.registerUser(enterpriseUser(email, { organizationId, limitOverrides: overrides }), operator);
  assert.ok(registered.ok);
  const keys: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const created = await accounts.createKey(registered.value.userId, `k${i}`, operator);
    assert.ok(created.ok);
    keys.push(created.value.fullKey);
  }
  return keys;
}

describe('access limits', () => {
  let database: TestDatabase;
  let test: TestApp;
  let fixture: AccessFixture;
  const clock = new SettableClock(new Date('2026-11-26T10:00:05Z'));

  before(async () => {
    database = await databases[0]!.open();
    test = buildTestApp({ db: database.db, clock });
    await test.application.invalidator.poll();
    fixture = await createAccessFixture(test.application.accounts, clock);
  });
  let closed = false;
  after(async () => {
    if (!closed) await database.close();
  });

  it('refuses the call over the per-key limit in the rate-limit shape; another key of the same user is unaffected', async () => {
    const [first, second] = await userWithKeys(test.application.accounts, null, 2, { requestsPerMinute: 3 });
    const me = (key: string) => test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': key } });
    for (let i = 0; i < 3; i += 1) assert.equal((await me(first!)).status, 200);
    const refused = await me(first!);
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal('success' in body, false);
    assert.equal(body.code, 'RATE_LIMITED');
    assert.equal(typeof body.error, 'string');
    assert.equal(body.retryAfter, 55);
    assert.equal(body.resetTime, '2026-11-26T10:01:00.000Z');
    assert.equal(refused.headers.get('retry-after'), '55');
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.equal((await me(second!)).status, 200);
    clock.advanceSeconds(60);
    assert.equal((await me(first!)).status, 200);
  });

  it('refuses a new key from an address that already used too many today, and keeps the earlier ones working', async () => {
    const keys = await userWithKeys(test.application.accounts, null, 4, { distinctKeysPerIpPerDay: 3 });
    const from = (key: string, ip: string) => test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': key, [TEST_CLIENT_HEADER]: ip } });
    for (const key of keys.slice(0, 3)) assert.equal((await from(key, '192.0.2.50')).status, 200);
    const fourth = await from(keys[3]!, '192.0.2.50');
    assert.equal(fourth.status, 429);
    assert.equal(((await fourth.json()) as { code: string }).code, 'TOO_MANY_KEYS_FROM_IP');
    assert.ok(Number(fourth.headers.get('retry-after')) > 0);
    assert.equal((await from(keys[0]!, '192.0.2.50')).status, 200);
    // A refused key is not remembered as a member: it is refused again, not let through.
    assert.equal((await from(keys[3]!, '192.0.2.50')).status, 429);
    assert.equal((await from(keys[3]!, '192.0.2.51')).status, 200);
  });

  it('applies per-account limit overrides set through the admin API, and refuses unknown limit names', async () => {
    const token = 'admin-token-for-limit-overrides';
    const { app } = buildTestApp({ db: database.db, clock, adminToken: token });
    const admin = (path: string, body: unknown) =>
      app.request(path, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await admin('/admin/users', {
      email: 'odd@lawfirm.example',
      name: 'Odd',
      tier: 'enterprise',
      limitOverrides: { requestsPerHour: 5 },
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'VALIDATION_ERROR');
    const user = await admin('/admin/users', {
      email: 'custom@lawfirm.example',
      name: 'Custom',
      tier: 'enterprise',
      limitOverrides: { requestsPerMinute: 2 },
    });
    assert.equal(user.status, 201);
    const { userId } = ((await user.json()) as { data: { userId: string } }).data;
    const key = ((await (await admin(`/admin/users/${userId}/keys`, { name: 'custom' })).json()) as { data: { fullKey: string } }).data
      .fullKey;
    const me = () => app.request(`${BASE}/me`, { headers: { 'X-API-Key': key } });
    assert.equal((await me()).headers.get('ratelimit-limit'), '2');
    assert.equal((await me()).status, 200);
    assert.equal((await me()).status, 429);
  });

  it('limits dashboard login attempts per address, apart from the reference routes', async () => {
    const { app } = buildTestApp({ db: database.db, clock, perMinute: 2 });
    const login = (ip: string) =>
      app.request('/api/settings/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [TEST_CLIENT_HEADER]: ip },
        body: JSON.stringify({ email: 'nobody@lawfirm.example', password: 'wrong password' }),
      });
    assert.equal((await login('192.0.2.80')).status, 401);
    assert.equal((await login('192.0.2.80')).status, 401);
    const third = await login('192.0.2.80');
    assert.equal(third.status, 429);
    assert.equal(((await third.json()) as { code: string }).code, 'RATE_LIMITED');
    assert.equal((await login('192.0.2.81')).status, 401);
    assert.equal((await app.request(`${BASE}/reference/courts`, { headers: { [TEST_CLIENT_HEADER]: '192.0.2.80' } })).status, 200);
  });

  it('fails open on an allowlist lookup error for a non-strict organisation, closed for a strict one', async () => {
    const strictOrg = await test.application.accounts.createOrganization(
      { name: 'Strict LLP', allowlist: ['203.0.113.0/24'], strictAllowlist: true },
      operator,
    );
    assert.ok(strictOrg.ok);
    const [strictKey] = await userWithKeys(test.application.accounts, strictOrg.value.organizationId, 1);
    const [looseKey] = await userWithKeys(test.application.accounts, fixture.allowlistedOrganizationId, 1);
    const call = (key: string) => test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': key, [TEST_CLIENT_HEADER]: '198.51.100.99' } });
    // Warm both caches with a successful lookup, from an address outside both lists.
    assert.equal((await call(strictKey!)).status, 403);
    assert.equal((await call(looseKey!)).status, 403);
    // Past the allowlist cache's minute, with the database gone: keys are still cached.
    clock.advanceSeconds(61);
    await database.close();
    closed = true;
    const strict = await call(strictKey!);
    assert.equal(strict.status, 403);
    assert.equal(((await strict.json()) as { code: string }).code, 'IP_NOT_ALLOWED');
    assert.equal((await call(looseKey!)).status, 200);
  });
});
