/**
 * One structured log line per request: request id, method, route pattern, status and
 * duration. Bodies, query strings and headers are never logged (they may hold screened
 * names or keys); the route pattern, not the raw path, keeps ids out of the logs too.
 */
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from 'pino';
import type { AppEnv } from '../env.ts';

export function accessLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.info(
      {
        requestId: c.get('requestId'),
        clientRequestId: c.get('clientRequestId'),
        method: c.req.method,
        route: routePath(c, -1),
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  };
}
