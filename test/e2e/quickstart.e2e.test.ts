/**
 * Black-box: the README's quickstart on a machine with no internet. The real service on
 * embedded defaults with nothing configured (no ADMIN_TOKEN, no `temporal` on PATH, no
 * TEMPORAL_CLI_PATH, the Temporal CLI's download refused by a recording loopback proxy),
 * then `court-records dev seed` run from the same environment as `npm start` (HOST, PORT,
 * DATA_DIR), then the printed curl lines run as printed: the first keyed calls a new user
 * makes. The workflow engine runs from ../shared/bin/temporal: an analysis is stored and
 * its webhook delivered, and no download was attempted. Also its refusals: a wrong token,
 * a bad flag, no token to be found.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN_FILE } from '../../src/adapters/crypto/local-secret.ts';
import { openTemporal } from '../../src/adapters/temporal/temporal-runtime.ts';
import { corpusDir } from '../support/corpus.ts';
import { noInternet, type NoInternet } from '../support/no-internet.ts';
import { runCommand, startService, type CommandRun, type RunningService } from '../support/service-process.ts';
import { testDataConverter } from '../support/temporal.ts';

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

/** Every dev listen still running: a test that fails before its delivery must not leave one holding the run open. */
const listeners = new Set<ChildProcess>();

/** A dev listen receiving `count` events: resolves once it listens; `exited` is its exit code. */
async function listen(
  env: Record<string, string>,
  account: { email: string; password: string },
  args: readonly string[],
): Promise<{ exited: Promise<number | null>; stdout: () => string; stderr: () => string; kill: () => void }> {
  const listener = spawn(process.execPath, ['bin/court-records.mjs', 'dev', 'listen', '--email', account.email, ...args], {
    env: { ...process.env, ...env, COURT_RECORDS_PASSWORD: account.password },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  listeners.add(listener);
  let stdout = '';
  let stderr = '';
  listener.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => listener.once('close', resolve));
  void exited.then(() => listeners.delete(listener));
  await new Promise<void>((resolve, reject) => {
    listener.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on')) resolve();
    });
    void exited.then(() => reject(new Error(`dev listen ended before listening: ${stderr}`)));
  });
  return { exited, stdout: () => stdout, stderr: () => stderr, kill: () => listener.kill('SIGKILL') };
}

/** Waits for `listener` to end, within `ms`, and returns the one delivery it printed. */
async function delivered(
  listener: Awaited<ReturnType<typeof listen>>,
  ms: number,
): Promise<{ webhookId: string; type: string; data: Record<string, unknown> }> {
  const timeout = setTimeout(listener.kill, ms);
  const code = await listener.exited;
  clearTimeout(timeout);
  assert.equal(code, 0, `stdout: ${listener.stdout()}\nstderr: ${listener.stderr()}`);
  return JSON.parse(listener.stdout().trim()) as { webhookId: string; type: string; data: Record<string, unknown> };
}

