/**
 * GET /ops/metrics: the Prometheus exposition (point a scrape job's `metrics_path` here).
 * An ops route beside the Temporal codec, registered on the plain router so it stays out
 * of both OpenAPI documents: it is for the operator's scraper, not for API clients.
 *
 * Who may scrape. With METRICS_TOKEN set, only a caller sending it as a bearer token
 * (checked like the admin token, wrong guesses throttled per address). Without it, only a
 * caller on this machine: the socket is loopback and no proxy stands between (no trusted
 * proxies configured, no forwarding header), since a reverse proxy on the same host would
 * otherwise hand every outside request a loopback socket. The embedded default listens on
 * 127.0.0.1, so a local Prometheus scrapes it with no setup; anyone else is answered 404
 * (not 401: there is no token they could present), its message saying why.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Metrics } from '../../../ports/metrics.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { fromThisMachine } from '../../local-caller.ts';
import { requireAdminToken, type AdminTokenAttempts } from '../admin/admin-token-support.ts';

export const METRICS_PATH = '/ops/metrics';

export interface MetricsRouteDeps {
  readonly metrics: Metrics;
  /** METRICS_TOKEN; undefined admits loopback callers only. */
  readonly token: string | undefined;
  readonly attempts: AdminTokenAttempts;
  /** The socket's own address, whatever X-Forwarded-For says. */
  readonly socketAddress: (c: Context<AppEnv>) => string;
  /** TRUSTED_PROXIES is set: a proxy may relay outside callers over loopback. */
  readonly behindProxy: boolean;
}

function localOnly(deps: MetricsRouteDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!fromThisMachine(c, deps.socketAddress, deps.behindProxy)) {
      throw new ApiError('ROUTE_NOT_FOUND', {
        message: `${METRICS_PATH} answers callers on this machine only unless METRICS_TOKEN is set.`,
      });
    }
    await next();
  };
}

export function registerGetMetrics(root: App, deps: MetricsRouteDeps): void {
  root.use(METRICS_PATH, deps.token === undefined ? localOnly(deps) : requireAdminToken(deps.token, deps.attempts));
  root.get(METRICS_PATH, async (c) => {
    const { contentType, body } = await deps.metrics.scrape();
    return c.body(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  });
}
