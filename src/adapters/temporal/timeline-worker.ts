/**
 * The worker that runs live timeline fetches (workflows and activities) on the timeline
 * task queue, on this process's Temporal connection. It shares the workflow bundle of the
 * analysis worker (workflows/index.ts, or a bundle built once and passed in, as tests do)
 * and the same payload codec as the client.
 */
import type { DataConverter } from '@temporalio/common';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { TASK_QUEUES } from '../../../workflows/task-queues.ts';
import type { TimelineActivities } from '../../../workflows/timeline-activity-types.ts';
import { WORKFLOWS_PATH } from './analysis-worker.ts';
import type { TemporalRuntime } from './temporal-runtime.ts';

export async function createTimelineWorker(
  runtime: TemporalRuntime,
  activities: TimelineActivities,
  options: {
    readonly dataConverter: DataConverter;
    readonly bundle?: WorkflowBundleWithSourceMap;
    readonly maxConcurrentActivities?: number;
  },
): Promise<Worker> {
  return Worker.create({
    connection: runtime.workerConnection,
    namespace: runtime.namespace,
    taskQueue: TASK_QUEUES.timeline,
    ...(options.bundle ? { workflowBundle: options.bundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities,
    dataConverter: options.dataConverter,
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivities ?? 4,
  });
}
