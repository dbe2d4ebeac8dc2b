/**
 * The workers that run the workflows and activities of one task queue (analysis or
 * timeline) on this process's Temporal connection. The workflow code is bundled once per
 * process and shared by every worker in it (bundling takes seconds); payloads pass the
 * same codec as the client's.
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { endsWithin } from '../../scheduling/ends-within.ts';
import type { TemporalRuntime } from './temporal-runtime.ts';

const WORKFLOWS_PATH = fileURLToPath(new URL('../../../workflows/index.ts', import.meta.url));

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
}

export async function createWorker(
  runtime: TemporalRuntime,
  taskQueue: string,
  activities: object,
  options: {
    readonly dataConverter: DataConverter;
    readonly bundle: WorkflowBundleWithSourceMap;
    readonly maxConcurrentActivities?: number;
  },
): Promise<Worker> {
  return Worker.create({
    connection: runtime.workerConnection,
    namespace: runtime.namespace,
    taskQueue,
    workflowBundle: options.bundle,
    activities,
    dataConverter: options.dataConverter,
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 4,
  });
}

/** How long a worker's shutdown may wait for the engine before the process closes under it. */
const WORKER_STOP_BOUND_MS = 5_000;

/**
 * Shuts `worker` down and waits for its `running` (its `run()`) to end, for at most
 * WORKER_STOP_BOUND_MS: an engine that does not answer holds a shutdown for half a minute.
 * False when the run had not ended in time.
 */
export async function stopWorker(worker: Worker | undefined, running: Promise<unknown> | undefined): Promise<boolean> {
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  return running ? endsWithin(running, WORKER_STOP_BOUND_MS) : true;
}
