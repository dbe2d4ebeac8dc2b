/**
 * The HTML dashboard through the real app over a real database and the embedded ClickHouse:
 * every page sends a caller without a session to the login form; the login form and every
 * state-changing form refuse a post without the right CSRF token; a MEMBER sees neither a
 * colleague's keys, calls nor the organisation's ledger, and cannot rotate a colleague's
 * key; a new key's plaintext appears once, works, and never reaches the logs; the CSV
 * export is the ledger; the links of a real 402 and a real tier refusal lead to 200 pages;
 * and the pages carry their security headers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewUser } from '../../src/application/accounts/accounts-service.ts';
import { exportLedger } from '../../src/application/credits/ledger-export.ts';
import { loadConfig } from '../../src/config.ts';
import { LEDGER_CSV_COLUMNS } from '../../src/http/routes/dashboard/ledger.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const PASSWORD = 'a long dashboard passphrase';
const ORIGIN = 'http://localhost';
const operator = { kind: 'operator' } as const;
const PAGES = [
  '/dashboard',
  '/dashboard/keys',
  '/dashboard/usage',
  '/dashboard/ledger',
  '/dashboard/ledger.csv',
  '/dashboard/audit',
  '/dashboard/webhooks',
  '/dashboard/billing',
  '/dashboard/billing/plans',
];

type Session = { cookie: string; csrf: string };

const csrfOf = (html: string): string => {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, 'the page carries a CSRF field');
  return match[1]!;
};

/** The records of an RFC 4180 CSV: quoted fields may hold commas and doubled quotes. */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
      i += 1;
    } else field += ch;
  }
  return rows;
}

