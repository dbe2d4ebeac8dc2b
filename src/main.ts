/**
 * Node entry point: listen, compose the service, then start background work (first-start
 * ingest, coverage warm-up) so /health answers while the corpus loads; stop on SIGTERM or
 * SIGINT within SHUTDOWN_DRAIN_SECONDS plus a fixed bound, in every state (exit-guard.ts).
 */
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { composeService, type Service } from './compose.ts';
import { DirectoryLockedError } from './adapters/pglite/directory-lock.ts';
import { COMPOSED_MESSAGE, processCount, runPrimary } from './composition/api-processes.ts';
import { exitGuard, stopDeadlines } from './composition/exit-guard.ts';

/** A configuration refused is one line on stderr and exit code 1, not a stack trace. */
function configuration(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`court-records: not started: ${err.message}\n`);
    process.exit(1);
  }
}

const configured = configuration();

// API_PROCESSES > 1: this process only starts and stops the API processes (api-processes.ts).
const processes = processCount(configured.API_PROCESSES, availableParallelism());
if (processes > 1 && cluster.isPrimary) {
  await runPrimary({
    count: processes,
    dataDir: configured.DATA_DIR,
    drainSeconds: configured.SHUTDOWN_DRAIN_SECONDS,
    say: (line) => process.stderr.write(`${line}\n`),
  });
}

// PORT is bound before anything is composed: the embedded dev server, started while
// composing, takes free ports of its own and must never be handed this one. Requests that
// arrive meanwhile wait for the app. PORT=0 binds a free port, which the service then
// takes as its own (links, the log line) as if it had been configured.
let composed: (service: Service) => void = () => undefined;
const ready = new Promise<Service>((resolve) => (composed = resolve));
const server = serve({
  fetch: async (request, env) => (await ready).app.fetch(request, env),
  port: configured.PORT,
  hostname: configured.HOST,
});
await new Promise<void>((resolve, reject) => {
  server.once('listening', resolve);
  server.once('error', reject);
}).catch((err: unknown) => {
  process.stderr.write(`court-records: not started: cannot listen on ${configured.HOST}:${String(configured.PORT)}: ${String(err)}\n`);
  process.exit(1);
});
const address = server.address();
const config = { ...configured, PORT: typeof address === 'object' && address ? address.port : configured.PORT };

const running = await composeService(config, { socketAddress: (c) => getConnInfo(c).remote.address ?? 'unknown' }).catch((err: unknown) => {
  // Another process holds DATA_DIR's database: one line saying which, not a stack trace.
  if (!(err instanceof DirectoryLockedError)) throw err;
  process.stderr.write(`court-records: not started: ${err.message}\n`);
  process.exit(1);
});
composed(running);
if (cluster.isWorker) process.send?.(COMPOSED_MESSAGE);
running.logger.info(
  { url: `http://${config.HOST}:${String(config.PORT)}${config.API_BASE_PATH}`, docs: `http://${config.HOST}:${String(config.PORT)}/docs` },
  'listening',
);
void running.startBackground().catch((err: unknown) => running.logger.error({ err }, 'background start failed'));

let closing = false;
/**
 * A graceful stop: the listener stops accepting, idle keep-alive connections close, the
 * requests in flight finish (up to SHUTDOWN_DRAIN_SECONDS), then everything closes, for at
 * most CLOSE_BOUND_MS. A call cut off past the bound leaves at most a hold, which lapses
 * and is released by the sweep. Should closing itself hang, the process exits at the bound
 * anyway, naming what had not closed; should even that be held, the guard kills it.
 */
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  const guard = exitGuard();
  const { closedByMs, goneByMs } = stopDeadlines(config.SHUTDOWN_DRAIN_SECONDS);
  guard.killAfter(goneByMs, `still running ${String(goneByMs)} ms after ${signal}`);
  setTimeout(() => {
    running.logger.error({ notClosed: running.stillClosing() }, 'not closed within the bound: exiting under it');
    running.logger.flush();
    guard.exit(1);
  }, closedByMs).unref();
  running.logger.info({ signal }, 'shutting down: draining requests in flight');
  server.close();
  if ('closeIdleConnections' in server) server.closeIdleConnections();
  const { abandoned, closed } = await running.drainAndClose();
  if (closed) running.logger.info({ abandoned }, 'stopped');
  else running.logger.error({ abandoned }, 'stopped before everything closed: a dependency did not answer');
  running.logger.flush();
  guard.exit(closed ? 0 : 1);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
