/**
 * Composition root shared by the Node and Deno entry points: opens the adapters (embedded
 * defaults unless a service URL is set; composition/adapters.ts), builds the graph over
 * them once (composition/graph.ts), mounts test mode and the app, and starts and stops the
 * background work from one list (composition/lifecycle.ts).
 */
import type { Context } from 'hono';
import pino, { type Logger } from 'pino';
import type { Config } from './config.ts';
import { createApp } from './http/app.ts';
import type { App } from './http/app-types.ts';
import type { AppEnv } from './http/env.ts';
import { testMode } from './compose-test-mode.ts';
import { openAdapters } from './composition/adapters.ts';
import { TEST_MODE_PATH } from './composition/test-mode-adapters.ts';
import { buildGraph } from './composition/graph.ts';
import { lifecycle } from './composition/lifecycle.ts';
import { CLOSE_BOUND_MS } from './composition/exit-guard.ts';
import { randomIds, systemClock, type Clock } from './ports/clock.ts';

export interface Service {
  readonly app: App;
  readonly logger: Logger;
  /** Background work after the listener is up: first-start ingest, coverage warm-up. */
  startBackground(): Promise<void>;
  /**
   * A graceful stop, once the listener stopped accepting: lets the requests in flight finish
   * (up to SHUTDOWN_DRAIN_SECONDS; answers meanwhile say Connection: close), then closes
   * everything, for at most CLOSE_BOUND_MS. Resolves how many requests were still in flight
   * when it gave up waiting, and whether the closing finished in its bound.
   */
  drainAndClose(): Promise<{ abandoned: number; closed: boolean }>;
  /** What is being stopped or closed and has not ended yet: what a stop past its bound names. */
  stillClosing(): readonly string[];
  close(): Promise<void>;
}

/**
 * Stdout written in 4 kB chunks off the event loop instead of a blocking write per line: under
 * load the access log costs one write per some fifteen requests. A quiet service's lines wait
 * at most a second, and what is buffered is flushed when the process exits (a SIGKILL loses it).
 */
function bufferedStdout(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 });
}

/** On shared stores test mode is built at start: a test call before it is ready is told to retry at once. */
const TEST_MODE_STARTING_WAIT_MS = 2_000;

/**
 * On the embedded default a test call before the build that follows start-up (or the first
 * after a failed one) builds test mode (a PGlite, its fixtures): it waits for it, but answers
 * "retry shortly" before a client's usual 30 s timeout.
 */
const TEST_MODE_FIRST_BUILD_WAIT_MS = 20_000;

export async function composeService(
  config: Config,
  options: { socketAddress: (c: Context<AppEnv>) => string; clock?: Clock; logger?: Logger },
): Promise<Service> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL, base: { service: 'court-records-api' } }, bufferedStdout());
  const life = lifecycle({ onFailure: (step, err) => logger.error({ err, step }, 'did not stop cleanly') });
  const adapters = await openAdapters(config, { clock, logger, life });
  const graph = buildGraph(adapters, { config, clock, ids: randomIds, logger, socketAddress: options.socketAddress });
  // Pin the invalidator's starting point before the first request can fill a cache.
  await graph.application.invalidator.poll();
  const tests = config.TEST_MODE
    ? testMode({ config, logger, clock, liveAdapters: adapters, live: graph.appDeps, socketAddress: options.socketAddress })
    : undefined;
  if (tests) life.resource('test mode', () => tests.close());
  for (const task of graph.tasks) life.task(task);
  // Start-up work (first-start ingest, judgment PDFs) stops first: nothing of it may go on against what closes after.
  const startUp = new AbortController();
  let warming: Promise<void> = Promise.resolve();
  life.task({
    name: 'start-up work',
    start: () => undefined,
    stop: async () => {
      startUp.abort(new Error('the service is stopping'));
      await warming;
    },
  });
  const app = createApp({
    ...graph.appDeps,
    testMode: tests && {
      app: () => tests.app(),
      readyWithinMs: config.DATABASE_URL ? TEST_MODE_STARTING_WAIT_MS : TEST_MODE_FIRST_BUILD_WAIT_MS,
      isTestKey: (key) => graph.application.codec.modeOf(key) === 'test',
      linkPrefix: TEST_MODE_PATH,
    },
  });
  return {
    app,
    logger,
    startBackground: async () => {
      life.start();
      // On shared stores every instance serves test keys from the same stores: ready before the first test call.
      if (config.DATABASE_URL) tests?.start();
      if (graph.runWorker) adapters.workflowRuntime.startWorkers(graph.activities);
      warming = graph.warmUp(startUp.signal).catch((err: unknown) => {
        if (!startUp.signal.aborted) throw err;
      });
      await warming;
      // On the embedded default test mode is built once the live start-up work is done, not on the first
      // test call: built on the call, it could outlast the call's 20 s wait on a loaded machine.
      if (!config.DATABASE_URL && !startUp.signal.aborted) tests?.start();
    },
    drainAndClose: async () => {
      const drained = await graph.inFlight.drain(config.SHUTDOWN_DRAIN_SECONDS * 1000);
      const abandoned = drained ? 0 : graph.inFlight.count;
      return { abandoned, closed: await life.stop(CLOSE_BOUND_MS) };
    },
    stillClosing: () => life.unfinished(),
    close: async () => {
      await life.stop(Number.POSITIVE_INFINITY);
    },
  };
}
