/**
 * GET /audit end to end over real engines: keyed calls leave events in Postgres, the
 * projector carries them into the embedded ClickHouse, and /audit reads them back with the
 * spec's parameters and scope rules. Replaying the projection never double counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChdbAnalyticsStore } from '../../src/adapters/clickhouse/chdb-store.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, TEST_CLIENT_HEADER, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import { openPglite } from '../../src/db/open.ts';
import { eventStoreOf } from '../../src/wiring.ts';

type AuditBody = {
  success: boolean;
  data: {
    rows: {
      endpoint: string;
      statusCode: number;
      userId: string;
      settlement: number;
      clientAddress: string;
      userAgent: string;
      occurredAt: string;
    }[];
    summary: { totalRequests: number; errorCount: number; totalCreditsDeducted: number };
    topEndpoints: { endpoint: string; calls: number }[];
  };
  pagination: { limit: number; offset: number; total: number };
};

describe('GET /audit', () => {
  let database: TestDatabase;
  let analytics: ChdbAnalyticsStore;
  let closeAnalytics: () => Promise<void>;
  let test: TestApp;
  let down: TestApp;
  let fixture: AccessFixture;
  let projector: ProjectorRunner;
  const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));

  before(async () => {
    database = await databases[0]!.open();
    ({ store: analytics, close: closeAnalytics } = await openTestAnalytics());
    test = buildTestApp({ db: database.db, clock, analytics });
    await test.application.invalidator.poll();
    fixture = await createAccessFixture(test.application.accounts, clock);
    projector = new ProjectorRunner(database.db, eventStoreOf(database.db), auditToClickHouse(analytics), { now: () => clock.now() });
    const me = (key: string, ip = '198.51.100.30') =>
      test.app.request(`${BASE}/me`, { headers: { 'X-API-Key': key, 'User-Agent': 'bgv-check/1.0', [TEST_CLIENT_HEADER]: ip } });
    for (let i = 0; i < 3; i += 1) await me(fixture.keys.active);
    await me(fixture.keys.member);
    await me(fixture.keys.allowlisted, '198.51.100.7');
    await projector.catchUp();
    const closed = await openPglite(undefined);
    await closed.close();
    down = buildTestApp({ db: closed.db, clock, analytics });
  });
  after(async () => {
    await closeAnalytics();
    await database.close();
  });

  // Without organizationId or userId a call that passes the gate is a 400 from the handler.
  securityMatrix({ method: 'GET', path: '/audit', okStatus: 400 }, () => ({ app: test.app, fixture, appWithIdentityDown: down.app }));

  const audit = (query: string, key = fixture.keys.active) => test.app.request(`${BASE}/audit?${query}`, { headers: { 'X-API-Key': key } });

  it("returns the caller's own rows with the spec's fields, a summary and top endpoints", async () => {
    const res = await audit(`userId=${fixture.users.active}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as AuditBody;
    const meRows = body.data.rows.filter((r) => r.endpoint === '/me');
    assert.equal(meRows.length, 3);
    assert.ok(meRows.every((r) => r.statusCode === 200 && r.userId === fixture.users.active && r.settlement === 0));
    assert.equal(meRows[0]!.clientAddress, '198.51.100.30');
    assert.equal(meRows[0]!.userAgent, 'bgv-check/1.0');
    assert.match(meRows[0]!.occurredAt, /^2026-11-26T10:00:00\.\d{3}Z$/);
    assert.equal(body.data.topEndpoints[0]?.endpoint, '/me');
    assert.equal(body.pagination.total, body.data.summary.totalRequests);
    assert.equal(body.pagination.limit, 50);
  });

  it('reports the whole organisation to its members, and pages with limit and offset', async () => {
    const body = (await (await audit(`organizationId=${fixture.organizationId}&limit=2&offset=1`)).json()) as AuditBody;
    assert.equal(body.data.rows.length, 2);
    const all = (await (await audit(`organizationId=${fixture.organizationId}`)).json()) as AuditBody;
    const users = new Set(all.data.rows.map((r) => r.userId));
    assert.ok(users.has(fixture.users.active) && users.has(fixture.users.member));
  });

  it('lets an ORG_ADMIN read a member, but not a member read a colleague or another organisation', async () => {
    assert.equal((await audit(`userId=${fixture.users.member}`)).status, 200);
    const colleague = await audit(`userId=${fixture.users.active}`, fixture.keys.member);
    assert.equal(colleague.status, 403);
    assert.equal(((await colleague.json()) as { code: string }).code, 'AUDIT_SCOPE_FORBIDDEN');
    const foreign = await audit(`organizationId=${fixture.allowlistedOrganizationId}`);
    assert.equal(foreign.status, 403);
    assert.match(((await foreign.json()) as { message: string }).message, new RegExp(fixture.organizationId));
  });

  it('validates its parameters exactly', async () => {
    for (const [query, detail] of [
      ['', /organizationId or userId/],
      [`userId=${fixture.users.active}&startDate=2026-11-01`, /startDate/],
      [`userId=${fixture.users.active}&limit=201`, /limit/],
      [`userId=${fixture.users.active}&offset=-1`, /offset/],
    ] as const) {
      const res = await audit(query);
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { code: string; details: string[] };
      assert.equal(body.code, 'VALIDATION_ERROR');
      assert.match(body.details.join(' '), detail);
    }
  });

  it('filters by time window', async () => {
    const body = (await (await audit(`userId=${fixture.users.active}&startDate=2026-11-26T10:00:01Z`)).json()) as AuditBody;
    assert.equal(body.data.rows.filter((r) => r.endpoint === '/me').length, 0);
  });

  it('never double counts when the projection is replayed from zero', async () => {
    const count = async () => Number((await analytics.query<{ n: string }>('SELECT count() AS n FROM audit_events FINAL'))[0]?.n);
    await projector.catchUp();
    const before = await count();
    const replayed = await new ProjectorRunner(
      database.db,
      eventStoreOf(database.db),
      { ...auditToClickHouse(analytics), reset: async () => undefined },
      { now: () => clock.now() },
    ).rebuild();
    assert.ok(replayed >= before);
    assert.equal(await count(), before);
  });
});
