/**
 * The workflow half of the composition root, shared by the API process and the standalone
 * worker (`npm run worker`): the payload codec from config (or a key derived from the
 * data folder's secret on the embedded default), the Temporal connection (a cluster at
 * TEMPORAL_ADDRESS, else the dev server started here), the analyser (OpenAI-compatible at
 * LLM_URL, else the local extractive one) and the activities over the real adapters.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { loadOrCreateSecret } from './adapters/crypto/local-secret.ts';
import { HttpRemoteDocuments } from './adapters/http/remote-document-fetcher.ts';
import { openCaseAnalyser } from './adapters/llm/open-case-analyser.ts';
import { pdfText } from './adapters/pdf/pdf-text.ts';
import { TemporalAnalysisWorkflows } from './adapters/temporal/analysis-workflows.ts';
import { bundleWorkflows, createWorker } from './adapters/temporal/workers.ts';
import { Supervisor, type SupervisedUnit } from './scheduling/supervisor.ts';
import { createPayloadCodec, dataConverterFor, deriveDevKeyring, parseCodecKeyring } from './adapters/temporal/payload-codec.ts';
import { openTemporal, type TemporalRuntime } from './adapters/temporal/temporal-runtime.ts';
import { temporalCliOf, type TemporalCli } from './adapters/temporal/temporal-cli.ts';
import { installRuntimeLogger } from './adapters/temporal/runtime-logger.ts';
import { ACCOUNT_ID, registerSearchAttributes } from './adapters/temporal/search-attributes.ts';
import type { AnalysisRuns } from './application/analysis/analysis-runs.ts';
import type { CaseAnalyser } from './ports/case-analyser.ts';
import type { CaseReader } from './application/cases/case-reader.ts';
import type { Config } from './config.ts';
import { outboundAddresses } from './composition/settings.ts';
import { unavailableAnalysisWorkflows, type AnalysisWorkflows } from './ports/analysis-workflows.ts';
import type { DocumentStorage } from './ports/document-storage.ts';
import type { DataConverter, PayloadCodec } from '@temporalio/common';
import { TASK_QUEUES } from '../workflows/task-queues.ts';
import { createAnalysisActivities } from '../workflows/activities/analysis-activities.ts';
import { createTimelineActivities, timelineActivityTimeoutSeconds } from '../workflows/activities/timeline-activities.ts';
import { EcourtsHttpPortal } from './adapters/court-portal/ecourts-http-portal.ts';
import { TemporalTimelineWorkflows } from './adapters/temporal/timeline-workflows.ts';
import type { StoredRecords } from './application/timeline/stored-records.ts';
import type { TimelineJobs } from './application/timeline/timeline-jobs.ts';
import { CourtPortalUnavailableError, type CourtPortal } from './ports/court-portal.ts';
import { unavailableTimelineWorkflows, type TimelineWorkflows } from './ports/timeline-workflows.ts';
import type { Clock } from './ports/clock.ts';
import type { DependencyProbe } from './ports/health.ts';
import { TemporalWebhookWorkflows } from './adapters/temporal/webhook-workflows.ts';
import type { WebhookDeliveries } from './application/webhooks/webhook-deliveries.ts';
import { unavailableWebhookWorkflows, type WebhookWorkflows } from './ports/webhooks.ts';
import { createWebhookActivities } from '../workflows/activities/webhook-activities.ts';

/** How often the embedded dev server's port is checked: a dead server is back within a few of these. */
const DEV_SERVER_CHECK_MS = 2_000;

/** Per-attempt activity limit: long enough for a remote model on a long judgment. */
const ACTIVITY_TIMEOUT_SECONDS = 120;
const REMOTE_FETCH_TIMEOUT_MS = 30_000;
const REMOTE_FETCH_MAX_BYTES = 50 * 1024 * 1024;

