/**
 * Black-box: the README's quickstart. The real service on embedded defaults with nothing
 * configured (no ADMIN_TOKEN), then `court-records dev seed` run from the same environment
 * as `npm start` (HOST, PORT, DATA_DIR), then the printed curl lines run as printed: the
 * first keyed calls a new user makes. Also its refusals: a wrong token, a bad flag, no
 * token to be found.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { corpusDir } from '../support/corpus.ts';
import { runCommand, startService, type CommandRun, type RunningService } from '../support/service-process.ts';

const skip = process.env.ADMIN_TOKEN ? 'ADMIN_TOKEN is set in the test environment' : false;

function seed(args: string[], env: Record<string, string>): Promise<CommandRun> {
  return runCommand(process.execPath, ['bin/court-records.mjs', 'dev', 'seed', ...args], env);
}

/** The printed lines that start with `curl`, run by a shell exactly as a user pastes them. */
async function runCurl(line: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const result = await runCommand('sh', ['-c', `${line} -w '\\n%{http_code}'`], {});
  assert.equal(result.code, 0, result.stderr);
  const cut = result.stdout.lastIndexOf('\n');
  return { status: Number(result.stdout.slice(cut + 1)), body: JSON.parse(result.stdout.slice(0, cut)) as Record<string, unknown> };
}

/**
 * /health answers once the service listens; the first start's corpus is indexed after that.
 * A separate seeded account searches until the index answers, so the tested account's
 * balance sees only its own calls.
 */
