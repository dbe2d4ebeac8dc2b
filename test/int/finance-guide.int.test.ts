/**
 * docs/finance-guide.md, followed as a finance team would on an embedded installation: every
 * `sh` block of the guide is run in order, as written (only `$USER_ID` and `$ACCOUNT_ID` are
 * filled in, and `--out` lands in a scratch folder). The service (embedded PGlite and chdb in
 * one DATA_DIR) takes the grants and a month of charged calls; it is then stopped, as the
 * guide says, for the finance commands, which open that DATA_DIR themselves. Each command
 * must succeed and say what the guide says it says.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openChdbStore, type ChdbAnalyticsStore } from '../../src/adapters/clickhouse/chdb-store.ts';
import { migrateAnalytics } from '../../src/adapters/clickhouse/migrate.ts';
import { runAdmin } from '../../src/cli/admin.ts';
import { runFinance } from '../../src/cli/finance.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite, type OpenedDatabase } from '../../src/db/open.ts';
import { auditToClickHouse } from '../../src/projections/audit-to-clickhouse.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { eventStoreOf } from '../../src/wiring.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, SettableClock, type TestApp } from '../support/app.ts';

const TOKEN = 'admin-token-for-the-finance-guide';
const guide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'finance-guide.md'), 'utf8');
const commands = [...guide.matchAll(/^```sh\n([\s\S]*?)\n```$/gm)].map((m) => m[1]!.trim());

/** A command line's words, as sh splits them (double quotes only: the guide uses no others). */
function words(line: string, vars: Record<string, string>): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) =>
    (m[1] ?? m[2]!).replace(/\$([A-Z_]+)/g, (_, name: string) => {
      assert.ok(vars[name] !== undefined, `the guide uses $${name}, which this test does not set`);
      return vars[name];
    }),
  );
}