describe('quickstart: npm start with no internet, then court-records dev seed, then the printed curl', { skip }, () => {
  let service: RunningService;
  let env: Record<string, string>;
  let offline: NoInternet;

  before(async () => {
    offline = await noInternet();
    service = await startService('node', { AUTO_INGEST: 'true', CORPUS_DIR: corpusDir, ...offline.env });
    const url = new URL(service.url);
    // What `npm start` read: the command finds the service and its local token from the same variables.
    env = { HOST: url.hostname, PORT: url.port, DATA_DIR: service.dataDir, DATABASE_URL: '', COURT_RECORDS_URL: '' };
    await searchable(env);
  });
  after(async () => {
    for (const listener of listeners) listener.kill('SIGKILL');
    await service.stop();
    await offline.close();
  });

  it('refuses the Temporal CLI download in such an environment, so a service that attempted it would have no engine', async () => {
    // A proxy of its own: the service's must never be asked anything.
    const control = await noInternet();
    const saved = { ...process.env };
    Object.assign(process.env, control.env);
    try {
      const { dataConverter } = await testDataConverter();
      await assert.rejects(
        openTemporal({
          address: undefined,
          namespace: 'default',
          dataConverter,
          devServer: {
            dbFilename: undefined,
            cli: { path: undefined, source: 'download' },
            port: undefined,
            uiPort: undefined,
            codecEndpoint: undefined,
          },
        }),
        /no Temporal CLI at TEMPORAL_CLI_PATH, on PATH or in \.\.\/shared\/bin, and its download failed/,
      );
      assert.ok(
        control.tunnels().some((line) => line.startsWith('CONNECT ')),
        `the download asked the proxy: ${control.tunnels().join('; ')}`,
      );
    } finally {
      for (const name of Object.keys(control.env)) Reflect.deleteProperty(process.env, name);
      Object.assign(process.env, saved);
      await control.close();
    }
  });

  it('runs its workflow engine from ../shared/bin/temporal, named in the log and in deep health, and never tries the download', async () => {
    let check: { ok: boolean; backend: string; source?: string } | undefined;
    // The checks are named to the operator: the local admin token the service wrote.
    const operator = { Authorization: `Bearer ${readFileSync(ADMIN_TOKEN_FILE(service.dataDir), 'utf8').trim()}` };
    for (let i = 0; i < 120; i += 1) {
      const body = (await (await fetch(`${service.url}/api/v1/prod/health?deep=1`, { headers: operator })).json()) as {
        checks: { workflowEngine?: { ok: boolean; backend: string; source?: string }; workers?: { ok: boolean } };
      };
      check = body.checks.workflowEngine;
      if (check?.ok && body.checks.workers?.ok) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    assert.deepEqual(check, { ...check, ok: true, backend: 'temporal-dev-server', source: 'temporal CLI: ../shared/bin/temporal' });
    assert.match(service.output(), /"source":"\.\.\/shared\/bin\/temporal".*"msg":"Temporal CLI for the embedded dev server"/);
    assert.deepEqual(offline.tunnels(), [], 'the service asked nothing of the internet');
  });

  it('stores an analysis and delivers its analysis.stored webhook, on the engine it found without the internet', async () => {
    const seeded = await seed(['--json', '--credits', '1000'], env);
    assert.equal(seeded.code, 0, seeded.stderr);
    const account = JSON.parse(seeded.stdout) as { email: string; password: string; apiKey: string; apiRoot: string };
    const listener = await listen(env, account, ['--events', 'analysis.stored', '--count', '1']);
    const caseId = 'sc-inabs-5861';
    const analyze = () =>
      fetch(`${account.apiRoot}/cases/${caseId}/analyze`, {
        method: 'POST',
        headers: { 'X-API-Key': account.apiKey, 'Content-Type': 'application/json' },
        body: '{}',
      });
    // The first start ingests the judgments with full text after the metadata: until then the case is not found (uncharged).
    let admitted = await analyze();
    for (let i = 0; i < 180 && admitted.status === 404; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      admitted = await analyze();
    }
    assert.equal(admitted.status, 202, await admitted.clone().text());
    const delivery = await delivered(listener, 240_000);
    assert.equal(delivery.type, 'analysis.stored', JSON.stringify(delivery));
    assert.equal(delivery.data.caseId, caseId);
    const read = await fetch(`${account.apiRoot}/cases/${caseId}/analysis`, { headers: { 'X-API-Key': account.apiKey } });
    assert.equal(read.status, 200);
    assert.equal(((await read.json()) as { data: { hasAnalysis: boolean } }).data.hasAnalysis, true);
    assert.deepEqual(offline.tunnels(), [], 'the analysis asked nothing of the internet');
  });

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
    // A test call before test mode is built (it follows the first start's ingest) is told when to retry, as the README says.
    let testSearch = await runCurl(curls[2] as string);
    for (let i = 0; i < 24 && testSearch.status === 502; i += 1) {
      assert.equal(testSearch.body.code, 'UPSTREAM_UNAVAILABLE', JSON.stringify(testSearch.body));
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      testSearch = await runCurl(curls[2] as string);
    }
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
    const listener = await listen(env, account, ['--count', '1']);
    const timeline = await fetch(`${account.apiRoot}/request-timeline`, {
      method: 'POST',
      headers: { 'X-API-Key': account.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ cnr: 'GAHC010225502018' }),
    });
    assert.equal(timeline.status, 202, await timeline.clone().text());
    const requestId = ((await timeline.json()) as { data: { requestId: string } }).data.requestId;
    const delivery = await delivered(listener, 240_000);
    assert.equal(delivery.type, 'timeline.completed', JSON.stringify(delivery));
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
