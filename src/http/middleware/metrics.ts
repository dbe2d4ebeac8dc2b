/**
 * Counts every answer by method, route pattern and status, with its latency, and every
 * error answer by its code (renderError names it). The label is Hono's pattern of the
 * route that answered (`/api/v1/prod/cases/:id`), never the path asked for: the label set
 * stays bounded whatever callers send, and no case id or name reaches the metrics.
 */
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Metrics } from '../../ports/metrics.ts';
import type { AppEnv } from '../env.ts';

export function requestMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const seconds = (performance.now() - started) / 1000;
    metrics.httpRequest({ method: c.req.method, route: routePath(c, -1), status: c.res.status, seconds });
    const code = c.get('errorCode');
    if (code !== undefined) metrics.refused(code);
  };
}
