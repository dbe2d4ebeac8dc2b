/**
 * The worker that runs the analysis workflows and activities, on this process's Temporal
 * connection. The workflow code is bundled from workflows/index.ts (or a bundle built
 * once and shared, as tests do); payloads pass the same codec as the client's.
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { AnalysisActivities } from '../../../workflows/analysis-activity-types.ts';
import { TASK_QUEUES } from '../../../workflows/task-queues.ts';
import type { TemporalRuntime } from './temporal-runtime.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../../../workflows/index.ts', import.meta.url));

const quiet = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** The workflow code, bundled once per process and shared by every worker in it (bundling takes seconds). */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet });
}

export async function createAnalysisWorker(
  runtime: TemporalRuntime,
  activities: AnalysisActivities,
  options: {
    readonly dataConverter: DataConverter;
    readonly bundle?: WorkflowBundleWithSourceMap;
    readonly maxConcurrentActivities?: number;
  },
): Promise<Worker> {
  return Worker.create({
    connection: runtime.workerConnection,
    namespace: runtime.namespace,
    taskQueue: TASK_QUEUES.analysis,
    ...(options.bundle ? { workflowBundle: options.bundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities,
    dataConverter: options.dataConverter,
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 4,
  });
}
