/**
 * Fault test: the workflow engine a process's workers use goes away and comes back. A
 * Temporal dev server stands in for the external cluster (TEMPORAL_ADDRESS) on a free
 * loopback port; it is killed with SIGKILL and started again on the same port (histories in
 * memory, so it comes back empty, as a cluster restored elsewhere would). The workers start
 * while it is down, so they cannot be created: the deep health check must report them down
 * and the supervisor must create them again once the engine is back, and workflows must run
 * again, also after a second kill under running workers.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import pino from 'pino';
import { freeLoopbackPort, portOpen } from '../../src/adapters/temporal/dev-server-ports.ts';
import { DEV_SERVER_FLAGS } from '../../src/adapters/temporal/search-attributes.ts';
import { openWorkflowRuntime, payloadCodecOf, type WorkflowRuntime } from '../../src/compose-workflows.ts';
import { loadConfig } from '../../src/config.ts';
import { workflowIds } from '../../workflows/task-queues.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { NO_TEMPORAL_CLI, temporalCli } from '../support/temporal.ts';

const cli = temporalCli();

/** A dev server on `port`, as an external engine this process did not start. */
async function startEngine(port: number): Promise<ChildProcess> {
  const child = spawn(
    cli!.path!,
    ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'error', ...DEV_SERVER_FLAGS],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 300 && !(await portOpen(port)); i += 1) await delay(100);
  // The frontend accepts connections a moment before it serves the namespace.
  await delay(1_500);
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

async function eventually(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${String(ms)} ms`);
    await delay(250);
  }
}

describe('workers supervised across an engine outage', { skip: cli ? false : NO_TEMPORAL_CLI, timeout: 300_000 }, () => {
  let database: TestDatabase | undefined;
  let t: TestApp;
  let engine: ChildProcess | undefined;
  let runtime: WorkflowRuntime | undefined;
  let dataDir: string | undefined;
  let port: number;
  const logs: string[] = [];

  before(async () => {
    database = await databases[0]!.open();
    t = buildTestApp({ db: database.db });
    dataDir = mkdtempSync(join(tmpdir(), 'worker-supervision-'));
    port = await freeLoopbackPort();
    engine = await startEngine(port);
    const config = loadConfig({
      DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: `127.0.0.1:${String(port)}`,
      TEMPORAL_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    });
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
    runtime = await openWorkflowRuntime(config, { logger, codec: await payloadCodecOf(config), codecEndpoint: 'http://127.0.0.1/codec' });
  });

  after(async () => {
    await runtime?.close();
    if (engine) await kill(engine);
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const workersProbe = () => runtime!.probes.find((p) => p.name === 'workers')!;
  const workersHealthy = () =>
    workersProbe()
      .check(AbortSignal.timeout(5_000))
      .then(
        () => true,
        () => false,
      );

  /** A delivery the database does not hold: its workflow runs one attempt, finds nothing pending, and completes. */
  async function deliveryWorkflowRuns(): Promise<void> {
    const deliveryId = `msg_${randomUUID()}`;
    assert.equal(await runtime!.webhookWorkflows.startDelivery(deliveryId, 'acct_supervision'), 'started');
    const handle = runtime!.engine!.runtime.client.workflow.getHandle(workflowIds.webhook(deliveryId));
    const outcome = await Promise.race([handle.result().then(() => 'completed'), delay(30_000).then(() => 'timed out')]);
    assert.equal(outcome, 'completed', 'the workflow ran on a worker');
  }

  it('reports workers that cannot be created as down, creates them once the engine is back, and runs workflows again', async () => {
    await kill(engine!);
    runtime!.startWorkers({
      runs: t.analysis.runs,
      cases: t.research.cases,
      documents: t.documents,
      allowlist: [],
      webhooks: t.webhooks.deliveries,
      timeline: { jobs: t.timeline.jobs, records: t.timeline.records, clock: systemClock },
    });
    await assert.rejects(workersProbe().check(AbortSignal.timeout(5_000)), /worker for .* is down/);
    await eventually(
      'a worker creation failed and was scheduled again',
      async () => logs.some((l) => l.includes('worker down; restarting it')),
      60_000,
    );
    assert.equal(await workersHealthy(), false, 'still down while the engine is away');

    engine = await startEngine(port);
    // Within the longest backoff (30 s) of the engine's return, plus a poll.
    await eventually('the workers are back', workersHealthy, 60_000);
    await deliveryWorkflowRuns();
  });

  it('runs workflows again after the engine is killed and restarted under running workers', async () => {
    await kill(engine!);
    await delay(3_000);
    engine = await startEngine(port);
    await eventually('the workers are back', workersHealthy, 60_000);
    await deliveryWorkflowRuns();
  });
});