describe('the finance guide, step by step', { timeout: 180_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'finance-guide-'));
  const work = mkdtempSync(join(tmpdir(), 'finance-guide-work-'));
  const clock = new SettableClock(new Date('2026-10-03T05:00:00Z'));
  const env = { DATA_DIR: dataDir, KEY_HASH_SECRET, COURT_RECORDS_URL: 'http://court-records.test/', ADMIN_TOKEN: TOKEN };
  let database: OpenedDatabase | null = null;
  let analytics: ChdbAnalyticsStore | null = null;
  let t: TestApp;
  let userId = '';
  let key = '';

  const startService = async () => {
    database = await openPglite(dataDir, 'the test service');
    await migrate(database.db);
    analytics = await openChdbStore(dataDir);
    await migrateAnalytics(analytics);
    t = buildTestApp({ db: database.db, clock, adminToken: TOKEN, keyHashSecret: KEY_HASH_SECRET, analytics });
  };
  /** The guide's "stop the service first": the audit trail projected, then both embedded stores let go. */
  const stopService = async () => {
    if (database && analytics) {
      await new ProjectorRunner(database.db, eventStoreOf(database.db), auditToClickHouse(analytics), { now: () => clock.now() }).catchUp();
    }
    await analytics?.close();
    await database?.close();
    analytics = null;
    database = null;
  };

  /** Runs one of the guide's command lines; its stdout, stderr and exit code. */
  async function run(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const argv = words(line, { USER_ID: userId, ACCOUNT_ID: userId });
    assert.deepEqual(argv.slice(0, 2), ['npx', 'court-records'], line);
    const [command, ...rest] = argv.slice(2);
    const out = rest.indexOf('--out');
    if (out >= 0) rest[out + 1] = join(work, rest[out + 1]!);
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env,
    };
    if (command === 'admin') {
      assert.ok(database, `the service must be running for: ${line}`);
      const code = await runAdmin(rest, {
        ...io,
        fetch: async (input, init) => {
          const url = new URL(input);
          return t.app.request(`${url.pathname}${url.search}`, init);
        },
      });
      return { code, stdout, stderr };
    }
    assert.equal(command, 'finance', line);
    assert.equal(database, null, `the guide stops the embedded service before: ${line}`);
    return { code: await runFinance(rest, io), stdout, stderr };
  }

  before(async () => {
    await startService();
    const user = await t.application.accounts.registerUser(enterpriseUser('finance-guide@lawfirm.example'), { kind: 'operator' });
    assert.ok(user.ok);
    userId = user.value.userId;
    const issued = await t.application.accounts.createKey(userId, 'notebook', { kind: 'operator' });
    assert.ok(issued.ok);
    key = issued.value.fullKey;
    await t.application.invalidator.poll();
  });
  after(async () => {
    await stopService();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('has the commands this test follows, in this order', () => {
    assert.deepEqual(
      commands.map((c) => c.split(' ').slice(2, 4).join(' ')),
      ['admin credits', 'admin credits', 'finance reconcile', 'finance close', 'finance export', 'finance close'],
    );
  });

  it('1. grants a payment with its reference, and a retry of it credits nothing', async () => {
    const first = await run(commands[0]!);
    assert.equal(first.code, 0, first.stderr);
    const granted = JSON.parse(first.stdout) as { balance: number; paymentReference: string; replayed: boolean; grantId: string };
    assert.deepEqual([granted.balance, granted.paymentReference, granted.replayed], [50_000, 'NEFT-UTR-SBIN126100112345', false]);
    const retry = await run(commands[1]!);
    assert.equal(retry.code, 0, retry.stderr);
    assert.deepEqual(JSON.parse(retry.stdout), { ...granted, replayed: true });

    // The month's calls: three searches, one in November (IST).
    for (const when of ['2026-10-10T09:00:00Z', '2026-10-20T09:00:00Z', '2026-10-31T19:00:00Z']) {
      clock.set(new Date(when));
      const res = await t.app.request(`${BASE}/search/cases`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'appeal' }),
      });
      assert.equal(res.status, 200);
    }
    clock.set(new Date('2026-11-02T06:00:00Z'));
    await stopService();
  });

  it('2. reconciles October clean, every check run', async () => {
    const reconciled = await run(commands[2]!);
    assert.equal(reconciled.code, 0, reconciled.stdout + reconciled.stderr);
    assert.match(reconciled.stdout, /^0 difference\(s\); checked 1 accounts/m);
  });

  it('3. closes October: balanced, and filed to --out', async () => {
    const closed = await run(commands[3]!);
    assert.equal(closed.code, 0, closed.stdout + closed.stderr);
    assert.match(closed.stdout, /^BALANCED: opening 0 \+ movements 49990 = closing 49990 credits/m);
    assert.match(closed.stdout, /POST \/search\/cases\s+10 credits\s+Rs 1\.00/);
    assert.match(closed.stdout, /payment NEFT-UTR-SBIN126100112345/);
    assert.deepEqual(readdirSync(join(work, 'close-2026-10')).sort(), ['close-2026-10.csv', 'close-2026-10.json', 'close-2026-10.txt']);
  });

  it('4. exports the month’s ledger lines with the payment reference', async () => {
    const exported = await run(commands[4]!);
    assert.equal(exported.code, 0, exported.stderr);
    const lines = exported.stdout.trim().split('\n');
    const header = lines[0]!.split(',');
    const grant = lines.find((l) => l.includes(',CreditsGranted,'))!.split(',');
    assert.equal(grant[header.indexOf('paymentReference')], 'NEFT-UTR-SBIN126100112345');
    assert.equal(grant[header.indexOf('source')], 'purchase');
    assert.equal(grant[header.indexOf('amount')], '50000');
    assert.equal(lines.filter((l) => l.includes(',CreditsCharged,')).length, 2, 'October’s two calls, not November’s');
  });

  it('5. gives one account’s figures as CSV', async () => {
    const one = await run(commands[5]!);
    assert.equal(one.code, 0, one.stderr);
    assert.ok(one.stdout.includes(`\n${userId},closing,,49990,499900\n`), one.stdout);
  });
});
