/**
 * Deno entry point: the same composed app, served by Deno.serve. Only this file knows it
 * runs on Deno; the app itself uses web standards.
 */
import { getConnInfo } from 'hono/deno';
import { loadConfig } from './config.ts';
import { composeService } from './compose.ts';

const config = loadConfig(Deno.env.toObject());
const service = await composeService(config, { socketAddress: (c) => getConnInfo(c).remote.address ?? 'unknown' });
Deno.serve(
  { port: config.PORT, hostname: config.HOST, onListen: ({ port }) => service.logger.info({ port, runtime: 'deno' }, 'listening') },
  service.app.fetch,
);
void service.startBackground().catch((err: unknown) => service.logger.error({ err }, 'background start failed'));
