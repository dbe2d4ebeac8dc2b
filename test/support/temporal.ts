/**
 * A real Temporal server for tests: the Temporal CLI's dev server found by the service's own
 * rule: TEMPORAL_CLI_PATH, `temporal` on PATH, ../shared/bin/temporal), started on free
 * ports with histories in memory, through the same `openTemporal` the service uses. The
 * workflow bundle is built once per test process. Suites skip visibly when no CLI exists.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import type { Worker, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleWorkflows, createWorker } from '../../src/adapters/temporal/workers.ts';
import { TASK_QUEUES } from '../../workflows/task-queues.ts';
import { TemporalAnalysisWorkflows } from '../../src/adapters/temporal/analysis-workflows.ts';
import { createPayloadCodec, dataConverterFor, deriveDevKeyring } from '../../src/adapters/temporal/payload-codec.ts';
import { openTemporal, type DevServerSupervision, type TemporalRuntime } from '../../src/adapters/temporal/temporal-runtime.ts';
import { temporalCliOf, type TemporalCli } from '../../src/adapters/temporal/temporal-cli.ts';
import type { PayloadCodec } from '@temporalio/common';
import type { AnalysisActivities } from '../../workflows/analysis-activity-types.ts';
import { TemporalTimelineWorkflows, type TimelineWorkflowOptions } from '../../src/adapters/temporal/timeline-workflows.ts';
import type { TimelineActivities } from '../../workflows/timeline-activity-types.ts';
import { EcourtsHttpPortal } from '../../src/adapters/court-portal/ecourts-http-portal.ts';
import { HttpRemoteDocuments } from '../../src/adapters/http/remote-document-fetcher.ts';
import { LocalExtractiveAnalyser } from '../../src/adapters/llm/local-extractive-analyser.ts';
import { pdfText } from '../../src/adapters/pdf/pdf-text.ts';
import { systemClock, type Clock } from '../../src/ports/clock.ts';
import { createAnalysisActivities } from '../../workflows/activities/analysis-activities.ts';
import { createTimelineActivities } from '../../workflows/activities/timeline-activities.ts';
import type { TestApp } from './app.ts';

/** The Temporal CLI the service would run, found by its own rule; undefined (the suite then skips with this reason) where it would download one. */
export function temporalCli(): TemporalCli | undefined {
  const cli = temporalCliOf(process.env.TEMPORAL_CLI_PATH);
  return cli.path ? cli : undefined;
}

export const NO_TEMPORAL_CLI = 'no Temporal CLI (TEMPORAL_CLI_PATH, PATH or ../shared/bin/temporal)';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflows();
  return bundle;
}

export interface TestTemporal {
  readonly runtime: TemporalRuntime;
  readonly codec: PayloadCodec;
  readonly dataConverter: DataConverter;
  readonly workflows: TemporalAnalysisWorkflows;
  /** Starts an analysis worker over `activities`; stop it before closing. */
  startWorker(activities: AnalysisActivities, options?: { maxConcurrentActivities?: number }): Promise<RunningWorker>;
  readonly timelineWorkflows: TemporalTimelineWorkflows;
  /** Starts a timeline (live fetch) worker over `activities`; stopped on close. */
  startTimelineWorker(activities: TimelineActivities): Promise<RunningWorker>;
  close(): Promise<void>;
}

export interface RunningWorker {
  readonly worker: Worker;
  stop(): Promise<void>;
}

/** Where saved histories live, one protobuf file per scenario, replayed by test/int/workflow-replay.int.test.ts. */
export const HISTORIES_DIR = fileURLToPath(new URL('../histories/', import.meta.url));

/** The codec key every test server uses, so saved histories decode in the replay test. */
export async function testDataConverter(): Promise<{ codec: PayloadCodec; dataConverter: DataConverter }> {
  const codec = createPayloadCodec(await deriveDevKeyring('test-temporal-codec-secret-of-some-length'));
  return { codec, dataConverter: dataConverterFor(codec) };
}

const { History } = proto.temporal.api.history.v1;

/** A saved history, as the History protobuf message Temporal's own tooling exchanges. */
export function readHistory(bytes: Uint8Array): proto.temporal.api.history.v1.History {
  return History.decode(bytes);
}