export async function payloadCodecOf(config: Config): Promise<PayloadCodec> {
  const keyring = config.TEMPORAL_CODEC_KEYS
    ? parseCodecKeyring(config.TEMPORAL_CODEC_KEYS)
    : await deriveDevKeyring(loadOrCreateSecret(join(config.DATA_DIR, 'secrets', 'temporal-codec-secret')));
  return createPayloadCodec(keyring);
}

/** The allowlist of remote document hosts: the configured official domains plus the service's own storage host. */
export function remoteFetchAllowlist(config: Config, publicBaseUrl: string): string[] {
  return [...config.REMOTE_FETCH_ALLOWED_HOSTS, new URL(publicBaseUrl).host];
}

export interface WorkflowRuntime {
  readonly workflows: AnalysisWorkflows;
  readonly timelineWorkflows: TimelineWorkflows;
  readonly webhookWorkflows: WebhookWorkflows;
  /** The connection and codec, which test mode's workflows share (composition/test-mode-adapters.ts); null without an engine. */
  readonly engine: WorkflowEngine | null;
  readonly uiUrl: string | null;
  /** The engine and its workers, for /health?deep=1 (both soft). */
  readonly probes: readonly DependencyProbe[];
  /**
   * Starts this process's workers over `adapters`, built by the caller once its graph is
   * complete (the workers' activities and the API's dispatchers share the same services).
   */
  startWorkers(adapters: ActivityAdapters): void;
  close(): Promise<void>;
}

export interface ActivityAdapters {
  readonly runs: AnalysisRuns;
  readonly cases: CaseReader;
  readonly documents: DocumentStorage;
  readonly allowlist: readonly string[];
  /** The timeline jobs a live fetch's activities act on; without them this process runs no timeline worker. */
  readonly timeline?: { readonly jobs: TimelineJobs; readonly records: StoredRecords; readonly clock: Clock };
  /** The deliveries webhook activities attempt; without them this process runs no webhook worker. */
  readonly webhooks?: WebhookDeliveries;
}

/** Attempts of each live-fetch activity: a portal that fails or times out is retried with backoff (1, 2, 4, 8 s). */
const TIMELINE_ATTEMPTS = 5;

/** The court portal at COURT_PORTAL_URL; without one, a fetch admitted earlier fails (and is refunded) rather than hang. */
function courtPortalOf(config: Config): CourtPortal {
  if (config.COURT_PORTAL_URL) return new EcourtsHttpPortal({ url: config.COURT_PORTAL_URL, timeoutMs: config.COURT_PORTAL_TIMEOUT_MS });
  return noCourtPortal('no court portal is configured (COURT_PORTAL_URL)');
}

/** A portal that refuses every call as unavailable: without one, work admitted earlier fails (and is refunded). */
export function noCourtPortal(reason: string): CourtPortal {
  const missing = () => Promise.reject(new CourtPortalUnavailableError(reason));
  return { fetchCaseStatus: missing, fetchOrderDocument: missing };
}

