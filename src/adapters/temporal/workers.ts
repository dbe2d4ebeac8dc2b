/**
 * The workers that run the workflows and activities of one task queue (analysis or
 * timeline) on this process's Temporal connection. The workflow code is bundled once per
 * process and shared by every worker in it (bundling takes seconds); payloads pass the
 * same codec as the client's.
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
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
