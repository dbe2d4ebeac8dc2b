/**
 * Deno entry point: the same composed app, served by Deno.serve. Only this file knows it
 * runs on Deno; the app itself uses web standards.
 */
import { getConnInfo } from 'hono/deno';
import { loadConfig } from './config.ts';
import { composeService } from './compose.ts';
import { DirectoryLockedError } from './adapters/pglite/directory-lock.ts';

const config = loadConfig(Deno.env.toObject());
const service = await composeService(config, { socketAddress: (c) => getConnInfo(c).remote.address ?? 'unknown' }).catch((err: unknown) => {
  // Another process holds DATA_DIR's database: one line saying which, not a stack trace.
  if (!(err instanceof DirectoryLockedError)) throw err;
  console.error(`court-records: not started: ${err.message}`);
  Deno.exit(1);
});
const server = Deno.serve(
  { port: config.PORT, hostname: config.HOST, onListen: ({ port }) => service.logger.info({ port, runtime: 'deno' }, 'listening') },
  service.app.fetch,
);
void service.startBackground().catch((err: unknown) => service.logger.error({ err }, 'background start failed'));

let closing = false;
/** As on Node: stop accepting, let the requests in flight finish (bounded), then close everything. */
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  service.logger.info({ signal }, 'shutting down: draining requests in flight');
  // Deno's shutdown waits for every connection to finish; the service's drain bounds the wait instead.
  void server.shutdown();
  const { abandoned, closed } = await service.drainAndClose();
  if (closed) service.logger.info({ abandoned }, 'stopped');
  else service.logger.error({ abandoned }, 'stopped before everything closed: a dependency did not answer');
  Deno.exit(closed ? 0 : 1);
}
Deno.addSignalListener('SIGINT', () => void shutdown('SIGINT'));
Deno.addSignalListener('SIGTERM', () => void shutdown('SIGTERM'));
