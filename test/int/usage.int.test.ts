/**
 * GET /usage end to end: the balance comes from the credit ledger's read model (the
 * organisation's account for a member), calls per endpoint from the audit trail in the
 * embedded ClickHouse, limits from the tier with this account's overrides, prices from the
 * one price table.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChdbAnalyticsStore } from '../../src/adapters/clickhouse/chdb-store.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import { openPglite } from '../../src/db/open.ts';
import { eventStoreOf } from '../../src/wiring.ts';

type UsageBody = {
  data: {
    tier: string;
    billingAccountId: string;
    balance: number;
    reserved: number;
    limits: { requestsPerMinute: number; distinctScreenedNamesPerDay: number | null };
    period: { start: string; end: string };
    endpoints: { endpoint: string; calls: number; credits: number }[];
    prices: { path: string; price: string }[];
  };
};

describe('GET /usage', () => {
  let database: TestDatabase;
  let analytics: ChdbAnalyticsStore;
  let closeAnalytics: () => Promise<void>;
  let test: TestApp;
  let down: TestApp;
  let fixture: AccessFixture;
  const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));

  before(async () => {
    database = await databases[0]!.open();
    ({ store: analytics, close: closeAnalytics } = await openTestAnalytics());
    test = buildTestApp({ db: database.db, clock, analytics });
    await test.application.invalidator.poll();
    fixture = await createAccessFixture(test.application.accounts, clock);
    const granted = await test.application.credits.grantToUser(fixture.users.member, { amount: 1000, source: 'purchase' });
    assert.ok(granted.ok);
    const charged = await test.application.credits.chargeNow(fixture.organizationId, 7, 'req-usage-1');
    assert.ok(charged.ok);
    for (let i = 0; i < 4; i += 1) await test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': fixture.keys.member } });
    await new ProjectorRunner(database.db, eventStoreOf(database.db), auditToClickHouse(analytics), { now: () => clock.now() }).catchUp();
    const closed = await openPglite(undefined);
    await closed.close();
    down = buildTestApp({ db: closed.db, clock, analytics });
  });
  after(async () => {
    await closeAnalytics();
    await database.close();
  });

  securityMatrix({ method: 'GET', path: '/usage', okStatus: 200 }, () => ({ app: test.app, fixture, appWithIdentityDown: down.app }));

  it("reports the organisation's balance, the month's calls per endpoint, limits and prices", async () => {
    const res = await test.app.request(`${BASE}/usage`, { headers: { 'X-API-Key': fixture.keys.active } });
    assert.equal(res.status, 200);
    const { data } = (await res.json()) as UsageBody;
    assert.equal(data.tier, 'enterprise');
    assert.equal(data.billingAccountId, fixture.organizationId);
    assert.equal(data.balance, 993);
    assert.equal(data.reserved, 0);
    assert.deepEqual(data.period, { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' });
    assert.equal(data.endpoints.find((e) => e.endpoint === '/me')?.calls, 4);
    assert.equal(data.limits.distinctScreenedNamesPerDay, null);
    assert.match(data.prices.find((p) => p.path === '/search/cases/semantic')?.price ?? '', /^10 credits/);
    assert.match(data.prices.find((p) => p.path === '/party/screen')?.price ?? '', /100 credits on a match; 20 .* \+80/);
  });

  it('reports a user without an organisation on their own account', async () => {
    const { data } = (await (
      await test.app.request(`${BASE}/usage`, { headers: { 'X-API-Key': fixture.keys.noOrg } })
    ).json()) as UsageBody;
    assert.equal(data.billingAccountId, fixture.users.noOrg);
    assert.equal(data.balance, 0);
  });
});
