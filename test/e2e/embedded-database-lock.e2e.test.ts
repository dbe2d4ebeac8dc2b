/**
 * Black-box: one process at a time on the embedded database. With the service running on
 * a DATA_DIR, every CLI command that opens that database directly (migrate, ingest, finance
 * reconcile and export, admin watermark trace) refuses with one line naming the service and
 * exits 75, having changed nothing, while the admin commands keep working through the
 * service's admin API; a second service on the same DATA_DIR stops before starting
 * anything. Once the service stops, the same commands run on the intact database.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { corpusDir } from '../support/corpus.ts';
import { freePort, runCommand, startService, type CommandRun, type RunningService } from '../support/service-process.ts';

const TOKEN = 'e2e-admin-token-lock-0123456789';
const DATABASE_HELD = 75;

/** Exit 0, nothing on stderr, one JSON object on stdout. */
function printed(result: CommandRun): Record<string, unknown> {
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** Whether something accepts connections on a local port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until no process has this pid (the service's stop gives up waiting and kills it after 5 s). */
async function gone(pid: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  assert.fail(`process ${pid} is still running`);
}

describe('one process at a time on the embedded database', () => {
  const root = mkdtempSync(join(tmpdir(), 'court-records-lock-e2e-'));
  const dataDir = join(root, 'data');
  const leak = join(root, 'leak.txt');
  // A small corpus: the eCourts fixtures and the reference files they need.
  const corpus = join(root, 'corpus');
  let service: RunningService;
  let servicePid: number;
  let adminEnv: Record<string, string>;
  let userId: string;
  const cliEnv = { DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' };
  const cli = (...args: string[]) => runCommand(process.execPath, ['bin/court-records.mjs', ...args], cliEnv);
  const admin = (...args: string[]) => runCommand(process.execPath, ['bin/court-records.mjs', 'admin', ...args], adminEnv);
  const direct: readonly (readonly string[])[] = [
    ['migrate'],
    ['ingest', corpus],
    ['finance', 'reconcile'],
    ['finance', 'export', '--from', '2000-01-01', '--to', '2100-01-01', '--format', 'jsonl'],
    ['finance', 'close', '--month', '2026-10'],
    ['admin', 'watermark', 'trace', leak],
  ];

  before(async () => {
    mkdirSync(corpus);
    for (const folder of ['ecourts-hc-case-status-fixtures', 'hc-courts-reference', 'hc-case-types']) {
      symlinkSync(join(corpusDir, folder), join(corpus, folder));
    }
    writeFileSync(leak, 'An extract of a judgment with no watermark in it. '.repeat(8));
    // No Temporal: the CLI path points nowhere, so the service starts without workflows, which this test does not use.
    service = await startService('node', {
      DATA_DIR: dataDir,
      AUTO_INGEST: 'false',
      ADMIN_TOKEN: TOKEN,
      TEMPORAL_CLI_PATH: join(root, 'no-temporal'),
    });
    servicePid = (JSON.parse(readFileSync(join(dataDir, 'pglite.lock'), 'utf8')) as { pid: number }).pid;
    adminEnv = { COURT_RECORDS_URL: service.url, ADMIN_TOKEN: TOKEN };
  });
  after(async () => {
    await service.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves the admin commands while it holds the database', async () => {
    const user = printed(await admin('user', 'create', '--email', 'lock@e2e.example', '--name', 'Lock', '--tier', 'enterprise'));
    userId = user.userId as string;
    const granted = printed(await admin('credits', 'grant', '--user', userId, '--amount', '500'));
    assert.deepEqual([granted.balance, granted.replayed, typeof granted.grantId], [500, false, 'string']);
  });

  it('refuses every command that opens the database, naming the service, and exits 75', async () => {
    const results = await Promise.all(direct.map((args) => cli(...args)));
    const started = (JSON.parse(readFileSync(join(dataDir, 'pglite.lock'), 'utf8')) as { startedAt: string }).startedAt;
    results.forEach((result, i) => {
      assert.deepEqual(
        result,
        {
          code: DATABASE_HELD,
          stdout: '',
          stderr:
            `court-records ${direct[i]![0]!}: the service (pid ${servicePid}, started ${started}) holds ${join(dataDir, 'pglite')}: ` +
            'PGlite serves one process at a time; stop that process first, or use PostgreSQL (DATABASE_URL), which serves several\n',
        },
        direct[i]!.join(' '),
      );
    });
    const health = (await (
      await fetch(`${service.url}/api/v1/prod/health?deep=1`, { headers: { Authorization: `Bearer ${TOKEN}` } })
    ).json()) as {
      checks: { documentDatabase: { ok: boolean } };
    };
    assert.equal(health.checks.documentDatabase.ok, true, JSON.stringify(health));
    const granted = printed(await admin('credits', 'grant', '--user', userId, '--amount', '250'));
    assert.deepEqual([granted.balance, granted.replayed], [750, false]);
  });

  it('refuses a second service on the same DATA_DIR before it starts anything', async () => {
    const temporalPort = await freePort();
    const second = await runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      REDIS_URL: '',
      AUTO_INGEST: 'false',
      LOG_LEVEL: 'info',
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(await freePort()),
    });
    assert.equal(second.code, 1);
    assert.equal(second.stdout, '', 'nothing logged: no database opened, no Temporal started');
    assert.match(
      second.stderr,
      new RegExp(
        `^court-records: not started: the service \\(pid ${servicePid}, started [^)]+\\) holds ${join(dataDir, 'pglite')}: [^\\n]+\\n$`,
      ),
    );
    assert.equal(await listening(temporalPort), false, 'no Temporal dev server left behind');
    assert.equal((await fetch(`${service.url}/api/v1/prod/health`)).status, 200);
  });

  it('runs the same commands once the service has stopped, on the intact database', async () => {
    await service.stop();
    await gone(servicePid);
    const migrated = printed(await cli('migrate'));
    assert.deepEqual(migrated.applied, []);

    const reconcile = await cli('finance', 'reconcile', '--format', 'json');
    assert.equal(reconcile.code, 0, reconcile.stdout + reconcile.stderr);
    const report = JSON.parse(reconcile.stdout) as { differences: unknown[]; checked: { accounts: number; ledgerEvents: number } };
    assert.deepEqual(report.differences, []);
    assert.ok(report.checked.ledgerEvents >= 2 && report.checked.accounts >= 1, JSON.stringify(report.checked));

    const exported = await cli('finance', 'export', '--from', '2000-01-01', '--to', '2100-01-01', '--format', 'jsonl');
    assert.equal(exported.code, 0, exported.stderr);
    const rows = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { balance: number });
    assert.equal(rows.at(-1)?.balance, 750, 'both grants, the second made after the refusals');

    const traced = await cli('admin', 'watermark', 'trace', leak);
    assert.deepEqual([traced.code, traced.stderr], [1, '']);
    assert.equal((JSON.parse(traced.stdout) as { found: boolean }).found, false);

    const ingested = await cli('ingest', corpus);
    assert.equal(ingested.code, 0, ingested.stderr);
    const loaded = JSON.parse(ingested.stdout.split('\n')[0]!) as { sources: { source: string; inserted: number }[] };
    assert.ok(
      loaded.sources.some((s) => s.source === 'ecourts-hc-case-status' && s.inserted > 0),
      ingested.stdout,
    );
  });
});