export async function openWorkflowRuntime(
  config: Config,
  options: {
    readonly logger: Logger;
    readonly codec: PayloadCodec;
    readonly codecEndpoint: string;
  },
): Promise<WorkflowRuntime> {
  const { logger } = options;
  const dataConverter = dataConverterFor(options.codec);
  // Before the first connection: that fixes the process's Temporal Runtime, and with it where the SDK logs.
  installRuntimeLogger(logger);
  let runtime: TemporalRuntime;
  let cli: TemporalCli | undefined;
  try {
    cli = config.TEMPORAL_ADDRESS ? undefined : temporalCliOf(config.TEMPORAL_CLI_PATH);
    if (cli) logger.info({ cli: cli.path ?? null, source: cli.source }, 'Temporal CLI for the embedded dev server');
    runtime = await openTemporal({
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      dataConverter,
      devServer: {
        dbFilename: join(config.DATA_DIR, 'temporal.sqlite'),
        cli: cli ?? { path: undefined, source: 'download' },
        port: config.TEMPORAL_DEV_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
        codecEndpoint: options.codecEndpoint,
        onNotice: (info, message) => logger.warn(info, message),
        supervision: {
          intervalMs: DEV_SERVER_CHECK_MS,
          onRestart: (info) => logger.warn(info, 'the Temporal dev server had died and was restarted'),
          onRestartFailure: (err) => logger.error({ err }, 'the Temporal dev server is down and could not be restarted; will retry'),
        },
      },
    });
  } catch (err) {
    logger.error({ err, cliSource: cli?.source }, 'Temporal unavailable: analyses and live fetches will answer 503 with nothing charged');
    const down = () => Promise.reject(new Error('no workflow engine is available'));
    // Without a cluster, no choice means TEMPORAL_CLI_PATH named nothing runnable.
    const source = config.TEMPORAL_ADDRESS ? {} : { source: `temporal CLI: ${cli?.source ?? 'TEMPORAL_CLI_PATH'}` };
    return {
      workflows: unavailableAnalysisWorkflows,
      timelineWorkflows: unavailableTimelineWorkflows,
      webhookWorkflows: unavailableWebhookWorkflows,
      engine: null,
      uiUrl: null,
      probes: [
        { name: 'workflowEngine', hard: false, backend: 'none', check: down, ...source },
        { name: 'workers', hard: false, backend: 'none', check: down },
      ],
      startWorkers: () => undefined,
      close: async () => undefined,
    };
  }
  logger.info(
    {
      address: runtime.address,
      namespace: runtime.namespace,
      ui: runtime.uiUrl,
      cli: runtime.cli?.path ?? null,
      cliSource: runtime.cli?.source,
    },
    'Temporal ready',
  );
  // Where a worker started apart on this machine finds the dev server, which may not be on TEMPORAL_DEV_PORT.
  const addressFile = devServerAddressFile(config.DATA_DIR);
  if (!config.TEMPORAL_ADDRESS) writeFileSync(addressFile, `${runtime.address}\n`);
  // The dev server registers it from its flags; a cluster's namespace may not have it yet, and then refuses every start.
  if (config.TEMPORAL_ADDRESS)
    await registerSearchAttributes(runtime.client, runtime.namespace)
      .then((state) => logger.info({ searchAttribute: ACCOUNT_ID.name, state }, 'Temporal search attribute ready'))
      .catch((err: unknown) =>
        logger.error(
          { err, searchAttribute: ACCOUNT_ID.name },
          'Temporal search attribute missing and not registrable: workflow starts will fail until an operator creates it',
        ),
      );
  const backend = config.TEMPORAL_ADDRESS ? 'temporal' : 'temporal-dev-server';
  const engine = { runtime, dataConverter };
  const workers = workersOn(engine, {
    queues: TASK_QUEUES,
    analyser: openCaseAnalyser(config),
    portal: courtPortalOf(config),
    portalName: config.COURT_PORTAL_URL ? 'configured' : 'none',
    config,
    logger,
  });
  return {
    engine,
    workflows: new TemporalAnalysisWorkflows(runtime.client, {
      activityTimeoutSeconds: ACTIVITY_TIMEOUT_SECONDS,
      executionTimeoutSeconds: config.WORKFLOW_RUN_MAX_SECONDS,
    }),
    timelineWorkflows: new TemporalTimelineWorkflows(runtime.client, {
      activityTimeoutSeconds: timelineActivityTimeoutSeconds(config.COURT_PORTAL_TIMEOUT_MS),
      maximumAttempts: TIMELINE_ATTEMPTS,
      executionTimeoutSeconds: config.WORKFLOW_RUN_MAX_SECONDS,
    }),
    webhookWorkflows: new TemporalWebhookWorkflows(runtime.client, {
      // The sender's own timeout ends an attempt first; this bounds a worker that hangs.
      attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS + 5_000,
      retry: {
        initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
        backoffCoefficient: config.WEBHOOK_RETRY_BACKOFF,
        maximumIntervalMs: config.WEBHOOK_RETRY_MAX_INTERVAL_MS,
        maximumAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      },
    }),
    uiUrl: runtime.uiUrl,
    probes: [
      {
        name: 'workflowEngine',
        hard: false,
        backend,
        check: (signal) => runtime.engineProbe(signal),
        ...(runtime.cli ? { source: `temporal CLI: ${runtime.cli.source}` } : {}),
      },
      {
        name: 'workers',
        hard: false,
        backend,
        check: async (signal) => {
          // This process's own workers first: the engine remembers a dead worker's last poll for a while.
          const down = workers.down();
          if (down.length > 0) throw new Error(`this process's worker for ${down.join(', ')} is down and being restarted`);
          await runtime.workersProbe(Object.values(TASK_QUEUES), signal);
        },
      },
    ],
    startWorkers: (adapters) => workers.start(adapters),
    close: async () => {
      if (!(await workers.stop())) logger.warn('a worker did not stop in its bound (the engine does not answer): closing under it');
      await runtime.close();
      if (!config.TEMPORAL_ADDRESS) rmSync(addressFile, { force: true });
    },
  };
}