async function searchable(env: Record<string, string>): Promise<void> {
  const run = await seed(['--json', '--credits', '100000'], env);
  assert.equal(run.code, 0, run.stderr);
  const { apiKey, apiRoot } = JSON.parse(run.stdout) as { apiKey: string; apiRoot: string };
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${apiRoot}/search/cases`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'union of india', limit: 1 }),
    });
    const body = (await res.json()) as { data?: unknown[] };
    if (res.status === 200 && (body.data?.length ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error('the first start never made the corpus searchable');
}

describe('quickstart: npm start, then court-records dev seed, then the printed curl', { skip }, () => {
  let service: RunningService;
  let env: Record<string, string>;

  before(async () => {
    service = await startService('node', { AUTO_INGEST: 'true', CORPUS_DIR: corpusDir });
    const url = new URL(service.url);
    // What `npm start` read: the command finds the service and its local token from the same variables.
    env = { HOST: url.hostname, PORT: url.port, DATA_DIR: service.dataDir, DATABASE_URL: '', COURT_RECORDS_URL: '' };
    await searchable(env);
  });
  after(async () => service.stop());

  it('creates a funded Enterprise account and a key, and the printed calls answer with it', async () => {
    const result = await seed([], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    const key = /^ {2}(crk_live-\S+)$/m.exec(result.stdout)?.[1];
    assert.ok(key, result.stdout);
    const curls = result.stdout.split('\n').filter((l) => l.trimStart().startsWith('curl '));
    assert.equal(curls.length, 4, result.stdout);
    // The fourth, a timeline request, is what the webhook test below makes.
    assert.match(curls[3] ?? '', /\/request-timeline'$/);
    assert.match(result.stdout, /^ {2}npx court-records dev listen --email '\S+' --password '\S+'$/m);

    const usage = await runCurl(curls[0] as string);
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    const data = usage.body.data as { tier: string; balance: number };
    assert.equal(data.tier, 'enterprise');
    assert.equal(data.balance, 10_000);

    const search = await runCurl(curls[1] as string);
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.ok(Array.isArray(search.body.data) && search.body.data.length > 0, 'the real corpus answers the search');
    const after = await runCurl(curls[0] as string);
    assert.equal((after.body.data as { balance: number }).balance, 10_000 - 5, 'the search was charged its 5 credits');

    // The test-mode key's search answers from the fixture corpus and leaves the live balance alone.
    const testKey = /^ {2}(crk_test-\S+)$/m.exec(result.stdout)?.[1];
    assert.ok(testKey, result.stdout);
    assert.ok(curls[2]?.includes(testKey));
    const testSearch = await runCurl(curls[2] as string);
    assert.equal(testSearch.status, 200, JSON.stringify(testSearch.body));
    assert.ok(Array.isArray(testSearch.body.data) && testSearch.body.data.length > 0, 'the fixture corpus answers');
    const untouched = await runCurl(curls[0] as string);
    assert.equal((untouched.body.data as { balance: number }).balance, 10_000 - 5, 'test mode charged nothing live');

    // The key stays a secret of this output: the service never logs it.
    assert.ok(!service.output().includes(key), 'the plaintext key reached the service log');
    assert.ok(!service.output().includes(testKey), 'the plaintext test key reached the service log');
  });

  it('the README’s SDK example is sdk/examples/first-calls.ts, and it runs against the service with a seeded key', async () => {
    const example = readFileSync('sdk/examples/first-calls.ts', 'utf8');
    const readme = /<!-- sdk-example:start -->\n```ts\n([\s\S]*?)```\n<!-- sdk-example:end -->/.exec(
      readFileSync('README.md', 'utf8'),
    )?.[1];
    assert.equal(readme, example, 'the README block and the example file differ');

    const seeded = await seed(['--json', '--credits', '100'], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const { apiKey, apiRoot } = JSON.parse(seeded.stdout) as { apiKey: string; apiRoot: string };
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'sdk/examples/first-calls.ts'], {
      COURT_RECORDS_API: apiRoot,
      COURT_RECORDS_API_KEY: apiKey,
    });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    const hits = lines.filter((l) => /^\S+ {2}\S/.test(l));
    assert.ok(hits.length > 0 && hits.length <= 3, run.stdout);
    assert.ok(lines.includes('charged 5 credits, 95 left'), run.stdout);
    assert.ok(
      lines.some((l) => /^refused: CASE_NOT_FOUND \(request \S+\)$/.test(l)),
      run.stdout,
    );
    const pdf = lines.at(-1) ?? '';
    assert.match(pdf, /^(PDF of \S+ until \S+: \/\S+|no PDF held for \S+)$/);
    const usage = await fetch(`${apiRoot}/usage`, { headers: { 'X-API-Key': apiKey } });
    const balance = ((await usage.json()) as { data: { balance: number } }).data.balance;
    assert.equal(balance, pdf.startsWith('PDF of') ? 90 : 95, 'the search, and the PDF link when one was handed out');
  });

  it('prints a dashboard login that works, and dev listen receives and verifies the account’s webhook for a timeline', async () => {
    const seeded = await seed(['--json', '--credits', '1000'], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const account = JSON.parse(seeded.stdout) as { email: string; password: string; apiKey: string; apiRoot: string; dashboardUrl: string };

    // The dashboard: its login form, then the keys page showing the seeded keys.
    const form = await fetch(`${account.dashboardUrl}/login`);
    const loginCookie = /dashboard_login=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
    assert.ok(loginCookie && csrf);
    const login = await fetch(`${account.dashboardUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: `dashboard_login=${loginCookie}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: account.email, password: account.password, next: '/dashboard/keys' }).toString(),
    });
    assert.equal(login.status, 303);
    const session = /dashboard_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    assert.ok(session);
    const keys = await (await fetch(`${account.dashboardUrl}/keys`, { headers: { Cookie: `dashboard_session=${session}` } })).text();
    assert.ok(keys.includes(`crk_live...${account.apiKey.slice(-4)}`), 'the seeded live key is listed');

    // dev listen: registered once it says so on stderr; then a timeline's completed event arrives, verified.
    const listener = spawn(process.execPath, ['bin/court-records.mjs', 'dev', 'listen', '--email', account.email, '--count', '1'], {
      env: { ...process.env, ...env, COURT_RECORDS_PASSWORD: account.password },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    listener.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => listener.once('close', resolve));
    await new Promise<void>((resolve, reject) => {
      listener.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('listening on')) resolve();
      });
      void exited.then(() => reject(new Error(`dev listen ended before listening: ${stderr}`)));
    });
    const timeline = await fetch(`${account.apiRoot}/request-timeline`, {
      method: 'POST',
      headers: { 'X-API-Key': account.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ cnr: 'GAHC010225502018' }),
    });
    assert.equal(timeline.status, 202, await timeline.clone().text());
    const requestId = ((await timeline.json()) as { data: { requestId: string } }).data.requestId;
    const timeout = setTimeout(() => listener.kill('SIGKILL'), 240_000);
    const code = await exited;
    clearTimeout(timeout);
    assert.equal(code, 0, `stdout: ${stdout}\nstderr: ${stderr}`);
    const delivery = JSON.parse(stdout.trim()) as { webhookId: string; type: string; data: { requestId: string } };
    assert.equal(delivery.type, 'timeline.completed', stdout);
    assert.equal(delivery.data.requestId, requestId);
    assert.match(delivery.webhookId, /\S/);
    assert.ok(!service.output().includes(account.password), 'the dashboard password reached the service log');
  });

  it('makes a new account each run; --json prints one object', async () => {
    const first = await seed(['--json', '--credits', '250'], env);
    const second = await seed(['--json', '--credits', '250'], env);
    for (const run of [first, second]) assert.equal(run.code, 0, run.stderr);
    const a = JSON.parse(first.stdout) as { userId: string; apiKey: string; credits: number; apiRoot: string };
    const b = JSON.parse(second.stdout) as { userId: string; apiKey: string };
    assert.notEqual(a.userId, b.userId);
    assert.notEqual(a.apiKey, b.apiKey);
    assert.equal(a.credits, 250);
    const res = await fetch(`${a.apiRoot}/usage`, { headers: { 'X-API-Key': a.apiKey } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { data: { balance: number } }).data.balance, 250);
  });

  it('refuses a wrong token, bad flags and a missing token, creating nothing', async () => {
    const wrong = await seed([], { ...env, ADMIN_TOKEN: 'not-the-admin-token-0123456789' });
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stdout, '');
    assert.match(wrong.stderr, /^court-records dev: \w+: /);

    for (const flags of [['--credits', '0'], ['--credits', '1.5'], ['--credits', '-3'], ['--nope']]) {
      const bad = await seed(flags, env);
      assert.equal(bad.code, 2, flags.join(' '));
      assert.equal(bad.stdout, '');
    }

    const elsewhere = mkdtempSync(join(tmpdir(), 'court-records-no-token-'));
    try {
      const missing = await seed([], { ...env, DATA_DIR: elsewhere });
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no admin token: set ADMIN_TOKEN, or start the service/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
