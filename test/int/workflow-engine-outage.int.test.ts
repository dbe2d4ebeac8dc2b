/**
 * Fault test: the workflow engine dies under traffic. Analyses, consolidated analyses and
 * live timeline fetches are sent while the Temporal dev server is killed with SIGKILL; the
 * supervisor (the service's own, in temporal-runtime.ts) starts it again on its port and
 * database file. Every call must answer in bounded time with a success or 503
 * WORKFLOW_ENGINE_UNAVAILABLE (Retry-After, nothing charged), /health?deep=1 must report
 * the engine down and then up, and in the end every credit must be either spent on a
 * delivered result or given back: each 202's run or fetch ended stored and charged once, or
 * failed with its charge reversed or hold released; a refused call's net charge is zero;
 * the balance equals grants less delivered work; `finance reconcile` is clean. A second
 * test kills an engine that keeps its histories in memory: the runs it loses are failed
 * and refunded by the watchdog instead of staying "running" for ever.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import type { DependencyProbe } from '../../src/ports/health.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';

/** The deep health check names its checks to the operator only. */
const ADMIN_TOKEN = 'engine-outage-admin-token-0123456789';
const operatorHeaders = { Authorization: `Bearer ${ADMIN_TOKEN}` };
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { startEcourtsPortalServer, type EcourtsPortalServer } from '../support/ecourts-portal-server.ts';
import { NO_TEMPORAL_CLI, startLocalWorkers, startTestTemporal, temporalCli, type TestTemporal } from '../support/temporal.ts';
import { eventStoreOf } from '../../src/wiring.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;
const GRANT = 1_000_000;
const CNRS = ['GAHC010225502018', 'JKHC020113752018', 'GAHC040007922024'];
/** No call may take longer than this, engine down or not (a start is bounded at 5 s)... */
const CALL_BOUND_MS = 15_000;
/** ...but a consolidated analysis rightly waits out its run, up to its deadline (the test app's 120 s) and the result grace. */
const CONSOLIDATED_BOUND_MS = 150_000;
const skip = temporalCli() ? false : NO_TEMPORAL_CLI;

interface Sent {
  readonly kind: 'analyze' | 'consolidated' | 'timeline';
  readonly status: number;
  readonly code: unknown;
  readonly requestId: string;
  /** The run or job a 202 answered with. */
  readonly workId: string | undefined;
  readonly ms: number;
}

