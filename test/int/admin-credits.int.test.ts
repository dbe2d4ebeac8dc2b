/**
 * Granting credits as an operator: POST /admin/users/{userId}/credits and
 * `court-records admin credits grant` land on the user's billing account (the
 * organisation's when the user has one); and `court-records finance export` lists every
 * ledger event of a range with running balances, as csv or jsonl, including the credits
 * that expired unspent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CreditsService } from '../../src/application/credits/credits-service.ts';
import { exportLedger, type LedgerRow } from '../../src/application/credits/ledger-export.ts';
import { runAdmin } from '../../src/cli/admin.ts';
import { runFinance } from '../../src/cli/finance.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildTestApp, SettableClock } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const TOKEN = 'admin-token-for-credit-tests-01';
const URL_BASE = 'http://court-records.test/';

/** Holds in these tests never lapse while they run. */
const HOLD_MS = 3_600_000;

for (const factory of databases) {
  describe(`admin credits and finance export (${factory.name})`, () => {
    let database: TestDatabase;
    let app: App;
    let credits: CreditsService;
    let clock: SettableClock;
    let orgMember: string;
    let soloUser: string;

    before(async () => {
      database = await factory.open();
      clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
      const built = buildTestApp({ db: database.db, clock, adminToken: TOKEN });
      app = built.app;
      credits = built.application.credits;

      const accounts = built.application.accounts;
      const org = await accounts.createOrganization(
        { name: 'Acme Legal LLP', allowlist: [], strictAllowlist: false },
        { kind: 'operator' },
      );
      assert.ok(org.ok);
      const profile = {
        tier: 'enterprise' as const,
        role: 'MEMBER' as const,
        trial: false,
        emailVerified: true,
        apiAccess: true,
        password: null,
        limitOverrides: {},
      };
      const member = await accounts.registerUser(
        { ...profile, email: `m-${factory.name}@acme.test`, name: 'Member', organizationId: org.value.organizationId },
        { kind: 'operator' },
      );
      const solo = await accounts.registerUser(
        { ...profile, email: `s-${factory.name}@solo.test`, name: 'Solo', organizationId: null },
        { kind: 'operator' },
      );
      assert.ok(member.ok && solo.ok);
      orgMember = member.value.userId;
      soloUser = solo.value.userId;
    });
    after(async () => database.close());

    const post = (userId: string, body: unknown, token = TOKEN) =>
      app.request(`/admin/users/${userId}/credits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    async function admin(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      let stdout = '';
      let stderr = '';
      const code = await runAdmin(argv, {
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env: { COURT_RECORDS_URL: URL_BASE, ADMIN_TOKEN: TOKEN },
        fetch: async (input, init) => {
          const url = new URL(input);
          return app.request(`${url.pathname}${url.search}`, init);
        },
      });
      return { code, stdout, stderr };
    }

    it('grants to the organisation of a member, answering 201 with the balance', async () => {
      const response = await post(orgMember, { amount: 5000, source: 'purchase', note: 'Invoice 2026-114' });
      assert.equal(response.status, 201);
      const body = (await response.json()) as { success: true; data: { grantId: string } };
      assert.match(body.data.grantId, /^grt_/);
      assert.deepEqual(body, {
        success: true,
        data: { balance: 5000, grantId: body.data.grantId, paymentReference: null, replayed: false },
      });
      const user = await database.db.selectFrom('users').select('organizationId').where('userId', '=', orgMember).executeTakeFirstOrThrow();
      assert.deepEqual(await credits.balance(user.organizationId!), { balance: 5000, reserved: 0 });
      assert.deepEqual(await credits.balance(orgMember), { balance: 0, reserved: 0 });
    });

    it('grants to the user when they have no organisation; source defaults to grant', async () => {
      const response = await post(soloUser, { amount: 30 });
      assert.equal(response.status, 201);
      const body = (await response.json()) as { data: Record<string, unknown> };
      assert.deepEqual([body.data.balance, body.data.replayed], [30, false]);
      const rows = await exportRows({ accountId: soloUser });
      assert.deepEqual(
        rows.map((r) => [r.source, r.actor]),
        [['grant', 'operator']],
      );
    });

    it('refuses a bad amount, an unknown field, an unknown user and a missing token', async () => {
      for (const body of [{ amount: 0 }, { amount: -5 }, { amount: 1.5 }, { amount: 10, source: 'gift' }, { amount: 10, extra: true }]) {
        const response = await post(soloUser, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(((await response.json()) as { code: string }).code, 'VALIDATION_ERROR');
      }
      const unknown = await post('usr_nobody', { amount: 10 });
      assert.equal(unknown.status, 404);
      assert.equal(((await unknown.json()) as { code: string }).code, 'USER_NOT_FOUND');
      assert.equal((await post(soloUser, { amount: 10 }, 'wrong-token-wrong-token-wrong')).status, 401);
    });

    it('grants through the CLI and prints the balance and the grant', async () => {
      const result = await admin(['credits', 'grant', '--user', soloUser, '--amount', '70', '--note', 'goodwill']);
      assert.equal(result.code, 0, result.stderr);
      const printed = JSON.parse(result.stdout) as { grantId: string };
      assert.deepEqual(printed, { balance: 100, grantId: printed.grantId, paymentReference: null, replayed: false });
      const usage = await admin(['credits', 'grant', '--user', soloUser, '--amount', 'ten']);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--amount must be a whole number/);
      const refused = await admin(['credits', 'grant', '--user', soloUser, '--amount', '0']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /VALIDATION_ERROR/);
    });

    async function accountsOrgOf(userId: string): Promise<string> {
      const user = await database.db.selectFrom('users').select('organizationId').where('userId', '=', userId).executeTakeFirstOrThrow();
      assert.ok(user.organizationId);
      return user.organizationId;
    }

    async function exportRows(range: { from?: Date; to?: Date; accountId?: string }): Promise<LedgerRow[]> {
      const rows: LedgerRow[] = [];
      const full = {
        from: range.from ?? new Date(0),
        to: range.to ?? new Date('2100-01-01'),
        ...(range.accountId ? { accountId: range.accountId } : {}),
      };
      for await (const row of exportLedger(eventStoreOf(database.db), full)) rows.push(row);
      return rows;
    }

    it('exports every ledger event of a range with the running balance, counting events before it', async () => {
      const account = `usr_export_${factory.name}`;
      clock.set(new Date('2026-12-01T09:00:00Z'));
      await credits.grant(account, { amount: 100, source: 'purchase', expiresAt: '2027-12-01T00:00:00.000Z' });
      clock.set(new Date('2026-12-02T09:00:00Z'));
      const charged = await credits.chargeNow(account, 10, 'req-a');
      assert.ok(charged.ok);
      const reserved = await credits.reserve(account, 50, 'req-b', HOLD_MS);
      assert.ok(reserved.ok);
      await credits.settle(account, reserved.value.reservationId, 20);
      clock.set(new Date('2026-12-03T09:00:00Z'));
      await credits.reverse(account, charged.value.chargeId, 'refund');

      const rows = await exportRows({ from: new Date('2026-12-02T00:00:00Z'), to: new Date('2026-12-03T00:00:00Z'), accountId: account });
      assert.deepEqual(
        rows.map((r) => [r.type, r.amount, r.balanceChange, r.balance, r.reserved]),
        [
          ['CreditsCharged', 10, -10, 90, 0],
          ['CreditsReserved', 50, -50, 40, 50],
          ['CreditsCharged', 20, 0, 40, 30],
          ['CreditsReleased', 30, 30, 70, 0],
        ],
      );
      const all = await exportRows({ accountId: account });
      assert.equal(all.length, 6);
      assert.equal(all[0]?.expiresAt, '2027-12-01T00:00:00.000Z');
      assert.deepEqual(all.at(-1)?.balance, (await credits.balance(account)).balance);
    });

    it('expires a grant at its time: 100 expiring and 50 not, 30 spent, leaves 50 and one CreditsExpired of 70', async () => {
      const T = new Date('2027-01-31T00:00:00.000Z');
      clock.set(new Date('2027-01-10T09:00:00Z'));
      const org = await accountsOrgOf(orgMember);
      const expiring = await post(orgMember, { amount: 100, source: 'purchase', expiresAt: '2027-01-31T05:30:00+05:30' });
      assert.equal(expiring.status, 201);
      assert.equal((await post(orgMember, { amount: 50 })).status, 201);
      const before = (await credits.balance(org)).balance;
      const charged = await credits.chargeNow(org, 30, 'req-before-expiry');
      assert.ok(charged.ok);
      clock.set(new Date(T.getTime() - 1));
      assert.equal((await credits.balance(org)).balance, before - 30);
      clock.set(new Date(T.getTime() + 1_000));
      // Spendable at once, before anything is recorded: the 70 left of the expiring grant are gone.
      assert.equal((await credits.balance(org)).balance, before - 100);
      assert.deepEqual(await credits.expireDue(org), { balance: before - 100, reserved: 0, expired: 70 });
      assert.deepEqual(await credits.expireDue(org), { balance: before - 100, reserved: 0, expired: 0 });
      const rows = await exportRows({ from: new Date('2027-01-10T00:00:00Z'), accountId: org });
      assert.deepEqual(
        rows.map((r) => [r.type, r.amount, r.balanceChange, r.balance, r.expiresAt]),
        [
          ['CreditsGranted', 100, 100, before - 50, T.toISOString()],
          ['CreditsGranted', 50, 50, before, null],
          ['CreditsCharged', 30, -30, before - 30, null],
          ['CreditsExpired', 70, -70, before - 100, T.toISOString()],
        ],
      );
      const [expiringGrant, , charge, expiry] = rows;
      assert.equal(charge?.lots, `${expiringGrant?.grantId ?? ''}:30`);
      assert.equal(expiry?.grantId, expiringGrant?.grantId);
      const lots = await database.db.selectFrom('creditLots').select(['grantId', 'remaining']).where('accountId', '=', org).execute();
      assert.equal(lots.find((l) => l.grantId === expiringGrant?.grantId)?.remaining, 0);
      clock.set(new Date('2026-12-03T09:00:00Z'));
    });

    it('refuses a grant that expires before it is made', async () => {
      clock.set(new Date('2027-02-01T00:00:00Z'));
      const refused = await credits.grantToUser(soloUser, { amount: 10, source: 'grant', expiresAt: '2027-01-01T00:00:00Z' });
      assert.deepEqual(refused, {
        ok: false,
        error: { tag: 'InvalidExpiry', expiresAt: '2027-01-01T00:00:00.000Z', at: '2027-02-01T00:00:00.000Z' },
      });
      const viaRoute = await post(soloUser, { amount: 10, expiresAt: '2027-01-01T00:00:00Z' });
      assert.equal(viaRoute.status, 400);
      assert.deepEqual(((await viaRoute.json()) as { details: string[] }).details, ['expiresAt: must be after now']);
      clock.set(new Date('2026-12-03T09:00:00Z'));
    });

    it('runs `finance export` as csv and jsonl, and refuses a bad command line', async () => {
      const run = async (args: string[], env: Record<string, string | undefined>) => {
        let stdout = '';
        let stderr = '';
        const code = await runFinance(args, {
          stdout: { write: (c: string) => (stdout += c) },
          stderr: { write: (c: string) => (stderr += c) },
          env,
        });
        return { code, stdout, stderr };
      };
      const bad = await run(['export', '--from', '2026-12-03', '--to', '2026-12-01', '--format', 'csv'], {});
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--from must be before --to/);
      assert.equal((await run(['export', '--from', 'yesterday', '--to', '2026-12-01', '--format', 'csv'], {})).code, 2);
      assert.equal((await run(['export', '--from', '2026-12-01', '--to', '2026-12-02', '--format', 'xml'], {})).code, 2);
      if (!database.url) return; // The CLI opens its own database: only a PostgreSQL test database has a URL to give it.

      const env = { DATABASE_URL: database.url, KEY_HASH_SECRET: 'finance-export-test-secret-of-32-chars-x' };
      const account = `usr_export_${factory.name}`;
      const range = ['--from', '2026-12-01T00:00:00Z', '--to', '2026-12-04T00:00:00Z', '--account', account];
      const csv = await run(['export', ...range, '--format', 'csv'], env);
      assert.equal(csv.code, 0, csv.stderr);
      const lines = csv.stdout.trim().split('\n');
      assert.equal(
        lines[0],
        'globalPosition,recordedAt,accountId,streamPosition,type,amount,balanceChange,balance,reserved,source,grantId,reservationId,chargeId,requestRef,note,expiresAt,paymentReference,actor,lots',
      );
      assert.equal(lines.length, 7);
      const jsonl = await run(['export', ...range, '--format', 'jsonl'], env);
      const objects = jsonl.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as LedgerRow);
      assert.deepEqual(
        objects.map((o) => o.balance),
        [100, 90, 40, 40, 70, 80],
      );
    });
  });
}
