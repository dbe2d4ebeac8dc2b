/**
 * Fault test: 50 analysis runs and 10 live timeline fetches while the real standalone
 * worker (`npm run worker`'s entry point, a child process) is killed with SIGKILL at random
 * moments and restarted, over PostgreSQL, a real Temporal dev server and a loopback court
 * portal. Every admission must end either delivered with exactly one charge (an analysis
 * stored, a fetch completed), or failed with its charge reversed or its hold released: none
 * charged twice, none left charged without a result, the balance equal to the ledger and
 * `finance reconcile` clean. Kills land in activities (the worker runs one at a time);
 * Temporal retries them after the attempt times out. Needs PostgreSQL (PGlite cannot be
 * shared by two processes) and the Temporal CLI.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TemporalAnalysisWorkflows } from '../../src/adapters/temporal/analysis-workflows.ts';
import { TemporalTimelineWorkflows } from '../../src/adapters/temporal/timeline-workflows.ts';
import { createPayloadCodec, dataConverterFor, parseCodecKeyring } from '../../src/adapters/temporal/payload-codec.ts';
import { openTemporal, type TemporalRuntime } from '../../src/adapters/temporal/temporal-runtime.ts';
import { freeLoopbackPort } from '../../src/adapters/temporal/dev-server-ports.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { startEcourtsPortalServer, type EcourtsPortalServer } from '../support/ecourts-portal-server.ts';
import { NO_TEMPORAL_CLI, temporalCli } from '../support/temporal.ts';
import { prng } from '../support/prng.ts';
import { workflowIds } from '../../workflows/task-queues.ts';
import { eventStoreOf } from '../../src/wiring.ts';

const RUNS = 50;
const FETCHES = 10;
const CNRS = ['GAHC010225502018', 'JKHC020113752018', 'GAHC040007922024'];
/** Each restart bundles the workflows again (seconds), so the kill count bounds the test's length. */
const KILLS = 12;
const GRANT = 100_000;
const postgres = databases.find((d) => d.name === 'postgres');
const skip = !postgres ? 'needs PostgreSQL (TEST_DATABASE_URL)' : temporalCli() ? false : NO_TEMPORAL_CLI;