/** The engine's connection and codec, which the live service's workers and test mode's share. */
export interface WorkflowEngine {
  readonly runtime: TemporalRuntime;
  readonly dataConverter: DataConverter;
}

/** The queues a set of workers polls and what their activities call out to: the live service's, or test mode's. */
export interface WorkerChoices {
  /** No webhooks queue, no webhook worker: test mode's deliveries are the live database's, sent by the live workers. */
  readonly queues: { readonly analysis: string; readonly timeline: string; readonly webhooks?: string };
  readonly analyser: CaseAnalyser;
  readonly portal: CourtPortal;
  /** What the log says of the portal. */
  readonly portalName: string;
  readonly config: Config;
  readonly logger: Logger;
}

export interface Workers {
  /** Starts the workers over `adapters` (the services the graph's dispatchers use too); each runs until stopped. */
  start(adapters: ActivityAdapters): void;
  /** The task queues whose worker in this process is not running now (restarting, or never came up). */
  down(): readonly string[];
  /** Stops them side by side (each may wait out its bound on an engine that does not answer); false when one did not stop in it. */
  stop(): Promise<boolean>;
}

/**
 * How long a worker waits before it is created again after it could not be created or its
 * run ended by itself: an engine blip (the dev server restarted, a cluster node failing over)
 * is back within the first few seconds; an engine that stays away is tried every 30 s, so a
 * worker is back within 30 s of its engine and the log does not fill meanwhile.
 */
export const WORKER_RESTART_BACKOFF_MS = [1_000, 2_000, 5_000, 10_000, 30_000] as const;
/** A worker that ran this long had recovered: its next failure starts the backoff over. */
const WORKER_HEALTHY_AFTER_MS = 60_000;
/** How long the check that the engine answers, before a worker is created, may take. */
const ENGINE_CHECK_MS = 5_000;
/** How long a worker's shutdown may wait for the engine before the process closes under it. */
const WORKER_STOP_BOUND_MS = 5_000;

/**
 * The one way a process starts its workers: the API's, the worker's apart and test mode's.
 * Each worker is supervised (scheduling/supervisor.ts): one that cannot be created (the
 * engine is unreachable) or whose run ends by itself (a fatal error) is created again with
 * backoff, and `down` names those not running meanwhile, which the workers health probe
 * reports. Restarting in the process rather than exiting keeps an API with an embedded
 * worker serving the many routes that need no engine while the engine is away.
 */
