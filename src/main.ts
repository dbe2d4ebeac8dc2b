/**
 * Node entry point: compose the service, listen, then start background work (first-start
 * ingest, coverage warm-up) so /health answers while the corpus loads.
 */
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { loadConfig } from './config.ts';
import { composeService } from './compose.ts';

const config = loadConfig(process.env);
const service = await composeService(config, { socketAddress: (c) => getConnInfo(c).remote.address ?? 'unknown' });
const server = serve({ fetch: service.app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
  service.logger.info(
    { url: `http://${config.HOST}:${info.port}${config.API_BASE_PATH}`, docs: `http://${config.HOST}:${info.port}/docs` },
    'listening',
  );
});
void service.startBackground().catch((err: unknown) => service.logger.error({ err }, 'background start failed'));

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  service.logger.info({ signal }, 'shutting down');
  server.close();
  await service.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
