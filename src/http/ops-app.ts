/**
 * The HTTP app of a process that serves no API, a worker apart: GET /ops/metrics only,
 * guarded exactly as on the API (loopback callers only without METRICS_TOKEN, the bearer
 * token with it), with the same request ids and error shapes.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Logger } from 'pino';
import type { IdGenerator } from '../ports/clock.ts';
import { ApiError } from './api-error.ts';
import type { App } from './app-types.ts';
import type { AppEnv } from './env.ts';
import { requestId } from './middleware/request-id.ts';
import { renderError } from './render-error.ts';
import { registerGetMetrics, type MetricsRouteDeps } from './routes/ops/get-metrics.ts';

export interface OpsAppDeps {
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly metrics: MetricsRouteDeps;
}

export function createOpsApp(deps: OpsAppDeps): App {
  const root: App = new OpenAPIHono<AppEnv>();
  root.use('*', requestId(deps.ids));
  root.onError((error, c) => {
    if (error instanceof ApiError) return renderError(c, error);
    deps.logger.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    return renderError(c, new ApiError('INTERNAL_ERROR'));
  });
  root.notFound((c) => renderError(c, new ApiError('ROUTE_NOT_FOUND')));
  registerGetMetrics(root, deps.metrics);
  return root;
}