export function workersOn(engine: WorkflowEngine, choices: WorkerChoices): Workers {
  const { runtime, dataConverter } = engine;
  const { queues, config, logger } = choices;
  const supervised: { taskQueue: string; supervisor: Supervisor }[] = [];
  const run = (
    bundle: ReturnType<typeof bundleWorkflows>,
    name: string,
    taskQueue: string,
    activities: object,
    detail: Record<string, unknown>,
    maxConcurrentActivities?: number,
  ) => {
    const create = async (): Promise<SupervisedUnit> => {
      // A Worker.create refused by an unreachable engine leaves its registration in the SDK's
      // runtime: later creates for the queue are refused and the process cannot exit. So first
      // ask whether the engine answers.
      await runtime.engineProbe(AbortSignal.timeout(ENGINE_CHECK_MS));
      const worker = await createWorker(runtime, taskQueue, activities, {
        dataConverter,
        bundle: await bundle,
        ...(maxConcurrentActivities === undefined ? {} : { maxConcurrentActivities }),
      });
      return {
        run: () => worker.run(),
        shutdown: () => {
          if (worker.getState() === 'RUNNING') worker.shutdown();
        },
      };
    };
    const supervisor = new Supervisor(create, {
      backoffMs: WORKER_RESTART_BACKOFF_MS,
      healthyAfterMs: WORKER_HEALTHY_AFTER_MS,
      now: () => Date.now(),
      onUp: (restarts) => logger.info({ taskQueue, restarts, ...detail }, `${name} worker running`),
      onDown: (err, retryInMs) => logger.error({ err, taskQueue, retryInMs }, `${name} worker down; restarting it`),
    });
    supervisor.start();
    supervised.push({ taskQueue, supervisor });
  };
  return {
    start: (adapters) => {
      const bundle = bundleWorkflows();
      const analysis = createAnalysisActivities({
        runs: adapters.runs,
        cases: adapters.cases,
        documents: adapters.documents,
        analyser: choices.analyser,
        remote: new HttpRemoteDocuments({
          allowlist: adapters.allowlist,
          timeoutMs: REMOTE_FETCH_TIMEOUT_MS,
          maxBytes: REMOTE_FETCH_MAX_BYTES,
          addresses: outboundAddresses(config),
        }),
        documentText: pdfText,
        scDocumentsBaseUrl: config.SC_DOCUMENTS_BASE_URL,
      });
      run(bundle, 'analysis', queues.analysis, analysis, { analyser: choices.analyser.model }, config.TEMPORAL_WORKER_ACTIVITY_CONCURRENCY);
      const deliveries = adapters.webhooks;
      // Attempts mostly wait on the network: many slots, each account's share bounded by the dispatcher.
      if (deliveries && queues.webhooks)
        run(bundle, 'webhook', queues.webhooks, createWebhookActivities({ deliveries }), {}, config.WEBHOOK_WORKER_SLOTS);
      const timeline = adapters.timeline;
      if (!timeline) return;
      const timelineActivities = createTimelineActivities({
        jobs: timeline.jobs,
        records: timeline.records,
        portal: choices.portal,
        documents: adapters.documents,
        clock: timeline.clock,
      });
      run(bundle, 'timeline', queues.timeline, timelineActivities, { portal: choices.portalName });
    },
    down: () => supervised.filter(({ supervisor }) => !supervisor.up).map(({ taskQueue }) => taskQueue),
    stop: async () => {
      const stopped = await Promise.all(supervised.map(({ supervisor }) => supervisor.stop(WORKER_STOP_BOUND_MS)));
      return !stopped.includes(false);
    },
  };
}

/** The file in which a service records the address of the dev server it started. */
export function devServerAddressFile(dataDir: string): string {
  return join(dataDir, 'temporal-dev-address');
}

/**
 * The engine a worker apart from the API joins: TEMPORAL_ADDRESS, else the dev server the
 * API on this machine started (its recorded address), else the dev server's configured port.
 */
export function workerTemporalAddress(config: Config): string {
  if (config.TEMPORAL_ADDRESS) return config.TEMPORAL_ADDRESS;
  try {
    return readFileSync(devServerAddressFile(config.DATA_DIR), 'utf8').trim();
  } catch {
    return `127.0.0.1:${String(config.TEMPORAL_DEV_PORT)}`;
  }
}