describe('the HTML dashboard', { timeout: 300_000 }, () => {
  let database: TestDatabase;
  let t: TestApp;
  let closeAnalytics: () => Promise<void>;
  let catchUpAudit: () => Promise<void>;
  const users = {} as Record<'admin' | 'alice' | 'bob' | 'solo' | 'free' | 'broke', string>;
  let organizationId: string;
  let bobKey: { id: string; fullKey: string };
  let aliceKey: string;
  const config = loadConfig({});

  async function request(path: string, init: { session?: Session; form?: Record<string, string>; cookie?: string } = {}) {
    const headers: Record<string, string> = {};
    const cookie = [init.session?.cookie, init.cookie].filter(Boolean).join('; ');
    if (cookie) headers.Cookie = cookie;
    if (init.form) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    return t.app.request(`${ORIGIN}${path}`, {
      method: init.form ? 'POST' : 'GET',
      headers,
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
  }

  async function login(email: string): Promise<Session> {
    const form = await request('/dashboard/login');
    const loginCookie = /dashboard_login=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')![1]!;
    const res = await request('/dashboard/login', {
      cookie: `dashboard_login=${loginCookie}`,
      form: { _csrf: csrfOf(await form.text()), email, password: PASSWORD, next: '/dashboard/keys' },
    });
    assert.equal(res.status, 303);
    const session = /dashboard_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
    assert.ok(session, 'a session cookie is set');
    const cookie = `dashboard_session=${session[1]!}`;
    return { cookie, csrf: csrfOf(await (await request('/dashboard/keys', { session: { cookie, csrf: '' } })).text()) };
  }

  const keyed = (key: string, path: string, init: RequestInit = {}) =>
    t.app.request(`${BASE}${path}`, { ...init, headers: { 'X-API-Key': key, ...(init.headers as Record<string, string> | undefined) } });

  before(async () => {
    database = await databases[0]!.open();
    const analytics = await openTestAnalytics();
    closeAnalytics = analytics.close;
    t = buildTestApp({
      db: database.db,
      analytics: analytics.store,
      entitledTiers: ['free', 'enterprise'],
      links: { topUpUrl: config.TOP_UP_URL, upgradeUrl: config.UPGRADE_URL },
    });
    const runner = new ProjectorRunner(database.db, eventStoreOf(database.db), auditToClickHouse(analytics.store), {
      now: () => new Date(),
    });
    catchUpAudit = async () => {
      await runner.catchUp();
    };
    const { accounts, credits } = t.application;
    const org = await accounts.createOrganization({ name: 'Acme Legal LLP', allowlist: [], strictAllowlist: false }, operator);
    assert.ok(org.ok);
    organizationId = org.value.organizationId;
    const register = async (label: keyof typeof users, over: Partial<NewUser>) => {
      const result = await accounts.registerUser(enterpriseUser(`${label}@acme.example`, { password: PASSWORD, ...over }), operator);
      assert.ok(result.ok);
      users[label] = result.value.userId;
    };
    await register('admin', { organizationId, role: 'ORG_ADMIN' });
    await register('alice', { organizationId });
    await register('bob', { organizationId });
    await register('solo', {});
    await register('free', { tier: 'free' });
    await register('broke', {});
    const issued = async (userId: string) => {
      const key = await accounts.createKey(userId, 'notebook', operator);
      assert.ok(key.ok);
      return key.value;
    };
    bobKey = await issued(users.bob);
    aliceKey = (await issued(users.alice)).fullKey;
    assert.ok(
      (await credits.grant(organizationId, { amount: 500, source: 'purchase', note: 'PO 17, "annual"' }, { actor: 'operator' })).ok,
    );
    await t.application.invalidator.poll();
    for (const [key, path] of [
      [bobKey.fullKey, '/judges/search?q=chandrachud'],
      [aliceKey, '/me'],
      [aliceKey, '/me'],
    ] as const) {
      assert.equal((await keyed(key, path)).status, 200);
    }
    await catchUpAudit();
  });
  after(async () => {
    await closeAnalytics();
    await database.close();
  });

  it('sends a caller without a session to the login form, coming back to the page asked for', async () => {
    for (const path of PAGES) {
      const res = await request(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.get('location'), `/dashboard/login?next=${encodeURIComponent(path)}`);
    }
    const forged = await request('/dashboard/keys', { cookie: 'dashboard_session=not-a-session', form: { name: 'x' } });
    assert.equal(forged.status, 303);
    assert.match(forged.headers.get('location') ?? '', /^\/dashboard\/login/);
  });

  it('logs in only from its own form, and answers a wrong password like an unknown email', async () => {
    const noToken = await request('/dashboard/login', { form: { email: 'alice@acme.example', password: PASSWORD } });
    assert.equal(noToken.status, 403);
    assert.equal(noToken.headers.get('set-cookie')?.includes('dashboard_session='), false);
    const form = await request('/dashboard/login');
    const cookie = /dashboard_login=[^;]+/.exec(form.headers.get('set-cookie') ?? '')![0];
    const token = csrfOf(await form.text());
    const wrong = await request('/dashboard/login', { cookie, form: { _csrf: token, email: 'alice@acme.example', password: 'wrong' } });
    const unknown = await request('/dashboard/login', { cookie, form: { _csrf: token, email: 'nobody@acme.example', password: 'wrong' } });
    assert.deepEqual([wrong.status, unknown.status], [401, 401]);
    assert.match(await wrong.text(), /The email or password is incorrect/);
    const offsite = await request('/dashboard/login', {
      cookie,
      form: { _csrf: token, email: 'alice@acme.example', password: PASSWORD, next: '//evil.example/dashboard' },
    });
    assert.equal(offsite.headers.get('location'), '/dashboard/keys');
    assert.match(offsite.headers.get('set-cookie') ?? '', /dashboard_session=[^;]+;.*Path=\/dashboard;.*HttpOnly;.*SameSite=Lax/);
  });

  it('sends security headers: no script, no framing, no caching', async () => {
    const alice = await login('alice@acme.example');
    for (const path of [...PAGES.filter((p) => p !== '/dashboard'), '/dashboard/login']) {
      const res = await request(path, { session: alice });
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /script-src|unsafe-inline/, path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
    }
  });

  it('refuses every form posted without the session’s CSRF token, changing nothing', async () => {
    const admin = await login('admin@acme.example');
    const before = await t.application.accounts.listKeys({ kind: 'user', userId: users.admin, role: 'ORG_ADMIN', organizationId });
    for (const [path, form] of [
      ['/dashboard/keys', { name: 'sneaky' }],
      [`/dashboard/keys/${bobKey.id}/rotate`, {}],
      [`/dashboard/keys/${bobKey.id}/revoke`, {}],
      ['/dashboard/logout', {}],
    ] as const) {
      for (const csrf of [undefined, 'x'.repeat(43), admin.csrf.slice(1)]) {
        const res = await request(path, { session: admin, form: csrf === undefined ? form : { ...form, _csrf: csrf } });
        assert.equal(res.status, 403, `${path} with ${String(csrf)}`);
      }
    }
    const after = await t.application.accounts.listKeys({ kind: 'user', userId: users.admin, role: 'ORG_ADMIN', organizationId });
    assert.deepEqual(after, before);
    assert.equal((await request('/dashboard/keys', { session: admin })).status, 200, 'still logged in');
    const out = await request('/dashboard/logout', { session: admin, form: { _csrf: admin.csrf } });
    assert.deepEqual([out.status, out.headers.get('location')], [303, '/dashboard/login']);
    assert.equal((await request('/dashboard/keys', { session: admin })).status, 303, 'the session ended server-side');
  });

  it('shows a new key once, which then works, and never logs it', async () => {
    const solo = await login('solo@acme.example');
    const created = await request('/dashboard/keys', { session: solo, form: { _csrf: solo.csrf, name: 'CI pipeline' } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    const page = await created.text();
    const plaintext = /data-testid="plaintext-key">([^<]+)</.exec(page)?.[1] ?? '';
    assert.match(plaintext, /^crk_live-/, page);
    assert.equal((await keyed(plaintext, '/me')).status, 200);
    const later = await (await request('/dashboard/keys', { session: solo })).text();
    assert.equal(later.includes(plaintext), false);
    assert.match(later, /CI pipeline/);
    assert.equal(
      t.logs.some((line) => line.includes(plaintext)),
      false,
    );
  });

  it('issues a test-mode key when asked, marked as such, and refuses an unknown mode', async () => {
    const solo = await login('solo@acme.example');
    const created = await request('/dashboard/keys', { session: solo, form: { _csrf: solo.csrf, name: 'Sandbox', mode: 'test' } });
    assert.equal(created.status, 201);
    const page = await created.text();
    const plaintext = /data-testid="plaintext-key">([^<]+)</.exec(page)?.[1] ?? '';
    assert.match(plaintext, /^crk_test-/, page);
    assert.match(
      await (await request('/dashboard/keys', { session: solo })).text(),
      /crk_test\.\.\.\w{4}<\/code> <span class="muted">test mode/,
    );
    const refused = await request('/dashboard/keys', { session: solo, form: { _csrf: solo.csrf, name: 'x', mode: 'sandbox' } });
    assert.equal(refused.status, 400);
  });

  it('rotates with the grace period shown, and revokes', async () => {
    const solo = await login('solo@acme.example');
    const [key] = await t.application.accounts.listKeys({ kind: 'user', userId: users.solo, role: 'MEMBER', organizationId: null });
    const rotated = await request(`/dashboard/keys/${key!.keyId}/rotate`, { session: solo, form: { _csrf: solo.csrf } });
    assert.equal(rotated.status, 200);
    const page = await rotated.text();
    const grace = /until <strong>([^<]+)<\/strong>/.exec(page)?.[1];
    assert.ok(grace);
    const rows = await t.application.accounts.listKeys({ kind: 'user', userId: users.solo, role: 'MEMBER', organizationId: null });
    assert.equal(new Date(rows.find((r) => r.keyId === key!.keyId)!.graceEndsAt!).toISOString(), grace);
    assert.ok(Math.abs(Date.parse(grace) - Date.now() - 24 * 3600_000) < 60_000);
    const revoked = await request(`/dashboard/keys/${key!.keyId}/revoke`, { session: solo, form: { _csrf: solo.csrf } });
    assert.equal(revoked.status, 200);
    assert.match(await revoked.text(), /Key revoked/);
    const after = await t.application.accounts.listKeys({ kind: 'user', userId: users.solo, role: 'MEMBER', organizationId: null });
    assert.equal(after.find((r) => r.keyId === key!.keyId)?.status, 'revoked');
  });

  it('keeps a MEMBER to their own keys and calls, away from colleagues’ keys and the shared ledger', async () => {
    const alice = await login('alice@acme.example');
    const keys = await (await request('/dashboard/keys', { session: alice })).text();
    assert.equal(keys.includes(bobKey.id), false);
    const rotate = await request(`/dashboard/keys/${bobKey.id}/rotate`, { session: alice, form: { _csrf: alice.csrf } });
    const revoke = await request(`/dashboard/keys/${bobKey.id}/revoke`, { session: alice, form: { _csrf: alice.csrf } });
    assert.deepEqual([rotate.status, revoke.status], [404, 404]);
    assert.equal((await keyed(bobKey.fullKey, '/me')).status, 200, "bob's key still works");
    assert.equal((await request('/dashboard/ledger', { session: alice })).status, 403);
    const csv = await request('/dashboard/ledger.csv', { session: alice });
    assert.equal(csv.status, 403);
    assert.equal((await csv.text()).includes('CreditsGranted'), false);
    const usage = await (await request('/dashboard/usage', { session: alice })).text();
    assert.match(usage, /data-endpoint="\/me"\s+data-calls="2"/);
    assert.equal(usage.includes('/judges/search'), false);
    const audit = await (await request('/dashboard/audit', { session: alice })).text();
    assert.equal(audit.includes('/judges/search'), false);
    assert.equal(audit.includes(users.bob), false);
    assert.match(audit, /2 calls/);
  });

  it('shows an ORG_ADMIN the organisation’s keys, calls and ledger, whose CSV is the ledger', async () => {
    const admin = await login('admin@acme.example');
    assert.match(await (await request('/dashboard/keys', { session: admin })).text(), new RegExp(bobKey.id));
    const usage = await (await request('/dashboard/usage', { session: admin })).text();
    assert.match(usage, /data-endpoint="\/judges\/search"\s+data-calls="1"/);
    assert.match(usage, /data-endpoint="\/me"\s+data-calls="2"/);
    const ledgerPage = await request('/dashboard/ledger', { session: admin });
    assert.equal(ledgerPage.status, 200);
    assert.match(await ledgerPage.text(), /data-testid="balance">499</);
    const csv = await request('/dashboard/ledger.csv', { session: admin });
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', new RegExp(`attachment; filename="ledger-${organizationId}-`));
    const expected = [];
    for await (const row of exportLedger(eventStoreOf(database.db), {
      from: new Date(0),
      to: new Date(Date.now() + 1000),
      accountId: organizationId,
    })) {
      expected.push(LEDGER_CSV_COLUMNS.map((column) => (row[column] === null ? '' : String(row[column]))));
    }
    assert.equal(expected.length, 2, 'a grant and a charge');
    assert.deepEqual(csvRows(await csv.text()), [[...LEDGER_CSV_COLUMNS], ...expected]);
  });

  it('answers the topUpUrl of a real 402 and the upgradeUrl of a real tier refusal with their pages', async () => {
    const { accounts } = t.application;
    const brokeKey = await accounts.createKey(users.broke, 'k', operator);
    const freeKey = await accounts.createKey(users.free, 'k', operator);
    assert.ok(brokeKey.ok && freeKey.ok);
    const refused = await keyed(brokeKey.value.fullKey, '/judges/search?q=chandrachud');
    assert.equal(refused.status, 402);
    const { topUpUrl } = (await refused.json()) as { topUpUrl: string };
    const tier = await keyed(freeKey.value.fullKey, '/party/screen/batch', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ purpose: 'kyc', items: [{ name: 'Hakam Shah', entityType: 'person' }] }),
    });
    assert.equal(tier.status, 403);
    const { upgradeUrl } = (await tier.json()) as { upgradeUrl: string };
    const broke = await login('broke@acme.example');
    const billing = await request(new URL(topUpUrl, ORIGIN).pathname, { session: broke });
    assert.equal(billing.status, 200);
    const billingPage = await billing.text();
    assert.match(billingPage, /<h2>Top up<\/h2>/);
    assert.match(billingPage, new RegExp(`data-testid="billing-account">${users.broke}<`));
    const free = await login('free@acme.example');
    const plans = await request(new URL(upgradeUrl, ORIGIN).pathname, { session: free });
    assert.equal(plans.status, 200);
    assert.match(await plans.text(), /data-testid="current-plan">Free \(Developer\)</);
    // Without a session the same links lead through the login form and back.
    assert.equal(
      (await request(new URL(topUpUrl, ORIGIN).pathname)).headers.get('location'),
      '/dashboard/login?next=%2Fdashboard%2Fbilling',
    );
  });

  it('registers a webhook endpoint with its secret shown once, rotates it, refuses bad input, and removes it', async () => {
    const solo = await login('solo@acme.example');
    const form = (fields: Record<string, string>) => ({ _csrf: solo.csrf, ...fields });
    const registered = await request('/dashboard/webhooks', {
      session: solo,
      form: form({ url: 'http://127.0.0.1:9/hooks', 'event:analysis.stored': 'on', 'event:timeline.completed': 'on' }),
    });
    assert.equal(registered.status, 201);
    const secret = /data-testid="webhook-secret">(whsec_[^<]+)</.exec(await registered.text())?.[1];
    assert.ok(secret, 'the secret is shown');
    const [endpoint] = await t.webhooks.endpoints.list(users.solo);
    assert.ok(endpoint);
    assert.deepEqual([endpoint.eventTypes, endpoint.mode], [['analysis.stored', 'timeline.completed'], 'live']);
    const listed = await (await request('/dashboard/webhooks', { session: solo })).text();
    assert.ok(listed.includes('http://127.0.0.1:9/hooks') && !listed.includes(secret), 'listed, without the secret');

    const rotated = await request(`/dashboard/webhooks/${endpoint.id}/rotate`, { session: solo, form: form({}) });
    const next = /data-testid="webhook-secret">(whsec_[^<]+)</.exec(await rotated.text())?.[1];
    assert.ok(next && next !== secret, 'a new secret, shown once');

    // Send test event, then resend its delivery: each is queued as a pending delivery with a Resend button.
    const tested = await request(`/dashboard/webhooks/${endpoint.id}/test`, { session: solo, form: form({}) });
    assert.equal(tested.status, 200);
    assert.match(await tested.text(), /data-testid="delivery-queued">A test analysis\.stored event queued/);
    const [queued] = (await t.webhooks.endpoints.deliveries(users.solo, endpoint.id, 5)) ?? [];
    assert.equal(queued?.status, 'pending');
    const resent = await request(`/dashboard/webhooks/deliveries/${queued.id}/resend`, { session: solo, form: form({}) });
    const page = await resent.text();
    assert.match(page, /A resend of the analysis\.stored event queued/);
    assert.equal(page.match(/>Resend<\/button>/g)?.length, 2);
    assert.equal((await t.webhooks.endpoints.deliveries(users.solo, endpoint.id, 5))?.length, 2);
    assert.equal((await request(`/dashboard/webhooks/${endpoint.id}/test`, { session: solo, form: {} })).status, 403, 'CSRF checked');

    const bad: Record<string, string>[] = [
      { url: 'ftp://example.in/x', 'event:analysis.stored': 'on' },
      { url: 'https://hooks.example.in/x' },
      { url: 'https://hooks.example.in/x', 'event:analysis.stored': 'on', mode: 'sandbox' },
    ];
    for (const fields of bad) {
      const refused = await request('/dashboard/webhooks', { session: solo, form: form(fields) });
      assert.equal(refused.status, 400, JSON.stringify(fields));
      assert.match(await refused.text(), /role="alert"/);
    }
    const forged = await request('/dashboard/webhooks', {
      session: solo,
      form: { url: 'https://hooks.example.in/y', 'event:analysis.stored': 'on' },
    });
    assert.equal(forged.status, 403);
    assert.equal((await t.webhooks.endpoints.list(users.solo)).length, 1, 'nothing registered by the refused forms');

    // Another account's session cannot remove it.
    const other = await login('broke@acme.example');
    const foreign = await request(`/dashboard/webhooks/${endpoint.id}/remove`, { session: other, form: { _csrf: other.csrf } });
    assert.equal(foreign.status, 404);
    const foreignResend = await request(`/dashboard/webhooks/deliveries/${queued.id}/resend`, {
      session: other,
      form: { _csrf: other.csrf },
    });
    assert.equal(foreignResend.status, 404);
    const removed = await request(`/dashboard/webhooks/${endpoint.id}/remove`, { session: solo, form: form({}) });
    assert.equal(removed.status, 200);
    assert.deepEqual(await t.webhooks.endpoints.list(users.solo), []);

    // Test mode's endpoint: chosen on the form, shown as such.
    const test = await request('/dashboard/webhooks', {
      session: solo,
      form: form({ url: 'http://127.0.0.1:9/test-hooks', 'event:timeline.completed': 'on', mode: 'test' }),
    });
    assert.equal(test.status, 201);
    const [testEndpoint] = await t.webhooks.endpoints.list(users.solo);
    assert.equal(testEndpoint?.mode, 'test');
    assert.match(await (await request('/dashboard/webhooks', { session: solo })).text(), /test mode<\/span> · timeline\.completed/);
    await request(`/dashboard/webhooks/${testEndpoint.id}/remove`, { session: solo, form: form({}) });
  });

  it('is not in either OpenAPI document', async () => {
    for (const path of ['/openapi.json', `${BASE}/openapi.json`]) {
      const document = (await (await t.app.request(path)).json()) as { paths: Record<string, unknown> };
      assert.equal(
        Object.keys(document.paths).some((p) => p.startsWith('/dashboard')),
        false,
        path,
      );
    }
  });
});
