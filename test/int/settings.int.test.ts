/**
 * The dashboard-session routes under /api/settings through the real app over a real
 * database: login (and that a wrong password and an unknown email are indistinguishable),
 * the cookie's attributes, CSRF on every state-changing route, key creation with its
 * tier rules and cap (also under parallel requests), rotation in the spec's shape,
 * organisation ownership without revealing foreign keys, revocation and logout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NewUser } from '../../src/application/accounts/accounts-service.ts';
import { sha256Hex } from '../../src/application/sessions/tokens.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildTestApp, SettableClock } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

type Body = Record<string, unknown>;
type Session = { cookie: string; csrf: string; userId?: string };

const PASSWORD = 'correct horse battery staple';
const KEY_SHAPE = /^crk_live-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/;
const HOUR = 60 * 60;

for (const factory of databases) {
  describe(`dashboard settings routes (${factory.name})`, () => {
    let database: TestDatabase;
    let app: App;
    const clock = new SettableClock(new Date('2026-03-02T09:00:00.000Z'));
    const operator = { kind: 'operator' } as const;
    const emails = {
      admin: 'admin@acme-legal.example',
      alice: 'alice@acme-legal.example',
      bob: 'bob@acme-legal.example',
      otherAdmin: 'admin@other-firm.example',
      unverified: 'new@free.example',
      capped: 'capped@free.example',
      racer: 'racer@payg.example',
    };

    before(async () => {
      database = await factory.open();
      const built = buildTestApp({ db: database.db, clock });
      app = built.app;
      const { accounts } = built.application;

      const organization = async (name: string) => {
        const result = await accounts.createOrganization({ name, allowlist: [], strictAllowlist: false }, operator);
        assert.ok(result.ok);
        return result.value.organizationId;
      };
      const acme = await organization('Acme Legal LLP');
      const other = await organization('Other Firm');
      const base: Omit<NewUser, 'email'> = {
        name: 'Priya Raman',
        tier: 'enterprise',
        organizationId: null,
        role: 'MEMBER',
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: PASSWORD,
        limitOverrides: {},
      };
      const users: NewUser[] = [
        { ...base, email: emails.admin, organizationId: acme, role: 'ORG_ADMIN' },
        { ...base, email: emails.alice, organizationId: acme },
        { ...base, email: emails.bob, organizationId: acme },
        { ...base, email: emails.otherAdmin, organizationId: other, role: 'ORG_ADMIN' },
        { ...base, email: emails.unverified, tier: 'free', emailVerified: false },
        { ...base, email: emails.capped, tier: 'free' },
        { ...base, email: emails.racer, tier: 'payg', limitOverrides: { apiKeys: 3 } },
      ];
      for (const user of users) assert.ok((await accounts.registerUser(user, operator)).ok);
    });
    after(async () => database.close());

    async function call(
      method: string,
      path: string,
      options: { session?: Session; csrf?: string | null; body?: Body; url?: string } = {},
    ) {
      const headers: Record<string, string> = {};
      if (options.session) headers.Cookie = options.session.cookie;
      const csrf = options.csrf === undefined ? options.session?.csrf : options.csrf;
      if (csrf !== undefined && csrf !== null) headers['X-CSRF-Token'] = csrf;
      if (options.body !== undefined) headers['Content-Type'] = 'application/json';
      const res = await app.request(`${options.url ?? 'http://localhost'}${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      return { res, body: (await res.json()) as Body };
    }

    async function expectCode(result: { res: Response; body: Body }, status: number, code: string) {
      assert.equal(result.res.status, status, JSON.stringify(result.body));
      assert.equal(result.body.success, false);
      assert.equal(result.body.code, code);
      assert.equal(result.body.requestId, result.res.headers.get('x-request-id'));
    }

    function sessionCookie(res: Response): string {
      const match = /^session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
      assert.ok(match, 'a session cookie is set');
      return match[1]!;
    }

    async function login(email: string): Promise<Session> {
      const { res, body } = await call('POST', '/api/settings/login', { body: { email, password: PASSWORD } });
      assert.equal(res.status, 200, JSON.stringify(body));
      const data = body.data as Body;
      return { cookie: `session=${sessionCookie(res)}`, csrf: data.csrfToken as string, userId: data.userId as string };
    }

    async function createKey(session: Session, name: string) {
      const { res, body } = await call('POST', '/api/settings/api-keys', { session, body: { name } });
      assert.equal(res.status, 201, JSON.stringify(body));
      return body.data as { id: string; name: string; fullKey: string; displayKey: string };
    }

    async function listKeys(session: Session) {
      const { res, body } = await call('GET', '/api/settings/api-keys', { session });
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.data as Body[];
    }

    describe('login', () => {
      it('logs in, stores only a hash of the token, and reports the user', async () => {
        const { res, body } = await call('POST', '/api/settings/login', {
          body: { email: ' Alice@Acme-Legal.example ', password: PASSWORD },
        });
        assert.equal(res.status, 200, JSON.stringify(body));
        const data = body.data as Body;
        assert.equal(body.success, true);
        assert.match(data.userId as string, /^usr_/);
        assert.match(data.csrfToken as string, /^[A-Za-z0-9_-]{43}$/);
        assert.equal(data.expiresAt, new Date(clock.now().getTime() + 12 * HOUR * 1000).toISOString());

        const token = sessionCookie(res);
        const rows = await database.db
          .selectFrom('dashboardSessions')
          .select('sessionHash')
          .where('userId', '=', data.userId as string)
          .execute();
        assert.ok(
          rows.every((row) => row.sessionHash !== token),
          'the token itself is never stored',
        );
        const hash = await sha256Hex(token);
        assert.ok(rows.some((row) => row.sessionHash === hash));

        const session = await call('GET', '/api/settings/session', { session: { cookie: `session=${token}`, csrf: '' }, csrf: null });
        assert.equal(session.res.status, 200, JSON.stringify(session.body));
        const view = session.body.data as { user: Body; csrfToken: string; expiresAt: string };
        assert.deepEqual(view.user, {
          userId: data.userId,
          email: emails.alice,
          role: 'MEMBER',
          organizationId: view.user.organizationId,
          tier: 'enterprise',
        });
        assert.match(view.user.organizationId as string, /^org_/);
        assert.equal(view.csrfToken, data.csrfToken);
        assert.equal(view.expiresAt, data.expiresAt);
      });

      it('answers a wrong password and an unknown email with the same 401 body', async () => {
        const wrong = await call('POST', '/api/settings/login', { body: { email: emails.alice, password: 'not the password' } });
        const unknown = await call('POST', '/api/settings/login', { body: { email: 'nobody@nowhere.example', password: PASSWORD } });
        await expectCode(wrong, 401, 'INVALID_CREDENTIALS');
        await expectCode(unknown, 401, 'INVALID_CREDENTIALS');
        const { requestId: _a, ...wrongBody } = wrong.body;
        const { requestId: _b, ...unknownBody } = unknown.body;
        assert.deepEqual(wrongBody, unknownBody);
        assert.equal(wrong.res.headers.get('set-cookie'), null);
        assert.equal(unknown.res.headers.get('set-cookie'), null);
      });

      it('refuses a malformed login body with 400', async () => {
        await expectCode(await call('POST', '/api/settings/login', { body: { email: emails.alice } }), 400, 'VALIDATION_ERROR');
      });

      it('sets an HttpOnly, SameSite=Lax cookie scoped to /api/settings, Secure only over HTTPS', async () => {
        const plain = await call('POST', '/api/settings/login', { body: { email: emails.alice, password: PASSWORD } });
        const cookie = plain.res.headers.get('set-cookie') ?? '';
        const attributes = cookie.split(';').map((part) => part.trim());
        assert.ok(attributes.includes('HttpOnly'), cookie);
        assert.ok(attributes.includes('SameSite=Lax'), cookie);
        assert.ok(attributes.includes('Path=/api/settings'), cookie);
        assert.ok(attributes.includes(`Max-Age=${12 * HOUR}`), cookie);
        assert.ok(!attributes.includes('Secure'), cookie);

        const https = await call('POST', '/api/settings/login', {
          url: 'https://dashboard.example',
          body: { email: emails.alice, password: PASSWORD },
        });
        assert.ok(
          (https.res.headers.get('set-cookie') ?? '')
            .split(';')
            .map((p) => p.trim())
            .includes('Secure'),
        );
      });

      it('believes X-Forwarded-Proto only when the proxy is trusted', async () => {
        const forwarded = async (target: App) =>
          target.request('http://localhost/api/settings/login', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https' },
            body: JSON.stringify({ email: emails.alice, password: PASSWORD }),
          });
        const secure = (res: Response) =>
          (res.headers.get('set-cookie') ?? '')
            .split(';')
            .map((p) => p.trim())
            .includes('Secure');
        assert.equal(secure(await forwarded(app)), false);

        const { app: proxied } = buildTestApp({ db: database.db, clock, trustProxy: true });
        assert.equal(secure(await forwarded(proxied)), true);
      });
    });

    describe('session and CSRF', () => {
      it('answers 401 SESSION_REQUIRED without a session or with an unknown one', async () => {
        await expectCode(await call('GET', '/api/settings/session'), 401, 'SESSION_REQUIRED');
        await expectCode(await call('GET', '/api/settings/api-keys'), 401, 'SESSION_REQUIRED');
        const forged = { cookie: 'session=Zm9yZ2VkLXNlc3Npb24tdG9rZW4tdGhhdC1kb2VzLW5vdC1leGlzdA', csrf: 'x' };
        await expectCode(await call('GET', '/api/settings/session', { session: forged }), 401, 'SESSION_REQUIRED');
        await expectCode(await call('POST', '/api/settings/api-keys', { session: forged, body: { name: 'x' } }), 401, 'SESSION_REQUIRED');
      });

      it('needs X-CSRF-Token equal to the session token on every state-changing route', async () => {
        const alice = await login(emails.alice);
        const key = await createKey(alice, 'CSRF target');
        const other = await login(emails.alice);
        const attempts = [
          ['POST', '/api/settings/api-keys', { name: 'csrf' }],
          ['POST', `/api/settings/api-keys/${key.id}/rotate`, undefined],
          ['DELETE', `/api/settings/api-keys/${key.id}`, undefined],
          ['POST', '/api/settings/logout', undefined],
        ] as const;
        for (const [method, path, body] of attempts) {
          const options = body === undefined ? {} : { body: { ...body } };
          await expectCode(await call(method, path, { session: alice, csrf: null, ...options }), 403, 'CSRF_TOKEN_INVALID');
          await expectCode(await call(method, path, { session: alice, csrf: 'wrong', ...options }), 403, 'CSRF_TOKEN_INVALID');
          // Another live session's token does not count either.
          await expectCode(await call(method, path, { session: alice, csrf: other.csrf, ...options }), 403, 'CSRF_TOKEN_INVALID');
        }
        const keys = await listKeys(alice);
        assert.equal(keys.find((k) => k.id === key.id)?.status, 'active');
        assert.equal((await call('GET', '/api/settings/session', { session: alice })).res.status, 200);
      });

      it('logs out: the old cookie stops working and the cookie is cleared', async () => {
        const bob = await login(emails.bob);
        const { res, body } = await call('POST', '/api/settings/logout', { session: bob });
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.deepEqual(body, { success: true, data: { loggedOut: true } });
        const cleared = res.headers.get('set-cookie') ?? '';
        assert.match(cleared, /^session=;/);
        assert.match(cleared, /Max-Age=0/);
        await expectCode(await call('GET', '/api/settings/session', { session: bob }), 401, 'SESSION_REQUIRED');
        await expectCode(await call('POST', '/api/settings/logout', { session: bob }), 401, 'SESSION_REQUIRED');
      });
    });

    describe('API keys', () => {
      it('creates a key whose plaintext is shown once and never listed', async () => {
        const alice = await login(emails.alice);
        const { res, body } = await call('POST', '/api/settings/api-keys', { session: alice, body: { name: '  Research notebook ' } });
        assert.equal(res.status, 201, JSON.stringify(body));
        const key = body.data as Body;
        assert.deepEqual(Object.keys(key).sort(), ['displayKey', 'fullKey', 'id', 'mode', 'name']);
        assert.equal(key.mode, 'live');
        assert.equal(key.name, 'Research notebook');
        assert.match(key.fullKey as string, KEY_SHAPE);
        assert.equal(key.displayKey, `crk_live...${(key.fullKey as string).slice(-4)}`);

        const keys = await listKeys(alice);
        const listed = keys.find((k) => k.id === key.id);
        assert.deepEqual(listed, {
          id: key.id,
          name: 'Research notebook',
          displayKey: key.displayKey,
          mode: 'live',
          status: 'active',
          userId: alice.userId,
          createdAt: clock.now().toISOString(),
          expiresAt: null,
        });
        const text = JSON.stringify(keys);
        assert.ok(!text.includes(key.fullKey as string), 'the plaintext is never listed');
        assert.ok(!/keyHash|hash/i.test(text), 'no hash is listed');
      });

      it('refuses an empty name with 400', async () => {
        const alice = await login(emails.alice);
        await expectCode(await call('POST', '/api/settings/api-keys', { session: alice, body: { name: '   ' } }), 400, 'VALIDATION_ERROR');
      });

      it('refuses a Free user with an unverified email: EMAIL_NOT_VERIFIED', async () => {
        const user = await login(emails.unverified);
        await expectCode(
          await call('POST', '/api/settings/api-keys', { session: user, body: { name: 'first' } }),
          403,
          'EMAIL_NOT_VERIFIED',
        );
        assert.deepEqual(await listKeys(user), []);
      });

      it("refuses a key over the tier's cap: API_KEY_LIMIT_REACHED", async () => {
        const user = await login(emails.capped);
        await createKey(user, 'one');
        await createKey(user, 'two');
        await expectCode(
          await call('POST', '/api/settings/api-keys', { session: user, body: { name: 'three' } }),
          403,
          'API_KEY_LIMIT_REACHED',
        );
        assert.equal((await listKeys(user)).length, 2);
      });

      it('cannot exceed the cap under parallel requests', async () => {
        const user = await login(emails.racer);
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => call('POST', '/api/settings/api-keys', { session: user, body: { name: `parallel ${i}` } })),
        );
        const created = results.filter((r) => r.res.status === 201);
        const refused = results.filter((r) => r.res.status === 403);
        assert.equal(created.length, 3, JSON.stringify(results.map((r) => r.body)));
        assert.equal(refused.length, 5);
        for (const r of refused) assert.equal(r.body.code, 'API_KEY_LIMIT_REACHED');
        assert.equal((await listKeys(user)).length, 3);
      });

      it('rotates in the spec shape: name suffixed, old key in grace for 24 hours, then expired', async () => {
        const alice = await login(emails.alice);
        const old = await createKey(alice, 'Rotate me');
        const { res, body } = await call('POST', `/api/settings/api-keys/${old.id}/rotate`, { session: alice });
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.success, true);
        const data = body.data as { message: string; apiKey: Body; rotatedFrom: Body };
        assert.deepEqual(Object.keys(data).sort(), ['apiKey', 'message', 'rotatedFrom']);
        assert.equal(typeof data.message, 'string');
        assert.ok(data.message.length > 0);
        assert.deepEqual(Object.keys(data.apiKey).sort(), ['displayKey', 'fullKey', 'id', 'mode', 'name']);
        assert.equal(data.apiKey.name, 'Rotate me (rotated)');
        assert.notEqual(data.apiKey.id, old.id);
        assert.match(data.apiKey.fullKey as string, KEY_SHAPE);
        assert.notEqual(data.apiKey.fullKey, old.fullKey);
        assert.equal(data.apiKey.displayKey, `crk_live...${(data.apiKey.fullKey as string).slice(-4)}`);
        const graceEnd = new Date(clock.now().getTime() + 24 * HOUR * 1000).toISOString();
        assert.deepEqual(data.rotatedFrom, { id: old.id, expiresAt: graceEnd });

        const listed = await listKeys(alice);
        const summary = (id: unknown) => listed.filter((k) => k.id === id).map((k) => ({ status: k.status, expiresAt: k.expiresAt }));
        assert.deepEqual(summary(old.id), [{ status: 'grace', expiresAt: graceEnd }]);
        assert.deepEqual(summary(data.apiKey.id), [{ status: 'active', expiresAt: null }]);
        await expectCode(await call('POST', `/api/settings/api-keys/${old.id}/rotate`, { session: alice }), 409, 'API_KEY_NOT_ACTIVE');

        clock.advanceSeconds(24 * HOUR + 1);
        const later = await login(emails.alice);
        const after = await listKeys(later);
        assert.equal(after.find((k) => k.id === old.id)?.status, 'expired');
        assert.equal(after.find((k) => k.id === data.apiKey.id)?.status, 'active');
      });

      it('issues test keys (crk_test): listed with their mode, capped apart from live keys, rotated into test keys', async () => {
        const user = await login(emails.capped);
        const live = (await listKeys(user)).filter((k) => k.mode === 'live').length;
        for (let i = live; i < 2; i += 1) await createKey(user, `live ${i}`);
        const { res, body } = await call('POST', '/api/settings/api-keys', { session: user, body: { name: 'sandbox', mode: 'test' } });
        assert.equal(res.status, 201, JSON.stringify(body));
        const test = body.data as { id: string; fullKey: string; displayKey: string; mode: string };
        assert.match(test.fullKey, /^crk_test-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/);
        assert.deepEqual([test.mode, test.displayKey], ['test', `crk_test...${test.fullKey.slice(-4)}`]);
        assert.equal((await listKeys(user)).find((k) => k.id === test.id)?.mode, 'test');
        await expectCode(
          await call('POST', '/api/settings/api-keys', { session: user, body: { name: 'live 3' } }),
          403,
          'API_KEY_LIMIT_REACHED',
        );
        const rotated = await call('POST', `/api/settings/api-keys/${test.id}/rotate`, { session: user });
        assert.equal(rotated.res.status, 200, JSON.stringify(rotated.body));
        const replacement = (rotated.body.data as { apiKey: { fullKey: string; mode: string } }).apiKey;
        assert.deepEqual([replacement.mode, replacement.fullKey.slice(0, 9)], ['test', 'crk_test-']);
        await expectCode(
          await call('POST', '/api/settings/api-keys', { session: user, body: { name: 'x', mode: 'sandbox' } }),
          400,
          'VALIDATION_ERROR',
        );
        // This app has no test mode (as with TEST_MODE=false): the live gate refuses a test key without looking it up.
        const refused = await app.request(`http://localhost/api/v1/prod/me`, { headers: { 'X-API-Key': replacement.fullKey } });
        assert.equal(refused.status, 401);
        const refusal = (await refused.json()) as Body;
        assert.equal(refusal.code, 'API_KEY_INVALID');
        assert.match(String(refusal.message), /test mode is off/);
      });

      it('rotation always works: a key named at the cap, rotated again and again, keeps " (rotated)" within the cap', async () => {
        const alice = await login(emails.alice);
        let current = await createKey(alice, 'N'.repeat(120));
        for (let i = 0; i < 14; i += 1) {
          const { res, body } = await call('POST', `/api/settings/api-keys/${current.id}/rotate`, { session: alice });
          assert.equal(res.status, 200, `rotation ${String(i + 1)}: ${JSON.stringify(body)}`);
          const next = (body.data as { apiKey: { id: string; name: string; fullKey: string; displayKey: string } }).apiKey;
          assert.ok(next.name.length <= 120 && next.name.endsWith(' (rotated)'), next.name);
          current = next;
        }
      });

      it('lets an ORG_ADMIN rotate and revoke a colleague key; the replacement stays with the colleague', async () => {
        const bob = await login(emails.bob);
        const key = await createKey(bob, 'Bob laptop');
        const admin = await login(emails.admin);
        assert.ok(
          (await listKeys(admin)).some((k) => k.id === key.id),
          'an ORG_ADMIN sees the organisation keys',
        );

        const rotated = await call('POST', `/api/settings/api-keys/${key.id}/rotate`, { session: admin });
        assert.equal(rotated.res.status, 200, JSON.stringify(rotated.body));
        const replacement = (rotated.body.data as { apiKey: { id: string; name: string } }).apiKey;
        assert.equal(replacement.name, 'Bob laptop (rotated)');
        assert.ok(
          (await listKeys(bob)).some((k) => k.id === replacement.id),
          'the replacement belongs to Bob',
        );

        const revoked = await call('DELETE', `/api/settings/api-keys/${replacement.id}`, { session: admin });
        assert.equal(revoked.res.status, 200, JSON.stringify(revoked.body));
      });

      it('hides a colleague key from a MEMBER and every key from another organisation (404, as for no key)', async () => {
        const bob = await login(emails.bob);
        const key = await createKey(bob, 'Not yours');
        const alice = await login(emails.alice);
        const otherAdmin = await login(emails.otherAdmin);
        assert.ok(!(await listKeys(alice)).some((k) => k.id === key.id));
        assert.ok(!(await listKeys(otherAdmin)).some((k) => k.id === key.id));

        const missing = await call('POST', '/api/settings/api-keys/key_does-not-exist/rotate', { session: alice });
        await expectCode(missing, 404, 'API_KEY_NOT_FOUND');
        for (const session of [alice, otherAdmin]) {
          const rotate = await call('POST', `/api/settings/api-keys/${key.id}/rotate`, { session });
          await expectCode(rotate, 404, 'API_KEY_NOT_FOUND');
          assert.equal(rotate.body.message, missing.body.message);
          await expectCode(await call('DELETE', `/api/settings/api-keys/${key.id}`, { session }), 404, 'API_KEY_NOT_FOUND');
        }
        assert.equal((await listKeys(bob)).find((k) => k.id === key.id)?.status, 'active');
      });

      it('revokes softly: the key stays listed as revoked, and revoking again answers the same', async () => {
        const alice = await login(emails.alice);
        const key = await createKey(alice, 'Short lived');
        const { res, body } = await call('DELETE', `/api/settings/api-keys/${key.id}`, { session: alice });
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.deepEqual(body, { success: true, data: { id: key.id, revoked: true } });
        assert.equal((await listKeys(alice)).find((k) => k.id === key.id)?.status, 'revoked');
        assert.equal((await call('DELETE', `/api/settings/api-keys/${key.id}`, { session: alice })).res.status, 200);
        await expectCode(await call('POST', `/api/settings/api-keys/${key.id}/rotate`, { session: alice }), 409, 'API_KEY_NOT_ACTIVE');
      });
    });

    describe('OpenAPI', () => {
      it('documents every settings route with its security and error codes', () => {
        const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'settings', version: 'test' } });
        const paths = doc.paths ?? {};
        const operations = [
          ['/api/settings/login', 'post'],
          ['/api/settings/logout', 'post'],
          ['/api/settings/session', 'get'],
          ['/api/settings/api-keys', 'get'],
          ['/api/settings/api-keys', 'post'],
          ['/api/settings/api-keys/{id}/rotate', 'post'],
          ['/api/settings/api-keys/{id}', 'delete'],
        ] as const;
        for (const [path, method] of operations) assert.ok(paths[path]?.[method], `${method} ${path} documented`);
        const keys = paths['/api/settings/api-keys'];
        assert.deepEqual(
          [keys?.post?.security, keys?.get?.security],
          [[{ dashboardSession: [], csrfToken: [] }], [{ dashboardSession: [] }]],
        );
        // Public, and said so: an empty requirement list, not an absent one.
        assert.deepEqual(paths['/api/settings/login']?.post?.security, []);
        assert.ok(paths['/api/settings/api-keys/{id}/rotate']?.post?.responses?.['404']);
        assert.ok(doc.components?.securitySchemes?.dashboardSession);
      });
    });

    describe('expiry', () => {
      it('expires a session 12 hours after login', async () => {
        const alice = await login(emails.alice);
        clock.advanceSeconds(12 * HOUR - 1);
        assert.equal((await call('GET', '/api/settings/session', { session: alice })).res.status, 200);
        clock.advanceSeconds(1);
        await expectCode(await call('GET', '/api/settings/session', { session: alice }), 401, 'SESSION_REQUIRED');
        await expectCode(await call('POST', '/api/settings/api-keys', { session: alice, body: { name: 'late' } }), 401, 'SESSION_REQUIRED');
      });
    });
  });
}
