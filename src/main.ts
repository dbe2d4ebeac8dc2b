/**
 * Node entry point: compose the service, listen, then start background work (first-start
 * ingest, coverage warm-up) so /health answers while the corpus loads; stop gracefully on
 * SIGTERM or SIGINT.
 */
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { loadConfig } from './config.ts';
import { composeService } from './compose.ts';
import { DirectoryLockedError } from './adapters/pglite/directory-lock.ts';

const config = loadConfig(process.env);
const service = await composeService(config, { socketAddress: (c) => getConnInfo(c).remote.address ?? 'unknown' }).catch((err: unknown) => {
  // Another process holds DATA_DIR's database: one line saying which, not a stack trace.
  if (!(err instanceof DirectoryLockedError)) throw err;
  process.stderr.write(`court-records: not started: ${err.message}\n`);
  process.exit(1);
});
const server = serve({ fetch: service.app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
  service.logger.info(
    { url: `http://${config.HOST}:${info.port}${config.API_BASE_PATH}`, docs: `http://${config.HOST}:${info.port}/docs` },
    'listening',
  );
});
void service.startBackground().catch((err: unknown) => service.logger.error({ err }, 'background start failed'));

let closing = false;
/**
 * A graceful stop: the listener stops accepting, idle keep-alive connections close, the
 * requests in flight finish (up to SHUTDOWN_DRAIN_SECONDS), then everything closes. A call
 * cut off past the bound leaves at most a hold, which lapses and is released by the sweep.
 */
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  service.logger.info({ signal }, 'shutting down: draining requests in flight');
  server.close();
  if ('closeIdleConnections' in server) server.closeIdleConnections();
  const { abandoned, closed } = await service.drainAndClose();
  if (closed) service.logger.info({ abandoned }, 'stopped');
  else service.logger.error({ abandoned }, 'stopped before everything closed: a dependency did not answer');
  process.exit(closed ? 0 : 1);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
