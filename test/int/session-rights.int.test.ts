/**
 * Rights follow standing and role on every session route, through the real app over a real
 * database: each /api/settings route and each dashboard page or form, for every role
 * (a PERSONAL account, an organisation MEMBER, an ORG_ADMIN) in every standing (active,
 * billing_inactive, suspended, organisation deactivated). The expected answer per route is
 * written out here, apart from the permission table. A refused settings call answers 403 with
 * the standing's code or ORG_ADMIN_REQUIRED; a refused page 403; a suspended or deactivated
 * caller's refusal also ends every session of theirs. Then the attacks of issue 26: a
 * suspended ORG_ADMIN rotating a colleague's key, a suspended member minting keys and
 * registering webhooks, a member taking over the organisation's webhooks, and a suspended
 * user logging in again.
 *
 * Each cell gets a session of its own (sessions are plain rows, inserted as login would), so
 * a refusal that ends the user's sessions does not hide the next route's answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewUser } from '../../src/application/accounts/accounts-service.ts';
import { randomToken, sha256Hex } from '../../src/application/sessions/tokens.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

type Role = 'PERSONAL' | 'MEMBER' | 'ORG_ADMIN';
type Standing = 'active' | 'billing_inactive' | 'suspended' | 'organization_deactivated';
type Body = Record<string, unknown>;

const ROLES: Role[] = ['PERSONAL', 'MEMBER', 'ORG_ADMIN'];
const STANDINGS: Standing[] = ['active', 'billing_inactive', 'suspended', 'organization_deactivated'];
const PASSWORD = 'correct horse battery staple';
const ORIGIN = 'http://localhost';
const operator = { kind: 'operator' } as const;
const EVERYONE: Role[] = ['PERSONAL', 'MEMBER', 'ORG_ADMIN'];
const OWNERS: Role[] = ['PERSONAL', 'ORG_ADMIN'];
const CODE: Record<Exclude<Standing, 'active'>, string> = {
  billing_inactive: 'BILLING_INACTIVE',
  suspended: 'ACCOUNT_SUSPENDED',
  organization_deactivated: 'ORGANIZATION_DEACTIVATED',
};
const LETTER: Record<Standing, string> = { active: 'A', billing_inactive: 'B', suspended: 'S', organization_deactivated: 'D' };

interface Fixture {
  readonly userId: string;
  /** Who pays: the organisation of a member or admin, else the user. */
  readonly billingAccount: string;
  readonly email: string;
  /** Keys and endpoints of the user's own, set up while active, one per route that consumes one. */
  readonly keys: string[];
  readonly endpoints: string[];
  /** A delivery (a test event) to its first endpoint, for the resend routes. */
  readonly deliveries: string[];
}

interface Session {
  readonly token: string;
  readonly csrf: string;
}

interface RouteCase {
  readonly name: string;
  readonly surface: 'settings' | 'dashboard';
  readonly roles: Role[];
  /** Standings allowed, as letters: A active, B billing_inactive, S suspended, D organisation deactivated. */
  readonly standings: string;
  /** The status of an allowed call. */
  readonly ok: number;
  call(session: Session, fixture: Fixture): Response | Promise<Response>;
}

