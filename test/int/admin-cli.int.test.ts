/**
 * The admin CLI's command line against the real admin API (the app answers its fetches in
 * process): each command's request and printed object, the exit codes, refusals on
 * stderr, and usage errors that never reach the service.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../../src/cli/admin.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildTestApp, SettableClock } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const TOKEN = 'admin-token-for-cli-tests-0001';
const URL_BASE = 'http://court-records.test/';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly requests: number;
}

describe('admin CLI', () => {
  let database: TestDatabase;
  let app: App;

  before(async () => {
    database = await databases[0]!.open();
    const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
    ({ app } = buildTestApp({ db: database.db, clock, adminToken: TOKEN }));
  });
  after(async () => database.close());

  async function run(
    argv: string[],
    env: Record<string, string | undefined> = { COURT_RECORDS_URL: URL_BASE, ADMIN_TOKEN: TOKEN },
  ): Promise<Run> {
    let stdout = '';
    let stderr = '';
    let requests = 0;
    const code = await runAdmin(argv, {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env,
      fetch: async (input, init) => {
        requests += 1;
        const url = new URL(input);
        return app.request(`${url.pathname}${url.search}`, init);
      },
    });
    return { code, stdout, stderr, requests };
  }

  function printed(result: Run): Record<string, unknown> {
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    const lines = result.stdout.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, 'exactly one line on stdout');
    const value = JSON.parse(lines[0]!) as unknown;
    assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value));
    return value as Record<string, unknown>;
  }

  it('runs every command and prints one JSON object per command', async () => {
    const org = printed(
      await run(['org', 'create', '--name', 'Acme Legal LLP', '--allowlist', '203.0.113.0/24, 2001:db8::/32', '--strict-allowlist']),
    );
    const organizationId = org.organizationId as string;
    assert.match(organizationId, /^org_/);
    const row = await database.db
      .selectFrom('organizations')
      .selectAll()
      .where('organizationId', '=', organizationId)
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.allowlist, row.strictAllowlist], [['203.0.113.0/24', '2001:db8::/32'], true]);

    assert.deepEqual(printed(await run(['org', 'allowlist', '--org', organizationId, '--set', '198.51.100.0/24'])), {
      organizationId,
      allowlist: ['198.51.100.0/24'],
      strict: true,
    });
    assert.deepEqual(printed(await run(['org', 'allowlist', '--org', organizationId, '--set', '', '--no-strict'])), {
      organizationId,
      allowlist: [],
      strict: false,
    });

    const user = printed(
      await run([
        'user',
        'create',
        '--email',
        'priya@acme-legal.example',
        '--name',
        'Priya Raman',
        '--tier',
        'enterprise',
        '--org',
        organizationId,
        '--role',
        'ORG_ADMIN',
        '--no-api-access',
      ]),
    );
    assert.equal(user.organizationId, organizationId);
    const userId = user.userId as string;
    const stored = await database.db.selectFrom('users').selectAll().where('userId', '=', userId).executeTakeFirstOrThrow();
    assert.deepEqual([stored.role, stored.apiAccess, stored.emailVerified, stored.trial], ['ORG_ADMIN', false, true, false]);

    const free = printed(
      await run([
        'user',
        'create',
        '--email',
        'dev@example.org',
        '--name',
        'Dev',
        '--tier',
        'free',
        '--trial',
        '--unverified',
        '--password',
        'a long password',
      ]),
    );
    assert.deepEqual(Object.keys(free), ['userId']);
    const freeRow = await database.db
      .selectFrom('users')
      .selectAll()
      .where('userId', '=', free.userId as string)
      .executeTakeFirstOrThrow();
    assert.deepEqual([freeRow.trial, freeRow.emailVerified, freeRow.apiAccess], [true, false, true]);

    const key = printed(await run(['key', 'create', '--user', userId, '--name', 'Research pipeline']));
    assert.deepEqual(Object.keys(key).sort(), ['displayKey', 'fullKey', 'id', 'mode', 'name']);
    assert.equal(key.name, 'Research pipeline');

    assert.deepEqual(printed(await run(['user', 'set-standing', '--user', userId, '--standing', 'suspended'])), {
      userId,
      standing: 'suspended',
    });
    assert.deepEqual(printed(await run(['org', 'deactivate', '--org', organizationId])), { organizationId, status: 'deactivated' });
  });

  it('restricts a case, and reports an unknown one on stderr with exit 1', async () => {
    const now = new Date('2026-11-26T10:00:00Z');
    await database.db
      .insertInto('cases')
      .values({
        caseId: 'hc-TEST/CLI 1',
        source: 'test',
        sourceRef: 'cli-1',
        caseNumber: 'WP(C) 1/2024',
        caseNumberNormalised: 'WPC/1/2024',
        courtCode: 'DLHC',
        courtName: 'High Court of Delhi',
        courtLevel: 'high',
        bench: null,
        caseType: 'WP(C)',
        title: 'A v. B',
        petitioners: '[]',
        respondents: '[]',
        judges: '[]',
        decisionDate: null,
        filingDate: null,
        decisionYear: null,
        citations: '[]',
        text: null,
        summary: null,
        documentBearing: false,
        quirks: '[]',
        extra: '{}',
        contentHash: 'test',
        ingestedAt: now,
      })
      .execute();
    // An id with a slash and a space travels percent-encoded in the path.
    assert.deepEqual(printed(await run(['case', 'restrict', '--case', 'hc-TEST/CLI 1'])), { caseId: 'hc-TEST/CLI 1', restricted: true });
    const missing = await run(['case', 'restrict', '--case', 'hc-NOSUCH']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, 'court-records admin: CASE_NOT_FOUND: No case matches this identifier.\n');
  });

  it('prints a refusal as code and message on stderr with exit 1', async () => {
    printed(await run(['user', 'create', '--email', 'twice@example.org', '--name', 'Twice', '--tier', 'payg']));
    const again = await run(['user', 'create', '--email', 'twice@example.org', '--name', 'Twice', '--tier', 'payg']);
    assert.deepEqual(
      [again.code, again.stdout, again.stderr],
      [1, '', 'court-records admin: EMAIL_TAKEN: A user with this email already exists.\n'],
    );
    const badCidr = await run(['org', 'create', '--name', 'Bad', '--allowlist', '10.0.0.0/40']);
    assert.equal(badCidr.code, 1);
    assert.match(badCidr.stderr, /^court-records admin: VALIDATION_ERROR: .*10\.0\.0\.0\/40/);
    const wrongToken = await run(['org', 'deactivate', '--org', 'org_x'], {
      COURT_RECORDS_URL: URL_BASE,
      ADMIN_TOKEN: 'not-the-admin-token-at-all',
    });
    assert.deepEqual([wrongToken.code, wrongToken.stderr.split(':')[1]?.trim()], [1, 'ADMIN_UNAUTHORIZED']);
  });

  it('refuses a bad command line with exit 2 without calling the service', async () => {
    const cases: { argv: string[]; env?: Record<string, string | undefined>; message: RegExp }[] = [
      { argv: ['org', 'explode'], message: /unknown command: org explode/ },
      { argv: ['org', 'create'], message: /missing --name/ },
      { argv: ['org', 'create', '--name', 'X', '--colour', 'red'], message: /colour/ },
      { argv: ['org', 'create', '--name', 'X', 'stray'], message: /stray/ },
      { argv: ['org', 'allowlist', '--org', 'org_x'], message: /missing --set/ },
      { argv: ['org', 'allowlist', '--org', 'org_x', '--set', '', '--strict', '--no-strict'], message: /exclude each other/ },
      { argv: ['org', 'deactivate', '--org', ''], message: /--org must not be empty/ },
      {
        argv: ['user', 'create', '--email', 'e@x.org', '--name', 'N', '--tier', 'gold'],
        message: /--tier must be one of free, payg, scale, enterprise/,
      },
      {
        argv: ['user', 'create', '--email', 'e@x.org', '--name', 'N', '--tier', 'free', '--role', 'OWNER'],
        message: /--role must be one of/,
      },
      { argv: ['user', 'set-standing', '--user', 'usr_x', '--standing', 'banned'], message: /--standing must be one of/ },
      { argv: ['case', 'restrict', '--case', 'x'], env: { ADMIN_TOKEN: TOKEN }, message: /COURT_RECORDS_URL/ },
      { argv: ['case', 'restrict', '--case', 'x'], env: { COURT_RECORDS_URL: URL_BASE }, message: /ADMIN_TOKEN/ },
      { argv: ['case', 'restrict', '--case', 'x', '--url', 'not a url'], message: /not a URL/ },
    ];
    for (const { argv, env, message } of cases) {
      const result = await run(argv, env ?? { COURT_RECORDS_URL: URL_BASE, ADMIN_TOKEN: TOKEN });
      assert.equal(result.code, 2, argv.join(' '));
      assert.equal(result.stdout, '');
      assert.match(result.stderr, message);
      assert.equal(result.requests, 0);
    }
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stderr, /org allowlist --org ORG_ID --set CIDR,CIDR \[--strict \| --no-strict\]/);
  });

  it('keeps a path prefix of the base URL and lets --url override COURT_RECORDS_URL', async () => {
    let seen = '';
    const code = await runAdmin(['org', 'deactivate', '--org', 'org_x', '--url', 'https://ops.example/court'], {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: { COURT_RECORDS_URL: 'http://elsewhere.example', ADMIN_TOKEN: TOKEN },
      fetch: async (input) => {
        seen = input;
        return new Response(JSON.stringify({ success: true, data: { organizationId: 'org_x', status: 'deactivated' } }), { status: 200 });
      },
    });
    assert.equal(code, 0);
    assert.equal(seen, 'https://ops.example/court/admin/organizations/org_x/deactivate');
  });
});