describe('analysis runs survive a worker killed at random points', { skip, timeout: 900_000 }, () => {
  let database: TestDatabase;
  let runtime: TemporalRuntime;
  let portal: EcourtsPortalServer;
  let t: TestApp;
  let key: string;
  let account: string;
  let codecKeys: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'worker-kill-'));
  const clock = new SettableClock(new Date());

  before(async () => {
    database = await postgres!.open();
    codecKeys = `k1:${randomBytes(32).toString('base64')}`;
    const dataConverter = dataConverterFor(createPayloadCodec(parseCodecKeyring(codecKeys)));
    runtime = await openTemporal({
      address: undefined,
      namespace: 'default',
      dataConverter,
      devServer: {
        dbFilename: undefined,
        cli: temporalCli() ?? { path: undefined, source: 'download' },
        port: undefined,
        uiPort: undefined,
        codecEndpoint: undefined,
      },
    });
    // A short attempt limit: an activity on a killed worker is retried elsewhere after it.
    portal = await startEcourtsPortalServer();
    t = buildTestApp({
      db: database.db,
      clock,
      workflows: new TemporalAnalysisWorkflows(runtime.client, { activityTimeoutSeconds: 4 }),
      timelineWorkflows: new TemporalTimelineWorkflows(runtime.client, { activityTimeoutSeconds: 4, maximumAttempts: 20 }),
      livePortal: true,
    });
    // One caller allowed to have every run in flight at once, so the kills meet a full queue.
    const user = await t.application.accounts.registerUser(
      enterpriseUser('kill-test@analysis.example', {
        organizationId: null,
        limitOverrides: { concurrentAnalyses: RUNS, liveFetchesPerDay: FETCHES, requestsPerMinute: 10_000 },
      }),
      { kind: 'operator' },
    );
    assert.ok(user.ok);
    const created = await t.application.accounts.createKey(user.value.userId, 'kill-test', { kind: 'operator' });
    assert.ok(created.ok);
    key = created.value.fullKey;
    account = (await t.application.credits.billingAccountForUser(user.value.userId))!;
    await t.application.credits.grant(account, { amount: GRANT, source: 'grant' });
    await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource, ecourtsHcSource] });
  });
  after(async () => {
    await portal.close();
    await runtime.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  function startWorker(metricsPort?: number): { child: ChildProcess; ready: Promise<void> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'workflows/worker/main.ts'], {
      env: {
        ...process.env,
        ...(metricsPort === undefined ? {} : { WORKER_METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' }),
        DATABASE_URL: database.url!,
        KEY_HASH_SECRET,
        TEMPORAL_ADDRESS: runtime.address,
        TEMPORAL_CODEC_KEYS: codecKeys,
        TEMPORAL_WORKER_ACTIVITY_CONCURRENCY: '1',
        COURT_PORTAL_URL: portal.url,
        COURT_PORTAL_TIMEOUT_MS: '2000',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('analysis worker running')) resolve();
      });
      child.once('exit', () => resolve());
    });
    child.stderr.resume();
    return { child, ready };
  }

  /** Runs and live fetches not yet ended. */
  async function running(): Promise<number> {
    const runs = await database.db
      .selectFrom('analysisRuns')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow();
    const fetches = await database.db
      .selectFrom('timelineRequests')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow();
    return Number(runs.n) + Number(fetches.n);
  }

  it('ends every admission delivered with one charge, or failed with its charge reversed or hold released', async () => {
    const caseIds = (
      await database.db.selectFrom('cases').select('caseId').where('text', 'is not', null).orderBy('caseId').limit(RUNS).execute()
    ).map((r) => r.caseId);
    assert.equal(caseIds.length, RUNS);
    for (const caseId of caseIds) {
      const res = await t.app.request(`${BASE}/cases/${caseId}/analyze`, { method: 'POST', headers: { 'X-API-Key': key } });
      assert.equal(res.status, 202, await res.text());
    }
    for (let i = 0; i < FETCHES; i += 1) {
      const res = await t.app.request(`${BASE}/request-timeline`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ cnr: CNRS[i % CNRS.length], refresh: true }),
      });
      assert.equal(res.status, 202, await res.text());
    }

    const seed = Number(process.env.KILL_SEED ?? Date.now() % 1_000_000);
    const random = prng(seed);
    let kills = 0;
    const deadline = Date.now() + 600_000;
    while ((await running()) > 0 && Date.now() < deadline) {
      const worker = startWorker();
      await worker.ready;
      if (kills < KILLS) {
        await new Promise((r) => setTimeout(r, 50 + random() * 900));
        worker.child.kill('SIGKILL');
        kills += 1;
      } else {
        // Enough kills: let the last worker finish what is left.
        while ((await running()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
        worker.child.kill('SIGTERM');
      }
      await new Promise((r) => worker.child.once('exit', r));
    }
    assert.equal(await running(), 0, `runs still running after ${String(kills)} kills (seed ${String(seed)})`);

    const runs = await database.db.selectFrom('analysisRuns').select(['runId', 'caseId', 'status']).execute();
    assert.equal(runs.length, RUNS);
    const charges = await database.db.selectFrom('creditCharges').selectAll().execute();
    const stored = await database.db.selectFrom('caseAnalyses').select(['caseId', 'runId']).execute();
    const storedByRun = new Set(stored.map((s) => s.runId));
    let storedRuns = 0;
    for (const run of runs) {
      const own = charges.filter((c) => c.chargeId === run.runId);
      assert.equal(own.length, 1, `${run.runId}: exactly one charge`);
      if (run.status === 'stored') {
        storedRuns += 1;
        assert.equal(own[0]!.reversed, false, `${run.runId} stored but its charge was reversed`);
        assert.ok(storedByRun.has(run.runId), `${run.runId} stored without an analysis`);
      } else {
        assert.equal(run.status, 'failed');
        assert.equal(own[0]!.reversed, true, `${run.runId} failed but kept its charge`);
        assert.ok(!storedByRun.has(run.runId));
      }
    }
    const jobs = await database.db.selectFrom('timelineRequests').select(['requestId', 'status', 'reservationId']).execute();
    assert.equal(jobs.length, FETCHES);
    let completed = 0;
    for (const job of jobs) {
      const own = charges.filter((c) => c.chargeId === job.reservationId);
      if (job.status === 'completed') {
        completed += 1;
        assert.deepEqual(
          own.map((c) => [c.amount, c.reversed]),
          [[50, false]],
          `${job.requestId} completed with one charge of 50`,
        );
      } else {
        assert.equal(job.status, 'failed');
        assert.ok(
          own.every((c) => c.reversed),
          `${job.requestId} failed but kept its charge`,
        );
      }
    }
    const balance = (await t.application.credits.balance(account)).balance;
    assert.equal(balance, GRANT - 100 * storedRuns - 50 * completed);
    assert.equal((await t.application.credits.balance(account)).reserved, 0, 'no hold left open');
    // The kills must have landed inside activities: attempts that timed out on a dead worker and were retried.
    let interrupted = 0;
    for (const workflowId of [...runs.map((r) => r.runId), ...jobs.map((j) => workflowIds.timeline(j.requestId))]) {
      const history = await runtime.client.workflow.getHandle(workflowId).fetchHistory();
      // Retried attempts are not events of their own: the started event of the last one carries its attempt number.
      if (history.events?.some((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1)) interrupted += 1;
    }
    const report = await reconcileLedger(
      { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
      {},
    );
    assert.deepEqual(report.differences, []);
    process.stdout.write(
      `# worker kills: ${String(kills)} (seed ${String(seed)}); runs and fetches with an interrupted, retried activity: ${String(interrupted)}; stored ${String(storedRuns)}, failed and refunded ${String(RUNS - storedRuns)}; live fetches completed ${String(completed)}, failed and refunded ${String(FETCHES - completed)}\n`,
    );
    assert.ok(interrupted > 0, 'no kill interrupted an activity');
  });

  it('a worker apart counts what it charges into metrics of its own, served on WORKER_METRICS_PORT', async () => {
    const user = await t.application.accounts.registerUser(enterpriseUser('metrics@worker.example', { organizationId: null }), {
      kind: 'operator',
    });
    assert.ok(user.ok);
    const created = await t.application.accounts.createKey(user.value.userId, 'metrics-test', { kind: 'operator' });
    assert.ok(created.ok);
    const payer = (await t.application.credits.billingAccountForUser(user.value.userId))!;
    await t.application.credits.grant(payer, { amount: 1_000, source: 'grant' });
    const port = await freeLoopbackPort();
    const worker = startWorker(port);
    try {
      await worker.ready;
      const requests: string[] = [];
      for (const cnr of CNRS.slice(0, 2)) {
        const res = await t.app.request(`${BASE}/request-timeline`, {
          method: 'POST',
          headers: { 'X-API-Key': created.value.fullKey, 'Content-Type': 'application/json' },
          body: JSON.stringify({ cnr, refresh: true }),
        });
        assert.equal(res.status, 202, await res.clone().text());
        requests.push(((await res.json()) as { data: { requestId: string } }).data.requestId);
      }
      const ended = async () =>
        (await database.db.selectFrom('timelineRequests').select('status').where('requestId', 'in', requests).execute()).filter(
          (r) => r.status !== 'running',
        ).length;
      for (let i = 0; i < 240 && (await ended()) < requests.length; i += 1) await new Promise((r) => setTimeout(r, 250));
      const jobs = await database.db.selectFrom('timelineRequests').select('status').where('requestId', 'in', requests).execute();
      assert.deepEqual(
        jobs.map((j) => j.status),
        ['completed', 'completed'],
      );
      const res = await fetch(`http://127.0.0.1:${String(port)}/ops/metrics`);
      assert.equal(res.status, 200);
      const text = await res.text();
      const counter = (name: string) => new RegExp(`^court_records_${name} (\\d+)$`, 'm').exec(text)?.[1];
      assert.deepEqual([counter('credits_charged_total'), counter('credits_refunded_total')], ['100', '0'], text);
      assert.match(text, /^court_records_workflows_ended_total\{workflow="timeline",outcome="completed"\} 2$/m);
      const unknown = await fetch(`http://127.0.0.1:${String(port)}/nothing-here`);
      assert.deepEqual([unknown.status, ((await unknown.json()) as { code: string }).code], [404, 'ROUTE_NOT_FOUND']);
    } finally {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        const exited = new Promise((r) => worker.child.once('exit', r));
        worker.child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