for (const factory of databases) {
  describe(`session rights: every session route × role × standing (${factory.name})`, () => {
    let database: TestDatabase;
    let t: TestApp;
    let closeAnalytics: () => Promise<void>;
    const clock = new SettableClock(new Date('2026-11-29T09:00:00.000Z'));
    const fixtures = new Map<string, Fixture>();

    const settings = (method: string, path: string, session: Session, body?: Body) =>
      t.app.request(`${ORIGIN}${path}`, {
        method,
        headers: {
          Cookie: `session=${session.token}`,
          'X-CSRF-Token': session.csrf,
          ...(body ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const page = (path: string, session: Session, form?: Record<string, string>) =>
      t.app.request(`${ORIGIN}${path}`, {
        method: form ? 'POST' : 'GET',
        headers: {
          Cookie: `dashboard_session=${session.token}`,
          ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams({ _csrf: session.csrf, ...form }).toString() } : {}),
      });

    const ROUTES: RouteCase[] = [
      {
        name: 'GET /api/settings/session',
        surface: 'settings',
        roles: EVERYONE,
        standings: 'AB',
        ok: 200,
        call: (s) => settings('GET', '/api/settings/session', s),
      },
      {
        name: 'GET /api/settings/api-keys',
        surface: 'settings',
        roles: EVERYONE,
        standings: 'AB',
        ok: 200,
        call: (s) => settings('GET', '/api/settings/api-keys', s),
      },
      {
        name: 'POST /api/settings/api-keys',
        surface: 'settings',
        roles: EVERYONE,
        standings: 'A',
        ok: 201,
        call: (s) => settings('POST', '/api/settings/api-keys', s, { name: 'matrix' }),
      },
      {
        name: 'POST /api/settings/api-keys/{id}/rotate',
        surface: 'settings',
        roles: EVERYONE,
        standings: 'A',
        ok: 200,
        call: (s, f) => settings('POST', `/api/settings/api-keys/${f.keys[0]!}/rotate`, s),
      },
      {
        name: 'DELETE /api/settings/api-keys/{id}',
        surface: 'settings',
        roles: EVERYONE,
        standings: 'AB',
        ok: 200,
        call: (s, f) => settings('DELETE', `/api/settings/api-keys/${f.keys[1]!}`, s),
      },
      {
        name: 'GET /api/settings/webhooks',
        surface: 'settings',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s) => settings('GET', '/api/settings/webhooks', s),
      },
      {
        name: 'POST /api/settings/webhooks',
        surface: 'settings',
        roles: OWNERS,
        standings: 'A',
        ok: 201,
        call: (s) =>
          settings('POST', '/api/settings/webhooks', s, { url: 'https://hooks.example.in/matrix', eventTypes: ['analysis.stored'] }),
      },
      {
        name: 'POST /api/settings/webhooks/{id}/rotate-secret',
        surface: 'settings',
        roles: OWNERS,
        standings: 'A',
        ok: 200,
        call: (s, f) => settings('POST', `/api/settings/webhooks/${f.endpoints[0]!}/rotate-secret`, s),
      },
      {
        name: 'POST /api/settings/webhooks/{id}/enable',
        surface: 'settings',
        roles: OWNERS,
        standings: 'A',
        ok: 200,
        call: (s, f) => settings('POST', `/api/settings/webhooks/${f.endpoints[0]!}/enable`, s),
      },
      {
        name: 'DELETE /api/settings/webhooks/{id}',
        surface: 'settings',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s, f) => settings('DELETE', `/api/settings/webhooks/${f.endpoints[1]!}`, s),
      },
      {
        name: 'GET /api/settings/webhooks/{id}/deliveries',
        surface: 'settings',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s, f) => settings('GET', `/api/settings/webhooks/${f.endpoints[0]!}/deliveries`, s),
      },
      {
        name: 'POST /api/settings/webhooks/{id}/test',
        surface: 'settings',
        roles: OWNERS,
        standings: 'A',
        ok: 202,
        call: (s, f) => settings('POST', `/api/settings/webhooks/${f.endpoints[0]!}/test`, s, {}),
      },
      {
        name: 'POST /api/settings/webhooks/deliveries/{id}/resend',
        surface: 'settings',
        roles: OWNERS,
        standings: 'A',
        ok: 202,
        call: (s, f) => settings('POST', `/api/settings/webhooks/deliveries/${f.deliveries[0]!}/resend`, s),
      },
      {
        name: 'POST /api/settings/logout',
        surface: 'settings',
        roles: EVERYONE,
        standings: 'ABSD',
        ok: 200,
        call: (s) => settings('POST', '/api/settings/logout', s),
      },
      { name: 'GET /dashboard', surface: 'dashboard', roles: EVERYONE, standings: 'AB', ok: 303, call: (s) => page('/dashboard', s) },
      ...['/dashboard/ledger', '/dashboard/ledger.csv'].map((path): RouteCase => ({
        name: `GET ${path}`,
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s) => page(path, s),
      })),
      {
        name: 'GET /dashboard/billing/statements/:accountId/:file',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s, f) => page(`/dashboard/billing/statements/${f.billingAccount}/2026-11.csv`, s),
      },
      ...['/dashboard/keys', '/dashboard/usage', '/dashboard/audit', '/dashboard/billing', '/dashboard/billing/plans'].map(
        (path): RouteCase => ({
          name: `GET ${path}`,
          surface: 'dashboard',
          roles: EVERYONE,
          standings: 'AB',
          ok: 200,
          call: (s) => page(path, s),
        }),
      ),
      {
        name: 'POST /dashboard/keys',
        surface: 'dashboard',
        roles: EVERYONE,
        standings: 'A',
        ok: 201,
        call: (s) => page('/dashboard/keys', s, { name: 'matrix page', mode: 'live' }),
      },
      {
        name: 'POST /dashboard/keys/:id/rotate',
        surface: 'dashboard',
        roles: EVERYONE,
        standings: 'A',
        ok: 200,
        call: (s, f) => page(`/dashboard/keys/${f.keys[2]!}/rotate`, s, {}),
      },
      {
        name: 'POST /dashboard/keys/:id/revoke',
        surface: 'dashboard',
        roles: EVERYONE,
        standings: 'AB',
        ok: 200,
        call: (s, f) => page(`/dashboard/keys/${f.keys[3]!}/revoke`, s, {}),
      },
      {
        name: 'GET /dashboard/webhooks',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s) => page('/dashboard/webhooks', s),
      },
      {
        name: 'POST /dashboard/webhooks',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'A',
        ok: 201,
        call: (s) => page('/dashboard/webhooks', s, { url: 'https://hooks.example.in/page', 'event:analysis.failed': 'on', mode: 'live' }),
      },
      {
        name: 'POST /dashboard/webhooks/:id/rotate',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'A',
        ok: 200,
        call: (s, f) => page(`/dashboard/webhooks/${f.endpoints[2]!}/rotate`, s, {}),
      },
      {
        name: 'POST /dashboard/webhooks/:id/enable',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'A',
        ok: 200,
        call: (s, f) => page(`/dashboard/webhooks/${f.endpoints[2]!}/enable`, s, {}),
      },
      {
        name: 'POST /dashboard/webhooks/:id/remove',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'AB',
        ok: 200,
        call: (s, f) => page(`/dashboard/webhooks/${f.endpoints[3]!}/remove`, s, {}),
      },
      {
        name: 'POST /dashboard/webhooks/:id/test',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'A',
        ok: 200,
        call: (s, f) => page(`/dashboard/webhooks/${f.endpoints[0]!}/test`, s, {}),
      },
      {
        name: 'POST /dashboard/webhooks/deliveries/:id/resend',
        surface: 'dashboard',
        roles: OWNERS,
        standings: 'A',
        ok: 200,
        call: (s, f) => page(`/dashboard/webhooks/deliveries/${f.deliveries[0]!}/resend`, s, {}),
      },
      {
        name: 'POST /dashboard/logout',
        surface: 'dashboard',
        roles: EVERYONE,
        standings: 'ABSD',
        ok: 303,
        call: (s) => page('/dashboard/logout', s, {}),
      },
    ];

    /** Routes that need no session: the login form and post, and the stylesheet. */
    const SESSIONLESS = [
      'POST /api/settings/login',
      'GET /dashboard/login',
      'POST /dashboard/login',
      'GET /dashboard/assets/dashboard.css',
    ];

    const cells = ROLES.flatMap((role) =>
      STANDINGS.filter((standing) => role !== 'PERSONAL' || standing !== 'organization_deactivated').map((standing) => ({
        role,
        standing,
      })),
    );

    async function storeSession(userId: string, session: Session): Promise<void> {
      const now = clock.now();
      await database.db
        .insertInto('dashboardSessions')
        .values({
          sessionHash: await sha256Hex(session.token),
          userId,
          csrfToken: session.csrf,
          createdAt: now,
          expiresAt: new Date(now.getTime() + 3_600_000),
        })
        .execute();
    }

    async function newSession(userId: string): Promise<Session> {
      const session = { token: randomToken(), csrf: randomToken() };
      await storeSession(userId, session);
      return session;
    }

    async function sessionsOf(userId: string): Promise<number> {
      const rows = await database.db.selectFrom('dashboardSessions').select('sessionHash').where('userId', '=', userId).execute();
      return rows.length;
    }

    before(async () => {
      database = await factory.open();
      const analytics = await openTestAnalytics();
      closeAnalytics = analytics.close;
      t = buildTestApp({ db: database.db, clock, analytics: analytics.store });
      const { accounts } = t.application;
      const base: Omit<NewUser, 'email' | 'organizationId' | 'role'> = {
        name: 'Matrix User',
        tier: 'enterprise',
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: PASSWORD,
        limitOverrides: {},
      };
      for (const { role, standing } of cells) {
        let organizationId: string | null = null;
        if (role !== 'PERSONAL') {
          const created = await accounts.createOrganization(
            { name: `Org ${role} ${standing}`, allowlist: [], strictAllowlist: false },
            operator,
          );
          assert.ok(created.ok);
          organizationId = created.value.organizationId;
        }
        const email = `${role.toLowerCase()}.${standing}@matrix.example`;
        const registered = await accounts.registerUser(
          { ...base, email, organizationId, role: role === 'ORG_ADMIN' ? 'ORG_ADMIN' : 'MEMBER' },
          operator,
        );
        assert.ok(registered.ok);
        const { userId } = registered.value;
        const keys: string[] = [];
        for (let i = 0; i < 4; i += 1) {
          const key = await accounts.createKey(userId, `fixture ${i}`, operator);
          assert.ok(key.ok);
          keys.push(key.value.id);
        }
        const endpoints: string[] = [];
        for (let i = 0; i < 4; i += 1) {
          const endpoint = await t.webhooks.endpoints.register(
            organizationId ?? userId,
            { url: `https://hooks.example.in/fixture-${i}`, eventTypes: ['analysis.stored'], mode: 'live' },
            `req_fixture_${i}`,
          );
          assert.ok(endpoint.ok);
          endpoints.push(endpoint.value.id);
        }
        const queued = await t.webhooks.endpoints.sendTest(organizationId ?? userId, endpoints[0]!);
        assert.ok(queued.ok);
        const deliveries = [queued.value.id];
        if (standing === 'billing_inactive' || standing === 'suspended')
          assert.ok((await accounts.setStanding(userId, standing, operator)).ok);
        if (standing === 'organization_deactivated') assert.ok((await accounts.deactivateOrganization(organizationId!, operator)).ok);
        fixtures.set(`${role}/${standing}`, { userId, billingAccount: organizationId ?? userId, email, keys, endpoints, deliveries });
      }
    });
    after(async () => {
      await database.close();
      await closeAnalytics();
    });

    it('has a row for every session route the app serves, and none for a route it does not', () => {
      const served = t.app.routes
        .filter((r) => r.method !== 'ALL' && /^\/(dashboard|api\/settings)(\/|$)/.test(r.path))
        .map((r) => `${r.method} ${r.path}`)
        .filter((route) => !SESSIONLESS.includes(route));
      const rows = ROUTES.map((route) => route.name.replace(/\{(\w+)\}/g, ':$1'));
      assert.deepEqual([...new Set(served)].sort(), [...rows].sort());
    });

    for (const route of ROUTES) {
      it(`${route.name}: every role × standing`, async () => {
        for (const { role, standing } of cells) {
          const fixture = fixtures.get(`${role}/${standing}`)!;
          const session = await newSession(fixture.userId);
          const spare = await newSession(fixture.userId);
          const res = await route.call(session, fixture);
          const text = await res.text();
          const where = `${route.name} as ${role} ${standing}: ${res.status} ${text.slice(0, 200)}`;
          const standingAllowed = route.standings.includes(LETTER[standing]);
          if (standingAllowed && route.roles.includes(role)) {
            assert.equal(res.status, route.ok, where);
          } else if (route.surface === 'settings') {
            assert.equal(res.status, 403, where);
            const code = standingAllowed ? 'ORG_ADMIN_REQUIRED' : CODE[standing as Exclude<Standing, 'active'>];
            assert.equal((JSON.parse(text) as Body).code, code, where);
          } else {
            assert.equal(res.status, 403, where);
            // A role refusal may be the section's own page (the ledger's); a standing refusal says why.
            if (!standingAllowed) assert.match(text, /^Refused: .*(suspended|deactivated|Billing)/, where);
          }
          if (standing === 'suspended' || standing === 'organization_deactivated') {
            // The refusal (or the logout) was the last answer any session of this user gets.
            assert.equal(await sessionsOf(fixture.userId), 0, `${where}: sessions left`);
            const again = await settings('GET', '/api/settings/session', spare);
            assert.equal(again.status, 401, `${where}: a second session still answered`);
          }
        }
      });
    }

    it('refuses a suspended user and a deactivated organisation’s member at login, with their standing, once the password is right', async () => {
      const login = (email: string, password: string) =>
        t.app.request(`${ORIGIN}/api/settings/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Test-Client-Address': '198.51.100.40' },
          body: JSON.stringify({ email, password }),
        });
      const suspended = await login(fixtures.get('ORG_ADMIN/suspended')!.email, PASSWORD);
      assert.equal(suspended.status, 403);
      assert.equal(((await suspended.json()) as Body).code, 'ACCOUNT_SUSPENDED');
      const deactivated = await login(fixtures.get('MEMBER/organization_deactivated')!.email, PASSWORD);
      assert.equal(((await deactivated.json()) as Body).code, 'ORGANIZATION_DEACTIVATED');
      const wrong = await login(fixtures.get('ORG_ADMIN/suspended')!.email, 'not the password');
      assert.equal(((await wrong.json()) as Body).code, 'INVALID_CREDENTIALS');
      const billing = await login(fixtures.get('PERSONAL/billing_inactive')!.email, PASSWORD);
      assert.equal(billing.status, 200);
    });

    it('ends the sessions of an ORG_ADMIN suspended while logged in: the colleague’s key cannot be rotated with them', async () => {
      const { accounts } = t.application;
      const organization = await accounts.createOrganization({ name: 'Rotation Org', allowlist: [], strictAllowlist: false }, operator);
      assert.ok(organization.ok);
      const member = {
        name: 'M',
        tier: 'enterprise',
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: PASSWORD,
        limitOverrides: {},
      } as const;
      const admin = await accounts.registerUser(
        { ...member, email: 'admin@rotation.example', organizationId: organization.value.organizationId, role: 'ORG_ADMIN' },
        operator,
      );
      const colleague = await accounts.registerUser(
        { ...member, email: 'colleague@rotation.example', organizationId: organization.value.organizationId, role: 'MEMBER' },
        operator,
      );
      assert.ok(admin.ok && colleague.ok);
      const key = await accounts.createKey(colleague.value.userId, 'colleague key', operator);
      assert.ok(key.ok);
      const settingsSession = await newSession(admin.value.userId);
      const pageSession = await newSession(admin.value.userId);
      assert.ok((await accounts.setStanding(admin.value.userId, 'suspended', operator)).ok);
      assert.equal(await sessionsOf(admin.value.userId), 0, 'the suspension ended the sessions at once');
      // Sessions that outlive the suspension (rows written by logins racing it) still end at their next request.
      for (const session of [settingsSession, pageSession]) await storeSession(admin.value.userId, session);

      const rotated = await settings('POST', `/api/settings/api-keys/${key.value.id}/rotate`, settingsSession);
      assert.equal(rotated.status, 403);
      assert.equal(((await rotated.json()) as Body).code, 'ACCOUNT_SUSPENDED');
      const viaPage = await page(`/dashboard/keys/${key.value.id}/rotate`, pageSession, {});
      assert.equal(viaPage.status, 303, 'the page session ended with the first refusal: back to the login form');
      const listed = await accounts.listKeys({
        kind: 'user',
        userId: colleague.value.userId,
        role: 'MEMBER',
        organizationId: organization.value.organizationId,
      });
      assert.deepEqual(
        listed.map((k) => k.status),
        ['active'],
        'the colleague’s key was not rotated',
      );
      // The application refuses too, whoever calls it: the standing is read in the transaction.
      const direct = await accounts.rotateKey(key.value.id, {
        kind: 'user',
        userId: admin.value.userId,
        role: 'ORG_ADMIN',
        organizationId: organization.value.organizationId,
      });
      assert.deepEqual(direct, { ok: false, error: { tag: 'NotPermitted', reason: 'AccountSuspended' } });
    });

    it('ends every member’s sessions the moment their organisation is deactivated', async () => {
      const { accounts } = t.application;
      const organization = await accounts.createOrganization({ name: 'Closing Org', allowlist: [], strictAllowlist: false }, operator);
      assert.ok(organization.ok);
      const person = {
        name: 'C',
        tier: 'enterprise',
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: PASSWORD,
        limitOverrides: {},
      } as const;
      const ids: string[] = [];
      for (const [email, role] of [
        ['admin@closing.example', 'ORG_ADMIN'],
        ['member@closing.example', 'MEMBER'],
      ] as const) {
        const user = await accounts.registerUser({ ...person, email, organizationId: organization.value.organizationId, role }, operator);
        assert.ok(user.ok);
        ids.push(user.value.userId);
        await newSession(user.value.userId);
      }
      const bystander = fixtures.get('PERSONAL/active')!.userId;
      await newSession(bystander);
      assert.ok((await accounts.deactivateOrganization(organization.value.organizationId, operator)).ok);
      for (const id of ids) assert.equal(await sessionsOf(id), 0);
      assert.ok((await sessionsOf(bystander)) > 0, 'a user outside the organisation keeps theirs');
    });

    it('keeps an organisation’s webhooks from a member: no registering, rotating, reading or removing the admin’s endpoint', async () => {
      const fixture = fixtures.get('MEMBER/active')!;
      const session = await newSession(fixture.userId);
      const endpoint = fixture.endpoints[0]!;
      for (const [method, path, body] of [
        ['POST', '/api/settings/webhooks', { url: 'https://attacker.example/steal', eventTypes: ['analysis.stored'] }],
        ['POST', `/api/settings/webhooks/${endpoint}/rotate-secret`, undefined],
        ['DELETE', `/api/settings/webhooks/${endpoint}`, undefined],
        ['GET', '/api/settings/webhooks', undefined],
        ['GET', `/api/settings/webhooks/${endpoint}/deliveries`, undefined],
      ] as const) {
        const res = await settings(method, path, session, body);
        assert.equal(res.status, 403, `${method} ${path}`);
        assert.equal(((await res.json()) as Body).code, 'ORG_ADMIN_REQUIRED');
      }
      const organizationId = (
        await database.db.selectFrom('users').select('organizationId').where('userId', '=', fixture.userId).executeTakeFirstOrThrow()
      ).organizationId!;
      const left = await t.webhooks.endpoints.list(organizationId);
      assert.equal(left.length, 4, 'the endpoints are untouched and none was added');
      assert.equal(
        left.some((e) => e.url.includes('attacker')),
        false,
      );
    });

    it('lets an ORG_ADMIN manage a member’s key, and never a member the admin’s', async () => {
      const { accounts } = t.application;
      const organization = await accounts.createOrganization({ name: 'Keys Org', allowlist: [], strictAllowlist: false }, operator);
      assert.ok(organization.ok);
      const person = {
        name: 'K',
        tier: 'enterprise',
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: PASSWORD,
        limitOverrides: {},
      } as const;
      const orgId = organization.value.organizationId;
      const admin = await accounts.registerUser(
        { ...person, email: 'admin@keys.example', organizationId: orgId, role: 'ORG_ADMIN' },
        operator,
      );
      const member = await accounts.registerUser(
        { ...person, email: 'member@keys.example', organizationId: orgId, role: 'MEMBER' },
        operator,
      );
      assert.ok(admin.ok && member.ok);
      const memberKey = await accounts.createKey(member.value.userId, 'member key', operator);
      const adminKey = await accounts.createKey(admin.value.userId, 'admin key', operator);
      assert.ok(memberKey.ok && adminKey.ok);
      const asMember = await settings('POST', `/api/settings/api-keys/${adminKey.value.id}/rotate`, await newSession(member.value.userId));
      assert.equal(asMember.status, 404);
      const asAdmin = await settings('POST', `/api/settings/api-keys/${memberKey.value.id}/rotate`, await newSession(admin.value.userId));
      assert.equal(asAdmin.status, 200);
      assert.ok((await accounts.setStanding(admin.value.userId, 'billing_inactive', operator)).ok);
      const revoked = await settings('DELETE', `/api/settings/api-keys/${memberKey.value.id}`, await newSession(admin.value.userId));
      assert.equal(revoked.status, 200, 'giving up access stays allowed under billing_inactive');
    });
  });
}
