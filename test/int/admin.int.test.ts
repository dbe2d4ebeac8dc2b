/**
 * The operator admin API through the real app over a real PGlite holding real eCourts
 * records: the bearer gate (and the API being absent without a token), each operation's
 * result and its refusals as coded errors, and case restriction's flag plus audit event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildTestApp, KEY_HASH_SECRET, KEY_PREFIXES, SettableClock } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const TOKEN = 'admin-token-for-integration-tests';

type Body = Record<string, unknown>;

describe('admin API', () => {
  let database: TestDatabase;
  let app: App;
  let caseId: string;
  const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
  const keys = new HmacApiKeyCodec(KEY_PREFIXES, KEY_HASH_SECRET);

  before(async () => {
    database = await databases[0]!.open();
    await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [ecourtsHcSource] });
    const row = await database.db.selectFrom('cases').select('caseId').orderBy('caseId').executeTakeFirstOrThrow();
    caseId = row.caseId;
    ({ app } = buildTestApp({ db: database.db, clock, adminToken: TOKEN }));
  });
  after(async () => database.close());

  async function call(method: string, path: string, body?: Body, token: string | null = TOKEN) {
    const headers: Record<string, string> = {};
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await app.request(path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { res, body: (await res.json()) as Body };
  }

  async function expectOk(method: string, path: string, body: Body | undefined, status: number): Promise<Body> {
    const result = await call(method, path, body);
    assert.equal(result.res.status, status, JSON.stringify(result.body));
    assert.equal(result.body.success, true);
    return result.body.data as Body;
  }

  async function expectCode(method: string, path: string, body: Body | undefined, status: number, code: string): Promise<Body> {
    const result = await call(method, path, body);
    assert.equal(result.res.status, status, JSON.stringify(result.body));
    assert.equal(result.body.code, code);
    assert.equal(result.body.requestId, result.res.headers.get('x-request-id'));
    return result.body;
  }

  const createOrganization = async (body: Body = { name: 'Acme Legal LLP' }) =>
    (await expectOk('POST', '/admin/organizations', body, 201)).organizationId as string;
  let emailCounter = 0;
  const createUser = async (extra: Body = {}) => {
    emailCounter += 1;
    const body = { email: `user${emailCounter}@acme-legal.example`, name: 'Priya Raman', tier: 'enterprise', ...extra };
    return (await expectOk('POST', '/admin/users', body, 201)).userId as string;
  };

  describe('the bearer gate', () => {
    it('does not exist without a token: /admin is an unknown route', async () => {
      const { app: bare } = buildTestApp({ db: database.db, clock });
      const res = await bare.request('/admin/organizations', { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as Body).code, 'ROUTE_NOT_FOUND');
    });

    it('refuses a missing, wrong, truncated or non-bearer token with 401 ADMIN_UNAUTHORIZED', async () => {
      const attempts: (string | null)[] = [null, 'x'.repeat(TOKEN.length), TOKEN.slice(0, -1), `${TOKEN}x`, ''];
      for (const token of attempts) {
        const { res, body } = await call('POST', '/admin/organizations', { name: 'Nope' }, token);
        assert.equal(res.status, 401, `token ${String(token)}`);
        assert.equal(body.code, 'ADMIN_UNAUTHORIZED');
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="admin"');
      }
      const basic = await app.request('/admin/organizations', {
        method: 'POST',
        headers: { Authorization: `Basic ${btoa(`admin:${TOKEN}`)}` },
      });
      assert.equal(basic.status, 401);
      assert.equal(await database.db.selectFrom('organizations').select('name').where('name', '=', 'Nope').executeTakeFirst(), undefined);
    });

    it('answers unknown admin paths with 401 before revealing whether they exist', async () => {
      assert.equal((await call('GET', '/admin/no-such-thing', undefined, null)).res.status, 401);
      assert.equal((await call('GET', '/admin', undefined, null)).res.status, 401);
      assert.equal((await call('GET', '/admin/no-such-thing')).res.status, 404);
    });
  });

  describe('organisations', () => {
    it('creates an organisation with an allowlist, recorded as the operator', async () => {
      const organizationId = await createOrganization({
        name: '  Acme Legal LLP ',
        allowlist: ['203.0.113.0/24', ' 2001:db8::/32'],
        strictAllowlist: true,
      });
      assert.match(organizationId, /^org_/);
      const row = await database.db
        .selectFrom('organizations')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { name: row.name, status: row.status, allowlist: row.allowlist, strict: row.strictAllowlist },
        { name: 'Acme Legal LLP', status: 'active', allowlist: ['203.0.113.0/24', '2001:db8::/32'], strict: true },
      );
      const event = await database.db
        .selectFrom('events')
        .selectAll()
        .where('streamId', '=', `organization-${organizationId}`)
        .executeTakeFirstOrThrow();
      assert.equal((event.metadata as { actor: string }).actor, 'operator');
    });

    it('refuses an invalid CIDR with 400 VALIDATION_ERROR naming it', async () => {
      const body = await expectCode(
        'POST',
        '/admin/organizations',
        { name: 'Bad Ranges', allowlist: ['10.0.0.0/8', '10.0.0.0/33'] },
        400,
        'VALIDATION_ERROR',
      );
      assert.deepEqual(body.details, ['allowlist: not an IP address or CIDR range: "10.0.0.0/33"']);
    });

    it('refuses an unknown field and a blank name', async () => {
      await expectCode('POST', '/admin/organizations', { name: 'Typo', strictAllowList: true }, 400, 'VALIDATION_ERROR');
      await expectCode('POST', '/admin/organizations', { name: '   ' }, 400, 'VALIDATION_ERROR');
    });

    it('replaces the allowlist, keeps strict when omitted, and clears with an empty list', async () => {
      const organizationId = await createOrganization();
      const path = `/admin/organizations/${organizationId}/allowlist`;
      assert.deepEqual(await expectOk('PUT', path, { allowlist: ['198.51.100.7'], strict: true }, 200), {
        organizationId,
        allowlist: ['198.51.100.7'],
        strict: true,
      });
      assert.deepEqual(await expectOk('PUT', path, { allowlist: ['198.51.100.0/24', '192.0.2.1'] }, 200), {
        organizationId,
        allowlist: ['198.51.100.0/24', '192.0.2.1'],
        strict: true,
      });
      assert.deepEqual(await expectOk('PUT', path, { allowlist: [], strict: false }, 200), {
        organizationId,
        allowlist: [],
        strict: false,
      });
      const row = await database.db
        .selectFrom('organizations')
        .selectAll()
        .where('organizationId', '=', organizationId)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.allowlist, row.strictAllowlist], [[], false]);
      await expectCode('PUT', path, { allowlist: ['not-an-ip'] }, 400, 'VALIDATION_ERROR');
      await expectCode('PUT', '/admin/organizations/org_missing/allowlist', { allowlist: [] }, 404, 'ORGANIZATION_NOT_FOUND');
    });

    it('deactivates an organisation, idempotently; it then takes no users and no allowlist', async () => {
      const organizationId = await createOrganization();
      const path = `/admin/organizations/${organizationId}/deactivate`;
      assert.deepEqual(await expectOk('POST', path, undefined, 200), { organizationId, status: 'deactivated' });
      assert.deepEqual(await expectOk('POST', path, undefined, 200), { organizationId, status: 'deactivated' });
      const row = await database.db
        .selectFrom('organizations')
        .select('status')
        .where('organizationId', '=', organizationId)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'deactivated');
      await expectCode(
        'POST',
        '/admin/users',
        { email: 'late@acme-legal.example', name: 'Late Joiner', tier: 'enterprise', organizationId },
        403,
        'ORGANIZATION_DEACTIVATED',
      );
      await expectCode('PUT', `/admin/organizations/${organizationId}/allowlist`, { allowlist: [] }, 403, 'ORGANIZATION_DEACTIVATED');
      await expectCode('POST', '/admin/organizations/org_missing/deactivate', undefined, 404, 'ORGANIZATION_NOT_FOUND');
    });
  });

  describe('users', () => {
    it('creates a verified, API-provisioned member by default', async () => {
      const data = await expectOk(
        'POST',
        '/admin/users',
        { email: 'Default.User@Acme-Legal.example', name: 'Default User', tier: 'payg' },
        201,
      );
      assert.deepEqual(Object.keys(data), ['userId']);
      const row = await database.db
        .selectFrom('users')
        .selectAll()
        .where('userId', '=', data.userId as string)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        {
          email: row.email,
          tier: row.tier,
          role: row.role,
          trial: row.trial,
          verified: row.emailVerified,
          api: row.apiAccess,
          org: row.organizationId,
          pw: row.passwordHash,
        },
        {
          email: 'default.user@acme-legal.example',
          tier: 'payg',
          role: 'MEMBER',
          trial: false,
          verified: true,
          api: true,
          org: null,
          pw: null,
        },
      );
      assert.equal(row.standing, 'active');
    });

    it('creates an org admin on trial, unverified, without API access and with a hashed password', async () => {
      const organizationId = await createOrganization();
      const body = {
        email: 'admin@acme-legal.example',
        name: 'Org Admin',
        tier: 'enterprise',
        organizationId,
        role: 'ORG_ADMIN',
        trial: true,
        emailVerified: false,
        apiAccess: false,
        password: 'correct horse battery',
      };
      const data = await expectOk('POST', '/admin/users', body, 201);
      assert.equal(data.organizationId, organizationId);
      const row = await database.db
        .selectFrom('users')
        .selectAll()
        .where('userId', '=', data.userId as string)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [row.organizationId, row.role, row.trial, row.emailVerified, row.apiAccess],
        [organizationId, 'ORG_ADMIN', true, false, false],
      );
      assert.ok(row.passwordHash && !row.passwordHash.includes('correct horse'));
    });

    it('refuses a duplicate email, whatever its case, with 409 EMAIL_TAKEN', async () => {
      await createUser({ email: 'taken@acme-legal.example' });
      await expectCode('POST', '/admin/users', { email: 'TAKEN@acme-legal.example', name: 'Second', tier: 'free' }, 409, 'EMAIL_TAKEN');
    });

    it('refuses bad input as validation errors and an unknown organisation as 404', async () => {
      const base = { email: 'someone@acme-legal.example', name: 'Someone', tier: 'scale' };
      await expectCode('POST', '/admin/users', { ...base, email: 'not-an-email' }, 400, 'VALIDATION_ERROR');
      await expectCode('POST', '/admin/users', { ...base, tier: 'gold' }, 400, 'VALIDATION_ERROR');
      const orphanAdmin = await expectCode('POST', '/admin/users', { ...base, role: 'ORG_ADMIN' }, 400, 'VALIDATION_ERROR');
      assert.deepEqual(orphanAdmin.details, ['role: ORG_ADMIN needs organizationId']);
      await expectCode('POST', '/admin/users', { ...base, organizationId: 'org_missing' }, 404, 'ORGANIZATION_NOT_FOUND');
    });

    it('sets standing and refuses an unknown user or standing', async () => {
      const userId = await createUser();
      assert.deepEqual(await expectOk('PUT', `/admin/users/${userId}/standing`, { standing: 'suspended' }, 200), {
        userId,
        standing: 'suspended',
      });
      const row = await database.db.selectFrom('users').select('standing').where('userId', '=', userId).executeTakeFirstOrThrow();
      assert.equal(row.standing, 'suspended');
      assert.deepEqual(await expectOk('PUT', `/admin/users/${userId}/standing`, { standing: 'billing_inactive' }, 200), {
        userId,
        standing: 'billing_inactive',
      });
      await expectCode('PUT', `/admin/users/${userId}/standing`, { standing: 'banned' }, 400, 'VALIDATION_ERROR');
      await expectCode('PUT', '/admin/users/usr_missing/standing', { standing: 'active' }, 404, 'USER_NOT_FOUND');
    });
  });

  describe('keys', () => {
    it('issues a well-formed key shown once and stored as a hash', async () => {
      const userId = await createUser();
      const data = await expectOk('POST', `/admin/users/${userId}/keys`, { name: 'Research pipeline' }, 201);
      assert.deepEqual(Object.keys(data).sort(), ['displayKey', 'fullKey', 'id', 'mode', 'name']);
      assert.equal(data.name, 'Research pipeline');
      const fullKey = data.fullKey as string;
      assert.equal(await keys.wellFormed(fullKey), 'ok');
      assert.equal(data.displayKey, `crk_live...${fullKey.slice(-4)}`);
      const row = await database.db
        .selectFrom('apiKeys')
        .selectAll()
        .where('keyId', '=', data.id as string)
        .executeTakeFirstOrThrow();
      assert.equal(row.keyHash, await keys.hash(fullKey));
      assert.equal(row.userId, userId);
    });

    it('names a key Default when no body is sent', async () => {
      const userId = await createUser();
      const data = await expectOk('POST', `/admin/users/${userId}/keys`, undefined, 201);
      assert.equal(data.name, 'Default');
    });

    it('refuses an unknown user, an unverified Free user and a user at the key cap', async () => {
      await expectCode('POST', '/admin/users/usr_missing/keys', {}, 404, 'USER_NOT_FOUND');
      const unverified = await createUser({ tier: 'free', emailVerified: false });
      await expectCode('POST', `/admin/users/${unverified}/keys`, {}, 403, 'EMAIL_NOT_VERIFIED');
      const free = await createUser({ tier: 'free' });
      await expectOk('POST', `/admin/users/${free}/keys`, {}, 201);
      await expectOk('POST', `/admin/users/${free}/keys`, {}, 201);
      await expectCode('POST', `/admin/users/${free}/keys`, {}, 403, 'API_KEY_LIMIT_REACHED');
      // Test keys are capped apart: the Free user at its live cap still gets one.
      const test = await expectOk('POST', `/admin/users/${free}/keys`, { mode: 'test' }, 201);
      assert.deepEqual([test.mode, String(test.fullKey).slice(0, 9)], ['test', 'crk_test-']);
      await expectCode('POST', `/admin/users/${free}/keys`, { mode: 'sandbox' }, 400, 'VALIDATION_ERROR');
    });

    it('revokes any key: refused at once from then on; again is the same answer; an unknown key is 404', async () => {
      const userId = await createUser();
      const data = await expectOk('POST', `/admin/users/${userId}/keys`, { mode: 'test' }, 201);
      const me = () => app.request('/api/v1/prod/me', { headers: { 'X-API-Key': String(data.fullKey) } });
      const path = `/admin/keys/${String(data.id)}/revoke`;
      assert.deepEqual(await expectOk('POST', path, undefined, 200), { keyId: data.id, status: 'revoked' });
      assert.deepEqual(await expectOk('POST', path, undefined, 200), { keyId: data.id, status: 'revoked' });
      const refused = (await (await me()).json()) as Body;
      // This app has no test mode: a test key is refused before its lookup, revoked or not; a live key shows the revocation.
      assert.equal(refused.code, 'API_KEY_INVALID');
      const live = await expectOk('POST', `/admin/users/${userId}/keys`, {}, 201);
      await expectOk('POST', `/admin/keys/${String(live.id)}/revoke`, undefined, 200);
      const liveAfter = await app.request('/api/v1/prod/me', { headers: { 'X-API-Key': String(live.fullKey) } });
      assert.equal(((await liveAfter.json()) as Body).code, 'API_KEY_REVOKED');
      await expectCode('POST', '/admin/keys/key_missing/revoke', undefined, 404, 'API_KEY_NOT_FOUND');
      const anonymous = await call('POST', path, undefined, null);
      assert.deepEqual([anonymous.res.status, anonymous.body.code], [401, 'ADMIN_UNAUTHORIZED']);
    });
  });

  describe('case restriction', () => {
    it('flags the case and records one CaseRestricted event naming the operator', async () => {
      const before = await database.db.selectFrom('cases').select('restricted').where('caseId', '=', caseId).executeTakeFirstOrThrow();
      assert.equal(before.restricted, false);
      const path = `/admin/cases/${encodeURIComponent(caseId)}/restrict`;
      const first = await call('POST', path, undefined);
      assert.equal(first.res.status, 200);
      assert.deepEqual(first.body.data, { caseId, restricted: true });
      assert.deepEqual(await expectOk('POST', path, undefined, 200), { caseId, restricted: true });

      const row = await database.db.selectFrom('cases').select('restricted').where('caseId', '=', caseId).executeTakeFirstOrThrow();
      assert.equal(row.restricted, true);
      const events = await database.db.selectFrom('events').selectAll().where('streamId', '=', `case-${caseId}`).execute();
      assert.equal(events.length, 1);
      assert.equal(events[0]!.type, 'CaseRestricted');
      assert.deepEqual(events[0]!.data, { caseId, restrictedAt: '2026-11-26T10:00:00.000Z' });
      assert.deepEqual(events[0]!.metadata, {
        occurredAt: '2026-11-26T10:00:00.000Z',
        actor: 'operator',
        requestId: first.res.headers.get('x-request-id'),
      });
      const others = await database.db.selectFrom('cases').select('caseId').where('restricted', '=', true).execute();
      assert.deepEqual(
        others.map((o) => o.caseId),
        [caseId],
      );
    });

    it('answers 404 CASE_NOT_FOUND for a case not held, recording nothing', async () => {
      await expectCode('POST', '/admin/cases/hc-NOSUCHCASE000/restrict', undefined, 404, 'CASE_NOT_FOUND');
      const streams = await database.db.selectFrom('streams').select('streamId').where('streamId', '=', 'case-hc-NOSUCHCASE000').execute();
      assert.equal(streams.length, 0);
    });
  });
});
