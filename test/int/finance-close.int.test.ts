/**
 * A month of real calls closed end to end, on the embedded database (PGlite on disk, as the
 * service keeps it) and on PostgreSQL: operator grants through POST /admin/users/{id}/credits
 * with payment references (20 concurrent duplicates credit once; a reused reference for
 * another amount or account is 409), charged API calls, a refund, an expiry, with the clock
 * moved through September, October and November 2026 (IST). Then `finance close --month
 * 2026-10` balances to the credit, the customer's statement downloads as CSV and PDF with
 * the same figures (another account's is refused), and a ledger row edited in the database
 * makes the close fail naming the account.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { pdfText } from '../../src/adapters/pdf/pdf-text.ts';
import { runFinance } from '../../src/cli/finance.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/open.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, SettableClock, type TestApp } from '../support/app.ts';
import { postgresAdminUrl, databases, type TestDatabase } from '../support/databases.ts';

const TOKEN = 'admin-token-for-finance-close-01';
const PASSWORD = 'a long dashboard passphrase';
const ORIGIN = 'http://localhost';
const operator = { kind: 'operator' } as const;

/** The embedded database in a directory of its own, which the CLI opens once the test lets go of it. */
interface Target {
  readonly name: string;
  open(): Promise<{ database: TestDatabase; env: Record<string, string> }>;
  /** Runs `work` with the database closed when only one process may hold it (PGlite), then opens it again. */
  readonly exclusive: boolean;
}

const embeddedDir = mkdtempSync(join(tmpdir(), 'finance-close-'));
const targets: Target[] = [
  {
    name: 'embedded',
    exclusive: true,
    open: async () => {
      const database = await openPglite(embeddedDir);
      await migrate(database.db);
      return { database, env: { DATA_DIR: embeddedDir, KEY_HASH_SECRET } };
    },
  },
  ...(postgresAdminUrl
    ? [
        {
          name: 'postgres',
          exclusive: false,
          open: async () => {
            const database = await databases.find((d) => d.name === 'postgres')!.open();
            return { database, env: { DATABASE_URL: database.url ?? '', KEY_HASH_SECRET } };
          },
        },
      ]
    : []),
];
after(() => rmSync(embeddedDir, { recursive: true, force: true }));

/** The records of an RFC 4180 CSV. */
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
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += ch;
  }
  return rows;
}

const at = (iso: string) => new Date(iso);