/** SIGKILLs the dev server listening on `address`'s port. */
function killDevServer(address: string): number {
  const port = address.slice(address.lastIndexOf(':') + 1);
  const pids = execFileSync('pgrep', ['-f', `start-dev.*--port ${port}`], { encoding: 'utf8' })
    .split('\n')
    .filter((p) => p.trim() !== '')
    .map(Number);
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  return pids.length;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within ${String(timeoutMs)} ms`);
}

for (const factory of databases)
  describe(`the workflow engine killed under traffic, on ${factory.name}`, { timeout: 900_000, skip }, () => {
    let database: OpenedDatabase;
    let temporal: TestTemporal;
    let portal: EcourtsPortalServer;
    let t: TestApp;
    let key: string;
    let account: string;
    let caseIds: string[];
    const restarts: number[] = [];
    const historyDir = mkdtempSync(join(tmpdir(), 'engine-outage-'));
    const clock = new SettableClock(new Date());
    const closers: (() => Promise<void>)[] = [];

    function engineProbes(engine: TestTemporal): DependencyProbe[] {
      return [{ name: 'workflowEngine', hard: false, backend: 'temporal-dev-server', check: (s) => engine.runtime.engineProbe(s) }];
    }

    async function send(kind: Sent['kind'], path: string, body: unknown): Promise<Sent> {
      const started = performance.now();
      const res = await t.app.request(`${BASE}${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Json;
      const data = json.data as Json | undefined;
      const workId = data?.runId ?? data?.requestId;
      return {
        kind,
        status: res.status,
        code: json.code,
        requestId: res.headers.get('x-request-id') ?? '',
        workId: typeof workId === 'string' ? workId : undefined,
        ms: performance.now() - started,
      };
    }

    /** Net credits the ledger took for one server request id: charges less reversals of those charges. */
    async function netChargedFor(requestId: string): Promise<number> {
      const events = await database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('type', 'in', ['CreditsCharged', 'ChargeReversed'])
        .execute();
      const charges = events.filter((e) => e.type === 'CreditsCharged' && (e.data as Json).requestRef === requestId);
      const ids = new Set(charges.map((c) => (c.data as Json).chargeId));
      const reversed = events.filter((e) => e.type === 'ChargeReversed' && ids.has((e.data as Json).chargeId));
      const sum = (list: typeof events) => list.reduce((n, e) => n + Number((e.data as Json).amount), 0);
      return sum(charges) - sum(reversed);
    }

    before(async () => {
      database = await factory.open();
      closers.push(() => database.close());
      temporal = await startTestTemporal({
        activityTimeoutSeconds: 10,
        timeline: { activityTimeoutSeconds: 10, maximumAttempts: 3 },
        dbFilename: join(historyDir, 'temporal.sqlite'),
        // Checked every 3 s, so the engine stays down for a few seconds of traffic before it is back.
        supervision: { intervalMs: 3_000, onRestart: () => restarts.push(Date.now()), onRestartFailure: () => undefined },
      });
      closers.push(() => temporal.close());
      portal = await startEcourtsPortalServer();
      closers.push(() => portal.close());
      t = buildTestApp({
        db: database.db,
        clock,
        index: new PostgresSearchIndex(database.db),
        workflows: temporal.workflows,
        timelineWorkflows: temporal.timelineWorkflows,
        livePortal: true,
        probes: (real) => [...real, ...engineProbes(temporal)],
        adminToken: ADMIN_TOKEN,
      });
      const user = await t.application.accounts.registerUser(
        enterpriseUser('outage@engine.example', {
          limitOverrides: { concurrentAnalyses: 1_000, liveFetchesPerDay: 1_000, requestsPerMinute: 100_000 },
        }),
        operator,
      );
      assert.ok(user.ok);
      account = user.value.userId;
      const created = await t.application.accounts.createKey(account, 'outage', operator);
      assert.ok(created.ok);
      key = created.value.fullKey;
      await t.application.credits.grantToUser(account, { amount: GRANT, source: 'grant' });
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource, ecourtsHcSource] });
      caseIds = (
        await database.db.selectFrom('cases').select('caseId').where('caseId', 'like', 'sc-inabs-%').orderBy('caseId').limit(12).execute()
      ).map((r) => r.caseId);
      await startLocalWorkers(temporal, t, { portalUrl: portal.url, clock });
    });
    after(async () => {
      for (const close of closers.reverse()) await close();
      rmSync(historyDir, { recursive: true, force: true });
    });

    it('refuses while the engine is down, recovers when it is back, and leaves every credit spent on a result or returned', async (ctx) => {
      const sent: Sent[] = [];
      let stop = false;
      let round = 0;
      // Four callers, each sending one kind of work after another until told to stop.
      const traffic = [0, 1, 2, 3].map(async (lane) => {
        while (!stop) {
          round += 1;
          const caseId = caseIds[round % caseIds.length]!;
          if (lane === 3) sent.push(await send('timeline', '/request-timeline', { cnr: CNRS[round % CNRS.length], refresh: true }));
          else if (lane === 2) sent.push(await send('consolidated', `/cases/${caseId}/analyze-consolidated`, { force: true }));
          else sent.push(await send('analyze', `/cases/${caseId}/analyze`, { force: true }));
        }
      });
      await until('some work admitted', async () => (sent.filter((s) => s.status === 202).length >= 6 ? true : undefined));

      assert.ok(killDevServer(temporal.runtime.address) > 0, 'the dev server was found and killed');
      const killedAt = Date.now();
      const deep = await t.app.request(`${BASE}/health?deep=1`, { headers: operatorHeaders });
      const health = (await deep.json()) as { status: string; checks: Record<string, { ok: boolean; hard: boolean }> };
      await until('the supervisor to restart the engine', async () => (restarts.length > 0 ? true : undefined), 60_000);
      await until('the engine to answer again', async () => {
        const res = await t.app.request(`${BASE}/health?deep=1`, { headers: operatorHeaders });
        const body = (await res.json()) as { checks: Record<string, { ok: boolean }> };
        return body.checks.workflowEngine?.ok ? true : undefined;
      });
      const backAt = Date.now();
      await until('work admitted after the restart', async () =>
        sent.filter((s) => s.status === 202 || s.status === 200).length > 0 && Date.now() - backAt > 3_000 ? true : undefined,
      );
      stop = true;
      await Promise.all(traffic);

      // While it was down the deep health check said so, softly.
      assert.ok(restarts[0]! > killedAt, 'the health check ran before the restart');
      assert.equal(deep.status, 200);
      assert.equal(health.status, 'degraded');
      assert.deepEqual([health.checks.workflowEngine?.ok, health.checks.workflowEngine?.hard], [false, false]);

      const unexpected = sent.filter(
        (s) => ![200, 202, 503].includes(s.status) || (s.status === 503 && s.code !== 'WORKFLOW_ENGINE_UNAVAILABLE'),
      );
      assert.deepEqual(unexpected, []);
      const slow = sent.filter((s) => s.ms > (s.kind === 'consolidated' ? CONSOLIDATED_BOUND_MS : CALL_BOUND_MS));
      assert.deepEqual(slow, [], 'no call waited on the dead engine past its bound');
      const refused = sent.filter((s) => s.status === 503);
      assert.ok(refused.length > 0, `some calls met the engine down (${String(sent.length)} sent)`);

      // Every admitted run and fetch ends: stored or completed, or failed and refunded.
      await until(
        'every run and fetch to end',
        async () => {
          const running = await database.db.selectFrom('analysisRuns').select('runId').where('status', '=', 'running').execute();
          const fetching = await database.db.selectFrom('timelineRequests').select('requestId').where('status', '=', 'running').execute();
          return running.length + fetching.length === 0 ? true : undefined;
        },
        300_000,
      );
      for (const s of refused) assert.equal(await netChargedFor(s.requestId), 0, `${s.kind} refused with 503 kept no credits`);
      let delivered = 0;
      for (const s of sent.filter((x) => x.status === 202)) {
        const charged = await netChargedFor(s.requestId);
        if (s.kind === 'analyze') {
          const run = await t.analysis.runs.run(s.workId!);
          assert.equal(charged, run!.status === 'stored' ? 100 : 0, `run ${s.workId!} ${run!.status}`);
        } else {
          const job = await t.timeline.jobs.job(s.workId!);
          assert.equal(charged, job!.status === 'completed' ? 50 : 0, `fetch ${s.workId!} ${job!.status}`);
        }
        delivered += charged;
      }
      for (const s of sent.filter((x) => x.kind === 'consolidated' && x.status === 200)) delivered += await netChargedFor(s.requestId);
      assert.equal((await t.application.credits.balance(account)).balance, GRANT - delivered);
      const report = await reconcileLedger(
        { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
        {},
      );
      assert.deepEqual(report.differences, []);
      const count = (status: number) => sent.filter((x) => x.status === status).length;
      ctx.diagnostic(
        `sent ${String(sent.length)}: ${String(count(202))} × 202, ${String(count(200))} × 200, ${String(refused.length)} × 503; ` +
          `engine down ${String(restarts[0]! - killedAt)} ms; ${String(delivered)} credits kept for delivered work, the rest returned`,
      );
    });

    it('fails and refunds, through the watchdog, the runs an engine lost with its in-memory histories', async () => {
      const forgetful = await startTestTemporal({
        activityTimeoutSeconds: 10,
        supervision: { intervalMs: 500, onRestart: () => undefined, onRestartFailure: () => undefined },
      });
      closers.push(() => forgetful.close());
      // No worker polls this engine: what it is given stays running until the engine dies with it.
      const lost = buildTestApp({ db: database.db, clock, workflows: forgetful.workflows });
      const before = (await t.application.credits.balance(account)).balance;
      const admitted: string[] = [];
      for (const caseId of caseIds.slice(0, 3)) {
        const res = await lost.app.request(`${BASE}/cases/${caseId}/analyze`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ force: true }),
        });
        assert.equal(res.status, 202);
        admitted.push(String(((await res.json()) as { data: Json }).data.runId));
      }
      assert.equal((await t.application.credits.balance(account)).balance, before - 300);
      killDevServer(forgetful.runtime.address);
      await until('the engine to answer again', async () => {
        const probe = new AbortController();
        return forgetful.runtime.engineProbe(probe.signal).then(
          () => true,
          () => undefined,
        );
      });
      // The runs are older than the orphan check: the watchdog asks the engine, which no longer knows them.
      clock.advanceSeconds(121);
      const pass = await lost.analysis.dispatcher.dispatch();
      assert.equal(pass.failed, 3);
      for (const runId of admitted) assert.equal((await t.analysis.runs.run(runId))!.status, 'failed');
      assert.equal((await t.application.credits.balance(account)).balance, before);
      const report = await reconcileLedger(
        { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
        {},
      );
      assert.deepEqual(report.differences, []);
    });
  });