/** Saves the histories of finished workflows (name → workflow id) as protobuf files (`temporal workflow show` can print them). */
export async function recordHistories(temporal: TestTemporal, workflows: Record<string, string>): Promise<void> {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  for (const [name, workflowId] of Object.entries(workflows)) {
    const history = await temporal.runtime.client.workflow.getHandle(workflowId).fetchHistory();
    writeFileSync(join(HISTORIES_DIR, `${name}.history.pb`), History.encode(history).finish());
  }
}

export async function startTestTemporal(
  options: {
    activityTimeoutSeconds?: number;
    timeline?: TimelineWorkflowOptions;
    /** Restart the dev server when it dies, as the service does (fault tests kill it). */
    supervision?: DevServerSupervision;
    /** A file keeps histories across a restart; in memory (the default) they are lost with the server. */
    dbFilename?: string;
  } = {},
): Promise<TestTemporal> {
  const { codec, dataConverter } = await testDataConverter();
  const runtime = await openTemporal({
    address: undefined,
    namespace: 'default',
    dataConverter,
    devServer: {
      dbFilename: options.dbFilename,
      cli: temporalCli() ?? { path: undefined, source: 'download' },
      port: undefined,
      uiPort: undefined,
      codecEndpoint: undefined,
      ...(options.supervision ? { supervision: options.supervision } : {}),
    },
  });
  const running: RunningWorker[] = [];
  const track = (worker: Worker): RunningWorker => {
    const run = worker.run();
    const handle: RunningWorker = {
      worker,
      stop: async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await run;
      },
    };
    running.push(handle);
    return handle;
  };
  return {
    runtime,
    codec,
    dataConverter,
    workflows: new TemporalAnalysisWorkflows(runtime.client, { activityTimeoutSeconds: options.activityTimeoutSeconds ?? 30 }),
    async startWorker(activities, workerOptions = {}) {
      const worker = await createWorker(runtime, TASK_QUEUES.analysis, activities, {
        dataConverter,
        bundle: await workflowBundle(),
        ...(workerOptions.maxConcurrentActivities ? { maxConcurrentActivities: workerOptions.maxConcurrentActivities } : {}),
      });
      const run = worker.run();
      const handle: RunningWorker = {
        worker,
        stop: async () => {
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await run;
        },
      };
      running.push(handle);
      return handle;
    },
    timelineWorkflows: new TemporalTimelineWorkflows(
      runtime.client,
      options.timeline ?? { activityTimeoutSeconds: 30, maximumAttempts: 3 },
    ),
    async startTimelineWorker(activities) {
      return track(await createWorker(runtime, TASK_QUEUES.timeline, activities, { dataConverter, bundle: await workflowBundle() }));
    },
    async close() {
      for (const w of running) await w.stop();
      await runtime.close();
    },
  };
}

/**
 * The workers most tests want over a test app's own object graph: the local extractive
 * analyser with no remote fetch (no host allowed), and, given a court portal, live fetches
 * through it.
 */
export async function startLocalWorkers(
  temporal: TestTemporal,
  t: TestApp,
  options: { portalUrl?: string; clock?: Clock; maxConcurrentActivities?: number } = {},
): Promise<void> {
  await temporal.startWorker(
    createAnalysisActivities({
      runs: t.analysis.runs,
      cases: t.research.cases,
      documents: t.documents,
      analyser: new LocalExtractiveAnalyser(),
      remote: new HttpRemoteDocuments({ allowlist: [], timeoutMs: 1_000, maxBytes: 1, addresses: 'public' }),
      documentText: pdfText,
      scDocumentsBaseUrl: 'https://main.sci.gov.in',
    }),
    options.maxConcurrentActivities === undefined ? {} : { maxConcurrentActivities: options.maxConcurrentActivities },
  );
  if (options.portalUrl === undefined) return;
  await temporal.startTimelineWorker(
    createTimelineActivities({
      jobs: t.timeline.jobs,
      records: t.timeline.records,
      portal: new EcourtsHttpPortal({ url: options.portalUrl, timeoutMs: 2_000 }),
      documents: t.documents,
      clock: options.clock ?? systemClock,
    }),
  );
}

/** Waits until an analysis run has left `running` (the worker stored or failed it) and returns its status. */
export async function runEnded(runs: { run(runId: string): Promise<{ status: string } | null> }, runId: string): Promise<string> {
  for (let i = 0; i < 300; i += 1) {
    const run = await runs.run(runId);
    if (run && run.status !== 'running') return run.status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} did not end`);
}