for (const target of targets) {
  describe(`finance close of a month of real calls (${target.name})`, { timeout: 180_000 }, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let t: TestApp;
    const clock = new SettableClock(at('2026-09-20T06:00:00Z'));
    const users = {} as Record<'solo' | 'other', { userId: string; key: string }>;

    const admin = (userId: string, body: unknown) =>
      t.app.request(`/admin/users/${userId}/credits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return res;
    };
    const search = (who: 'solo' | 'other') => call(users[who].key, 'POST', '/search/cases', { query: 'appeal' });
    const judges = (who: 'solo' | 'other') => call(users[who].key, 'GET', '/judges/search?q=chandrachud');

    const build = () => {
      t = buildTestApp({ db: database.db, clock, adminToken: TOKEN, keyHashSecret: KEY_HASH_SECRET });
    };
    const cli = async (argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const run = async () => {
        const code = await runFinance(argv, {
          stdout: { write: (chunk: string) => (stdout += chunk) },
          stderr: { write: (chunk: string) => (stderr += chunk) },
          env,
        });
        return code;
      };
      if (!target.exclusive) return { code: await run(), stdout, stderr };
      await database.close();
      try {
        return { code: await run(), stdout, stderr };
      } finally {
        ({ database } = await target.open());
        build();
      }
    };

    before(async () => {
      ({ database, env } = await target.open());
      build();
      const { accounts } = t.application;
      for (const label of ['solo', 'other'] as const) {
        const email = `${label}-${target.name}@lawfirm.example`;
        const user = await accounts.registerUser(enterpriseUser(email, { password: PASSWORD }), operator);
        assert.ok(user.ok);
        const key = await accounts.createKey(user.value.userId, 'notebook', operator);
        assert.ok(key.ok);
        users[label] = { userId: user.value.userId, key: key.value.fullKey };
      }
      await t.application.invalidator.poll();

      // September (IST): a purchase and a search.
      assert.equal((await admin(users.solo.userId, { amount: 1000, source: 'purchase', paymentReference: 'INV-0901' })).status, 201);
      await search('solo');

      // 00:10 on 1 October IST: the October purchase, sent 20 times at once.
      clock.set(at('2026-09-30T18:40:00Z'));
      const purchase = { amount: 5000, source: 'purchase', paymentReference: 'INV-1001', note: 'NEFT UTR 1234' };
      const answers = await Promise.all(Array.from({ length: 20 }, async () => admin(users.solo.userId, purchase)));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as { data: { grantId: string; replayed: boolean } }[];
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, ...Array<number>(18).fill(200), 201].sort());
      assert.equal(new Set(bodies.map((b) => b.data.grantId)).size, 1, 'every answer names the one grant');
      assert.equal(bodies.filter((b) => !b.data.replayed).length, 1);
      assert.equal((await t.application.credits.balance(users.solo.userId)).balance, 995 + 5000);
      await t.application.invalidator.poll();
    });
    after(async () => database.close());

    it('answers the same payment again with the original grant, and refuses the reference for another amount or account', async () => {
      const again = await admin(users.solo.userId, { amount: 5000, source: 'purchase', paymentReference: 'INV-1001' });
      assert.equal(again.status, 200);
      const body = (await again.json()) as { data: { balance: number; replayed: boolean; paymentReference: string } };
      assert.deepEqual([body.data.replayed, body.data.paymentReference, body.data.balance], [true, 'INV-1001', 5995]);
      for (const [userId, amount] of [
        [users.solo.userId, 500],
        [users.other.userId, 5000],
      ] as const) {
        const refused = await admin(userId, { amount, source: 'purchase', paymentReference: 'INV-1001' });
        assert.equal(refused.status, 409);
        const error = (await refused.json()) as { code: string; message: string };
        assert.equal(error.code, 'PAYMENT_REFERENCE_IN_USE');
        assert.match(error.message, /INV-1001 was already granted: 5000 credits to account/);
      }
      assert.equal((await t.application.credits.balance(users.solo.userId)).balance, 5995);
      assert.equal((await t.application.credits.balance(users.other.userId)).balance, 0);
    });

    it('builds the rest of October: a grant that expires, charged calls, a refund, and a call in November', async () => {
      clock.set(at('2026-10-02T09:00:00Z'));
      assert.equal((await admin(users.other.userId, { amount: 100, source: 'purchase', paymentReference: 'INV-1002' })).status, 201);
      await judges('other');
      clock.set(at('2026-10-05T10:00:00Z'));
      const goodwill = { amount: 300, source: 'grant', note: 'goodwill', expiresAt: '2026-10-20T00:00:00Z' };
      assert.equal((await admin(users.solo.userId, goodwill)).status, 201);
      clock.set(at('2026-10-06T10:00:00Z'));
      for (let i = 0; i < 3; i += 1) await search('solo');
      await judges('solo');
      await judges('solo');
      // The refund the service makes when paid work fails after its charge (e.g. a failed analysis job).
      clock.set(at('2026-10-07T10:00:00Z'));
      const charge = await database.db
        .selectFrom('creditCharges')
        .select(['chargeId', 'amount'])
        .where('accountId', '=', users.solo.userId)
        .where('chargedAt', '>=', at('2026-10-06T00:00:00Z'))
        .where('amount', '=', 5)
        .orderBy('chargedAt')
        .executeTakeFirstOrThrow();
      const refunded = await t.application.credits.reverse(users.solo.userId, charge.chargeId, 'job failed');
      assert.ok(refunded.ok);
      // After the goodwill grant's expiry: the next call records its unspent 288 as expired first.
      clock.set(at('2026-10-25T10:00:00Z'));
      await search('solo');
      // 00:05 on 1 November IST: November's.
      clock.set(at('2026-10-31T18:35:00Z'));
      await search('solo');
      await t.application.invalidator.poll();
    });

    it('closes October to the credit, per account and in total, and writes the close to --out', async () => {
      const out = mkdtempSync(join(tmpdir(), 'finance-close-out-'));
      try {
        const json = await cli(['close', '--month', '2026-10', '--format', 'json', '--out', out]);
        assert.equal(json.code, 0, json.stderr + json.stdout);
        const report = JSON.parse(json.stdout) as {
          balanced: boolean;
          from: string;
          accounts: { accountId: string; opening: { total: number }; closing: { total: number }; [k: string]: unknown }[];
          total: Record<string, unknown>;
        };
        assert.equal(report.balanced, true);
        assert.equal(report.from, '2026-09-30T18:30:00.000Z');
        const solo = report.accounts.find((a) => a.accountId === users.solo.userId)!;
        assert.deepEqual(
          {
            opening: solo.opening.total,
            purchases: solo.purchases,
            grants: solo.grants,
            consumption: solo.consumption,
            refunds: solo.refunds,
            expiries: solo.expiries,
            closing: solo.closing.total,
          },
          {
            opening: 995,
            purchases: 5000,
            grants: 300,
            consumption: { 'GET /judges/search': 2, 'POST /search/cases': 20 },
            refunds: 5,
            expiries: 288,
            closing: 5990,
          },
        );
        assert.deepEqual(
          (solo.credits as { paymentReference: string | null; amount: number }[]).map((c) => [c.paymentReference, c.amount]),
          [
            ['INV-1001', 5000],
            [null, 300],
          ],
        );
        assert.deepEqual(
          [report.total.purchases, report.total.consumed, (report.total.closing as { total: number }).total],
          [5100, 23, 5990 + 99],
        );
        // The balance now is October's closing less November's call.
        assert.equal((await t.application.credits.balance(users.solo.userId)).balance, 5990 - 5);

        const text = readFileSync(join(out, 'close-2026-10.txt'), 'utf8');
        assert.match(text, /Asia\/Kolkata \(IST, UTC\+05:30\)/);
        assert.match(text, /= Closing balance\s+5990 credits\s+Rs 599\.00/);
        assert.match(text, /payment INV-1001/);
        assert.match(text, /^BALANCED: opening 995 \+ movements 5094 = closing 6089 credits/m);
        const csv = csvRows(readFileSync(join(out, 'close-2026-10.csv'), 'utf8'));
        assert.deepEqual(csv[0], ['account', 'item', 'endpoint', 'credits', 'paise']);
        assert.deepEqual(
          csv.find((r) => r[0] === 'TOTAL' && r[1] === 'closing'),
          ['TOTAL', 'closing', '', '6089', '60890'],
        );
        assert.deepEqual(JSON.parse(readFileSync(join(out, 'close-2026-10.json'), 'utf8')), JSON.parse(json.stdout));

        const september = await cli(['close', '--month', '2026-09', '--account', users.solo.userId, '--format', 'csv']);
        assert.equal(september.code, 0, september.stderr);
        assert.deepEqual(
          csvRows(september.stdout).find((r) => r[0] === users.solo.userId && r[1] === 'closing'),
          [users.solo.userId, 'closing', '', '995', '9950'],
        );
        assert.equal((await cli(['close', '--month', '2026-13'])).code, 2);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });

    it('shows the payment reference on the ledger lines of the finance export', async () => {
      const exported = await cli(['export', '--from', '2026-09-30T18:30:00Z', '--to', '2026-10-31T18:30:00Z', '--format', 'jsonl']);
      assert.equal(exported.code, 0, exported.stderr);
      const grants = exported.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; paymentReference: string | null; accountId: string })
        .filter((r) => r.type === 'CreditsGranted');
      assert.deepEqual(
        grants.map((g) => g.paymentReference),
        ['INV-1001', 'INV-1002', null],
      );
    });

    describe('the customer’s monthly statement', () => {
      type Session = { cookie: string };
      const request = (path: string, init: { cookie?: string; form?: Record<string, string> } = {}) =>
        t.app.request(`${ORIGIN}${path}`, {
          method: init.form ? 'POST' : 'GET',
          headers: {
            ...(init.cookie ? { Cookie: init.cookie } : {}),
            ...(init.form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
          },
          ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
        });
      const login = async (email: string): Promise<Session> => {
        const form = await request('/dashboard/login');
        const loginCookie = /dashboard_login=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')![1]!;
        const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
        const res = await request('/dashboard/login', {
          cookie: `dashboard_login=${loginCookie}`,
          form: { _csrf: csrf, email, password: PASSWORD, next: '/dashboard/billing' },
        });
        assert.equal(res.status, 303);
        return { cookie: `dashboard_session=${/dashboard_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1]!}` };
      };
      let session: Session;
      before(async () => {
        session = await login(`solo-${target.name}@lawfirm.example`);
      });

      it('links October’s statement from the billing page, and the ledger page shows payment references', async () => {
        const billing = await (await request('/dashboard/billing', session)).text();
        assert.ok(billing.includes(`/dashboard/billing/statements/${users.solo.userId}/2026-10.pdf`));
        assert.ok(billing.includes(`/dashboard/billing/statements/${users.solo.userId}/2026-10.csv`));
        const ledger = await (await request('/dashboard/ledger', session)).text();
        assert.match(ledger, /data-testid="payment-reference">INV-1001</);
      });

      it('downloads the CSV with the close’s figures in credits and paise', async () => {
        const res = await request(`/dashboard/billing/statements/${users.solo.userId}/2026-10.csv`, session);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
        const rows = csvRows(await res.text());
        assert.deepEqual(rows[0], ['item', 'detail', 'credits', 'paise']);
        const figure = (item: string, detail = '') => rows.find((r) => r[0] === item && r[1] === detail)?.slice(2);
        assert.deepEqual(figure('opening_balance'), ['995', '9950']);
        assert.deepEqual(figure('purchases'), ['5000', '50000']);
        assert.deepEqual(figure('consumption', 'POST /search/cases'), ['20', '200']);
        assert.deepEqual(figure('refunds'), ['5', '50']);
        assert.deepEqual(figure('expiries'), ['288', '2880']);
        assert.deepEqual(figure('closing_balance'), ['5990', '59900']);
        assert.ok(rows.some((r) => r[0] === 'purchase' && r[1]!.endsWith('INV-1001') && r[2] === '5000'));
      });

      it('downloads a PDF whose text carries the totals', async () => {
        const res = await request(`/dashboard/billing/statements/${users.solo.userId}/2026-10.pdf`, session);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/pdf');
        const bytes = new Uint8Array(await res.arrayBuffer());
        assert.equal(new TextDecoder().decode(bytes.slice(0, 5)), '%PDF-');
        const text = (await pdfText(bytes)).replace(/\s+/g, ' ');
        assert.match(text, /Credit statement 2026-10 - billing account/);
        assert.match(text, /Opening balance 995 credits Rs 99\.50/);
        assert.match(text, /= Closing balance 5990 credits Rs 599\.00/);
        assert.match(text, /INV-1001/);
      });

      it('refuses another account’s statement and a month not begun', async () => {
        const other = await request(`/dashboard/billing/statements/${users.other.userId}/2026-10.csv`, session);
        assert.equal(other.status, 403);
        assert.doesNotMatch(await other.text(), /closing/i);
        assert.equal((await request(`/dashboard/billing/statements/${users.solo.userId}/2026-12.pdf`, session)).status, 404);
        assert.equal((await request(`/dashboard/billing/statements/${users.solo.userId}/2026-10.txt`, session)).status, 404);
        const anonymous = await request(`/dashboard/billing/statements/${users.solo.userId}/2026-10.csv`);
        assert.equal(anonymous.status, 303);
      });
    });

    it('fails the close, naming the account, when a ledger row was edited in the database', async () => {
      const stream = `credit-ledger-${users.solo.userId}`;
      // Someone with the database's owner rights lowers a charge: the events' immutability trigger must be disabled first.
      await sql`alter table events disable trigger events_no_update_or_delete`.execute(database.db);
      await sql`update events set data = jsonb_set(data, '{amount}', '1'::jsonb)
        where stream_id = ${stream} and type = 'CreditsCharged'
          and stream_position = (select min(stream_position) from events where stream_id = ${stream} and type = 'CreditsCharged'
            and recorded_at >= ${at('2026-10-01T00:00:00Z')})`.execute(database.db);
      await sql`alter table events enable trigger events_no_update_or_delete`.execute(database.db);
      const failed = await cli(['close', '--month', '2026-10']);
      assert.equal(failed.code, 1);
      assert.match(failed.stdout, /^NOT BALANCED: 1 difference\(s\)/m);
      assert.match(failed.stderr, new RegExp(`DIFFERENCE stored-balance-mismatch accountId=${users.solo.userId} `));
    });
  });
}
