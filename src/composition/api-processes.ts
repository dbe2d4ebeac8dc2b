/**
 * API_PROCESSES > 1: the primary process forks that many API processes (node:cluster),
 * which share the listening port; it serves nothing itself. The first is started alone and
 * the others once it has composed, so migrations and the secrets it keeps in DATA_DIR are
 * made once. Each process but the first keeps its embedded ClickHouse (when there is no
 * CLICKHOUSE_URL) in DATA_DIR/processes/<n>, a replica of its own.
 *
 * A process that dies is started again after a second; more than three restarts per
 * process in a minute stop the whole service (exit 1) rather than loop. SIGTERM or SIGINT
 * is passed to every process, which drains and stops within its own bound; any still
 * running a second past that bound is killed, so the primary never leaves one behind. A
 * process whose primary dies exits too (node:cluster closes its channel).
 */
import cluster, { type Worker } from 'node:cluster';
import { join } from 'node:path';
import { stopDeadlines } from './exit-guard.ts';

/** The message an API process sends its primary once composed (listening, graph built). */
export const COMPOSED_MESSAGE = 'court-records:composed';

/** How many API processes a setting asks for on a machine with `cores` cores. */
export function processCount(setting: number | 'auto', cores: number): number {
  return setting === 'auto' ? Math.max(1, cores) : setting;
}

const RESTART_DELAY_MS = 1_000;
const RESTARTS_PER_MINUTE_PER_PROCESS = 3;
/** Past the processes' own stop bound, before the primary kills what is left. */
const STOP_SLACK_MS = 1_000;

export interface PrimaryOptions {
  readonly count: number;
  readonly dataDir: string;
  readonly drainSeconds: number;
  /** One line about the processes (stderr in production). */
  readonly say: (line: string) => void;
}

export async function runPrimary(options: PrimaryOptions): Promise<never> {
  const { count, say } = options;
  // Each process accepts from the shared socket itself: connections waiting to be accepted
  // stay queued when one process dies, where round robin through the primary would hand
  // some to the dying process and reset them.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  const processes = new Map<number, Worker>();
  const restarts: number[] = [];
  let stopping = false;

  const fork = (index: number): Worker => {
    const env = index === 0 ? {} : { ANALYTICS_DATA_DIR: join(options.dataDir, 'processes', String(index)) };
    const worker = cluster.fork(env);
    processes.set(index, worker);
    worker.once('exit', (code, signal) => {
      if (processes.get(index) === worker) processes.delete(index);
      if (stopping) return;
      say(
        `court-records: API process ${String(index)} (pid ${String(worker.process.pid)}) exited (code ${String(code)}, signal ${signal}): starting it again`,
      );
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - 60_000) restarts.shift();
      if (restarts.length > RESTARTS_PER_MINUTE_PER_PROCESS * count) {
        say('court-records: API processes keep exiting: stopping the service');
        void stop('restarts', 1);
        return;
      }
      setTimeout(() => {
        if (!stopping) fork(index);
      }, RESTART_DELAY_MS).unref();
    });
    return worker;
  };

  const stop = async (reason: string, exitCode: number): Promise<never> => {
    // A second signal while stopping changes nothing: the bound set by the first holds.
    if (stopping) return new Promise<never>(() => undefined);
    stopping = true;
    const running = [...processes.values()];
    const exited = running.map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (worker.isDead()) resolve();
          else worker.once('exit', () => resolve());
        }),
    );
    for (const worker of running) if (!worker.isDead()) worker.process.kill('SIGTERM');
    const { goneByMs } = stopDeadlines(options.drainSeconds);
    const bound = new Promise<'bound'>((resolve) => setTimeout(() => resolve('bound'), goneByMs + STOP_SLACK_MS).unref());
    if ((await Promise.race([Promise.all(exited), bound])) === 'bound') {
      say(`court-records: API processes still running ${String(goneByMs + STOP_SLACK_MS)} ms after ${reason}: killing them`);
      for (const worker of running) if (!worker.isDead()) worker.process.kill('SIGKILL');
      await Promise.all(exited);
      process.exit(1);
    }
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void stop('SIGTERM', 0));
  process.on('SIGINT', () => void stop('SIGINT', 0));

  const first = fork(0);
  const composed = await new Promise<boolean>((resolve) => {
    first.on('message', (message: unknown) => message === COMPOSED_MESSAGE && resolve(true));
    first.once('exit', () => resolve(false));
  });
  if (!composed) return stop('the first API process exited while starting', 1);
  for (let index = 1; index < count; index += 1) fork(index);
  return new Promise<never>(() => undefined);
}
