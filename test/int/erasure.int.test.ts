/**
 * Erasure by crypto-shredding over the real event store (PGlite, and PostgreSQL when
 * TEST_DATABASE_URL is set), the real app and an embedded ClickHouse: a user with keys,
 * a session, credits and charged, audited calls is erased through `court-records admin
 * user erase`; then no table, event payload, analytics row, log line or ledger export holds
 * their email, name, password hash, webhook URL or signing secrets, they cannot log in or
 * be looked up, and the ledger,
 * usage and audit trail still reconcile to the same figures. A user registered before
 * sealing existed (plaintext in the log) is erased too, by redaction in place.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { ChdbAnalyticsStore } from '../../src/adapters/clickhouse/chdb-store.ts';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.ts';
import { userStream } from '../../src/application/accounts/accounts-service.ts';
import { accountsReadModel } from '../../src/application/accounts/read-model.ts';
import { webhookEndpointsReadModel } from '../../src/application/webhooks/read-model.ts';
import { webhookStreamId } from '../../src/domain/webhook/webhook-endpoints.ts';
import { WEBHOOK_STREAM_TYPE } from '../../src/application/webhooks/webhook-endpoints.ts';
import { exportLedger } from '../../src/application/credits/ledger-export.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { runAdmin } from '../../src/cli/admin.ts';
import type { App } from '../../src/http/app-types.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { openTestAnalytics } from '../support/analytics.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const TOKEN = 'admin-token-for-erasure-tests';
const EMAIL = 'meera.erasable@example.in';
const NAME = 'Meera Erasable-Person';
const PASSWORD = 'correct horse battery staple';
const WEBHOOK_URL = 'https://hooks.erasable.example/in/t0k3n-of-meera-9f3a';
const LEGACY_EMAIL = 'old.plaintext@example.in';
const LEGACY_NAME = 'Oldtimer Plaintext-Person';
const LEGACY_HASH = 'scrypt$legacy-plaintext-hash-value';
const LEGACY_URL = 'https://legacy-hooks.example/in/old-t0k3n';
const LEGACY_SEALED_SECRET = 'legacy-server-sealed-secret-blob';

type Body = Record<string, unknown>;

let analytics: ChdbAnalyticsStore;
let closeAnalytics: () => Promise<void>;
before(async () => {
  ({ store: analytics, close: closeAnalytics } = await openTestAnalytics());
});
after(async () => closeAnalytics());

for (const factory of databases) {
  describe(`erasure by crypto-shredding (${factory.name})`, () => {
    let database: TestDatabase;
    let built: TestApp;
    let app: App;
    let projector: ProjectorRunner;
    let userId = '';
    let apiKey = '';
    let passwordHash = '';
    let sessionCookie = '';
    let webhookSecrets: string[] = [];
    let balanceBefore: unknown;
    let usageBefore: unknown;
    const legacyId = 'usr_legacy_plaintext';
    const clock = new SettableClock(new Date('2026-11-28T10:00:00.000Z'));

    async function call(method: string, path: string, body?: Body, headers: Record<string, string> = {}) {
      const all: Record<string, string> = { Authorization: `Bearer ${TOKEN}`, ...headers };
      if (body !== undefined) all['Content-Type'] = 'application/json';
      const res = await app.request(path, { method, headers: all, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      return { status: res.status, headers: res.headers, body: (await res.json()) as Body };
    }

    async function adminCli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      let stdout = '';
      let stderr = '';
      const code = await runAdmin(argv, {
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env: { COURT_RECORDS_URL: 'http://127.0.0.1:1', ADMIN_TOKEN: TOKEN },
        fetch: (input, init) => Promise.resolve(app.request(input, init)),
      });
      return { code, stdout, stderr };
    }

    /** Every row of every table, as text. */
    async function everyTable(): Promise<string> {
      const tables = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(database.db);
      const parts: string[] = [];
      for (const { name } of tables.rows) {
        const rows = await sql<{ row: string }>`select t::text as row from ${sql.table(name)} t`.execute(database.db);
        parts.push(...rows.rows.map((r) => `${name}: ${r.row}`));
      }
      return parts.join('\n');
    }

    const usage = () =>
      analytics.query<Body>(
        `SELECT count() AS requests, sum(credits_deducted) AS credits FROM audit_events WHERE user_id = {user:String}`,
        { user: userId },
      );

    before(async () => {
      database = await factory.open();
      await analytics.command('TRUNCATE TABLE audit_events');
      built = buildTestApp({ db: database.db, clock, adminToken: TOKEN });
      app = built.app;
      // The key cache's invalidator starts from here, as a running instance's does at boot.
      await built.application.invalidator.poll();
      const store = eventStoreOf(database.db);
      projector = new ProjectorRunner(database.db, store, auditToClickHouse(analytics), { now: () => clock.now() });

      const created = await call('POST', '/admin/users', { email: EMAIL, name: NAME, tier: 'enterprise', password: PASSWORD });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      userId = (created.body.data as Body).userId as string;
      const key = await call('POST', `/admin/users/${userId}/keys`, { name: 'research' });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      apiKey = (key.body.data as Body).fullKey as string;
      const granted = await call('POST', `/admin/users/${userId}/credits`, { amount: 500 });
      assert.equal(granted.status, 201, JSON.stringify(granted.body));
      const me = await app.request(`${BASE}/me`, { headers: { 'X-API-Key': apiKey } });
      assert.equal(me.status, 200, await me.text());
      // Two charged, audited calls, the way the API-key gate and the credits service record them.
      for (const [requestId, price] of [
        ['req-erase-1', 25],
        ['req-erase-2', 40],
      ] as const) {
        const charged = await built.application.credits.chargeNow(userId, price, requestId);
        assert.ok(charged.ok);
        await built.application.audit.record({
          occurredAt: clock.now().toISOString(),
          requestId,
          keyId: 'key_erase',
          userId,
          organizationId: null,
          endpoint: '/search',
          method: 'POST',
          status: 200,
          responseMs: 10,
          creditsDeducted: price,
          clientAddress: '198.51.100.7',
          userAgent: 'erasure-test/1.0',
        });
      }
      const login = await call('POST', '/api/settings/login', { email: EMAIL, password: PASSWORD });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      sessionCookie = /^session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')![0];
      const session = { Cookie: sessionCookie, 'X-CSRF-Token': (login.body.data as Body).csrfToken as string };
      const hook = await call('POST', '/api/settings/webhooks', { url: WEBHOOK_URL, eventTypes: ['analysis.stored'] }, session);
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const endpointId = (hook.body.data as Body).id as string;
      const rotated = await call('POST', `/api/settings/webhooks/${endpointId}/rotate-secret`, undefined, session);
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const endpoint = await database.db
        .selectFrom('webhookEndpoints')
        .selectAll()
        .where('endpointId', '=', endpointId)
        .executeTakeFirstOrThrow();
      webhookSecrets = [
        (hook.body.data as Body).secret as string,
        (rotated.body.data as Body).secret as string,
        endpoint.sealedSecret,
        endpoint.previousSealedSecret!,
      ];
      // A delivery the receiver refused, as a delivery attempt records it.
      await database.db
        .insertInto('webhookDeliveries')
        .values({
          deliveryId: 'whd_erase',
          accountId: userId,
          endpointId,
          sourceEventId: 'analysis-1@1',
          eventType: 'analysis.stored',
          payload: sql`'{}'::jsonb`,
          status: 'failed',
          lastError: `POST ${WEBHOOK_URL} refused`,
          createdAt: clock.now(),
        })
        .execute();
      passwordHash = (await database.db.selectFrom('users').select('passwordHash').where('userId', '=', userId).executeTakeFirstOrThrow())
        .passwordHash!;

      // A user and a webhook registered by the code before sealing: their events hold the fields in plaintext.
      const legacyStore = new PostgresEventStore(database.db, [accountsReadModel, webhookEndpointsReadModel]);
      await legacyStore.append(
        userStream(legacyId),
        0,
        [
          {
            type: 'UserRegistered',
            data: {
              userId: legacyId,
              email: LEGACY_EMAIL,
              name: LEGACY_NAME,
              tier: 'free',
              organizationId: null,
              role: 'MEMBER',
              trial: false,
              emailVerified: true,
              apiAccess: true,
              passwordHash: LEGACY_HASH,
              limitOverrides: {},
            },
          },
        ],
        { streamType: 'user', metadata: { occurredAt: clock.now().toISOString(), actor: 'operator' } },
      );
      await legacyStore.append(
        webhookStreamId(legacyId),
        0,
        [
          {
            type: 'WebhookEndpointRegistered',
            data: {
              accountId: legacyId,
              endpointId: 'whe_legacy',
              url: LEGACY_URL,
              eventTypes: ['analysis.stored'],
              mode: 'live',
              secret: { sealed: LEGACY_SEALED_SECRET, hint: 'whsec_…abcd' },
              registeredAt: clock.now().toISOString(),
            },
          },
        ],
        { streamType: WEBHOOK_STREAM_TYPE, metadata: { occurredAt: clock.now().toISOString(), actor: 'operator' } },
      );

      await projector.catchUp();
      balanceBefore = await built.application.credits.balance(userId);
      usageBefore = await usage();
    });
    after(async () => database.close());

    it('seals new personal fields in the log: the events table never held the email, name or hash in clear', async () => {
      const events = await database.db
        .selectFrom('events')
        .select(sql<string>`data::text`.as('data'))
        .execute();
      const text = events.map((e) => e.data).join('\n');
      for (const secret of [EMAIL, NAME, passwordHash, WEBHOOK_URL, ...webhookSecrets])
        assert.ok(!text.includes(secret), `events hold ${secret}`);
      assert.ok(text.includes(LEGACY_EMAIL) && text.includes(LEGACY_URL), 'the legacy events are plaintext, as the old code wrote them');
      const [registered] = (await eventStoreOf(database.db).readStream(userStream(userId))).events;
      assert.equal((registered!.data as Body).email, EMAIL, 'the store opens what it sealed');
    });

    it('erases through `court-records admin user erase`: keys revoked, key shredded, nothing in plaintext to redact', async () => {
      const result = await adminCli(['user', 'erase', '--user', userId]);
      assert.equal(result.code, 0, result.stderr);
      const data = JSON.parse(result.stdout) as Body;
      assert.deepEqual(data, {
        userId,
        erasedAt: clock.now().toISOString(),
        keysRevoked: 1,
        keyShredded: true,
        plaintextEventsRedacted: 0,
      });
    });

    it('erases a user registered before sealing by blanking their plaintext events in place', async () => {
      const erased = await call('POST', `/admin/users/${legacyId}/erase`);
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.equal((erased.body.data as Body).plaintextEventsRedacted, 2);
      assert.equal((erased.body.data as Body).keyShredded, false);
    });

    it('leaves no trace of either person in any table, event, analytics row, log line or ledger export', async () => {
      await projector.catchUp();
      const secrets = [
        EMAIL,
        NAME,
        passwordHash,
        PASSWORD,
        WEBHOOK_URL,
        'hooks.erasable.example',
        ...webhookSecrets,
        LEGACY_EMAIL,
        LEGACY_NAME,
        LEGACY_HASH,
        LEGACY_URL,
        LEGACY_SEALED_SECRET,
      ];
      const tables = await everyTable();
      const analyticsRows = JSON.stringify(await analytics.query<Body>('SELECT * FROM audit_events'));
      const exported: unknown[] = [];
      for await (const row of exportLedger(eventStoreOf(database.db), { from: new Date(0), to: new Date('2100-01-01T00:00:00Z') })) {
        exported.push(row);
      }
      const logs = built.logs.join('\n');
      for (const secret of secrets) {
        for (const [where, text] of [
          ['tables', tables],
          ['analytics', analyticsRows],
          ['export', JSON.stringify(exported)],
          ['logs', logs],
        ] as const) {
          assert.ok(!text.toLowerCase().includes(secret.toLowerCase()), `${where} hold ${secret}`);
        }
      }
      assert.ok(exported.length > 0, 'the export has the ledger rows');
      // The events themselves are all still there, positions and ids intact; their personal fields read as null.
      const { events, version } = await eventStoreOf(database.db).readStream(userStream(userId));
      assert.deepEqual(
        events.map((e) => e.type),
        ['UserRegistered', 'UserErased'],
      );
      assert.equal(version, 2);
      const data = events[0]!.data as Body;
      assert.deepEqual([data.userId, data.email, data.name, data.passwordHash, data.tier], [userId, null, null, null, 'enterprise']);
    });

    it('keeps balances, usage and the audit trail adding up', async () => {
      assert.deepEqual(await built.application.credits.balance(userId), balanceBefore);
      assert.deepEqual(await usage(), usageBefore);
      const report = await reconcileLedger({ db: database.db, events: eventStoreOf(database.db), analytics }, { accountId: userId });
      assert.deepEqual(report.differences, []);
      assert.equal(report.usage.ran, true);
    });

    it('lets the erased user neither log in, nor use a session or key, nor be looked up', async () => {
      const login = await call('POST', '/api/settings/login', { email: EMAIL, password: PASSWORD });
      assert.equal(login.status, 401);
      assert.equal(login.body.code, 'INVALID_CREDENTIALS');
      const session = await app.request('/api/settings/session', { headers: { Cookie: sessionCookie } });
      assert.equal(session.status, 401);
      // Each instance's key cache drops what an account event touched at its next poll, as after any revocation.
      await built.application.invalidator.poll();
      const keyed = await app.request(`${BASE}/me`, { headers: { 'X-API-Key': apiKey } });
      assert.equal(keyed.status, 401);
      for (const [method, path, body] of [
        ['PUT', `/admin/users/${userId}/standing`, { standing: 'suspended' }],
        ['POST', `/admin/users/${userId}/keys`, { name: 'again' }],
        ['POST', `/admin/users/${userId}/credits`, { amount: 5 }],
      ] as const) {
        const refused = await call(method, path, body);
        assert.equal(refused.status, 404, `${method} ${path}: ${JSON.stringify(refused.body)}`);
        assert.equal(refused.body.code, 'USER_NOT_FOUND');
      }
      const unknown = await adminCli(['user', 'erase', '--user', 'usr_never_existed']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /USER_NOT_FOUND/);
    });

    it('erasing again changes nothing, and the log still refuses any other change', async () => {
      const again = await call('POST', `/admin/users/${userId}/erase`);
      assert.equal(again.status, 200);
      assert.deepEqual([(again.body.data as Body).keysRevoked, (again.body.data as Body).keyShredded], [0, false]);
      await assert.rejects(sql`update events set data = data where stream_id = ${userStream(userId)}`.execute(database.db), /immutable/);
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await sql`select set_config('court_records.erasing_stream', ${userStream(userId)}, true)`.execute(trx);
          await sql`update events set recorded_at = now() where stream_id = ${userStream(userId)}`.execute(trx);
        }),
        /immutable/,
      );
    });
  });
}
