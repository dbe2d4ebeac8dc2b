/**
 * The standalone worker entry point (`npm run worker`): the worker composed in
 * src/composition/worker.ts, against the same PostgreSQL (DATABASE_URL), document storage
 * and Temporal engine (TEMPORAL_ADDRESS, else the dev server an API process on this machine
 * started) as the API; GET /ops/metrics on WORKER_METRICS_PORT when set. SIGINT/SIGTERM
 * drain the workers and exit within a bound.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import pino from 'pino';
import { composeWorker, WORKER_STOP_BOUND_MS } from '../../src/composition/worker.ts';
import { loadConfig } from '../../src/config.ts';
import { randomIds, systemClock } from '../../src/ports/clock.ts';

const config = loadConfig(process.env);
const logger = pino({ level: config.LOG_LEVEL, base: { service: 'court-records-worker' } });
if (!config.DATABASE_URL) {
  logger.fatal('DATABASE_URL is required: a worker apart from the API needs a database both processes can reach');
  process.exit(2);
}
const socketAddress = (c: Parameters<typeof getConnInfo>[0]) => getConnInfo(c).remote.address ?? 'unknown';
const worker = await composeWorker(config, { logger, clock: systemClock, ids: randomIds, socketAddress });
if (!worker.available) {
  await worker.stop(WORKER_STOP_BOUND_MS);
  process.exit(1);
}
worker.start();

async function stop(signal: string): Promise<void> {
  logger.info({ signal }, 'worker draining');
  process.exit((await worker.stop(WORKER_STOP_BOUND_MS)) ? 0 : 1);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
