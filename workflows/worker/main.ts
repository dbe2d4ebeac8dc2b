/**
 * The standalone worker entry point (`npm run worker`): the worker composed in
 * src/composition/worker.ts, against the same PostgreSQL (DATABASE_URL), document storage
 * and Temporal engine (TEMPORAL_ADDRESS, else the dev server an API process on this machine
 * started) as the API; GET /ops/metrics on WORKER_METRICS_PORT when set. SIGINT/SIGTERM
 * drain the workers and exit within a bound, which the exit guard holds in every state.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import pino from 'pino';
import { composeWorker } from '../../src/composition/worker.ts';
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import { randomIds, systemClock } from '../../src/ports/clock.ts';
import { CLOSE_BOUND_MS, exitGuard, stopDeadlines } from '../../src/composition/exit-guard.ts';

/** A configuration refused is one line on stderr and exit code 1, as the API's. */
function configuration(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`court-records-worker: not started: ${err.message}\n`);
    process.exit(1);
  }
}

const config = configuration();
const logger = pino({ level: config.LOG_LEVEL, base: { service: 'court-records-worker' } });
if (!config.DATABASE_URL) {
  logger.fatal('DATABASE_URL is required: a worker apart from the API needs a database both processes can reach');
  process.exit(2);
}
const socketAddress = (c: Parameters<typeof getConnInfo>[0]) => getConnInfo(c).remote.address ?? 'unknown';
const worker = await composeWorker(config, { logger, clock: systemClock, ids: randomIds, socketAddress });
if (!worker.available) {
  await worker.stop(CLOSE_BOUND_MS);
  process.exit(1);
}
worker.start();

/** Each worker's drain is bounded at 5 s and closing as a whole at CLOSE_BOUND_MS; a worker has no requests to drain. */
async function stop(signal: string): Promise<void> {
  const guard = exitGuard();
  const { closedByMs, goneByMs } = stopDeadlines(0);
  guard.killAfter(goneByMs, `worker still running ${String(goneByMs)} ms after ${signal}`);
  setTimeout(() => {
    logger.error({ notClosed: worker.stillClosing() }, 'worker not closed within the bound: exiting under it');
    guard.exit(1);
  }, closedByMs).unref();
  logger.info({ signal }, 'worker draining');
  guard.exit((await worker.stop(CLOSE_BOUND_MS)) ? 0 : 1);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
