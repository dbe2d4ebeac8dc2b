/**
 * The worker container's health check (docker-compose.yml): exits 0 while a worker of this
 * container polls every task queue, 1 otherwise. The worker process has no HTTP listener,
 * and the engine answering says nothing about the worker, so this asks Temporal which
 * workers polled each queue lately. A worker's identity is `pid@hostname` (the SDK's
 * default) and a container's hostname is its own, so pollers from other replicas do not count.
 */
import { hostname } from 'node:os';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { loadConfig } from '../src/config.ts';
import { TASK_QUEUES } from '../workflows/task-queues.ts';

/** As the API's deep health check: a poll is a long poll of about a minute, so a live worker polled within this. */
const POLLER_FRESH_MS = 90_000;

const config = loadConfig(process.env);
if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required: the check asks that cluster');
const self = `@${hostname()}`;
const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
try {
  for (const name of Object.values(TASK_QUEUES)) {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    const polling = pollers.some(
      (p) => p.identity?.endsWith(self) === true && Date.now() - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < POLLER_FRESH_MS,
    );
    if (!polling) {
      console.error(`no worker of ${hostname()} polls ${name}`);
      process.exitCode = 1;
    }
  }
} finally {
  await connection.close();
}
