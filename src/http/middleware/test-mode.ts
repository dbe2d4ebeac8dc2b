/**
 * Hands a request made with a test key, and a test-mode document link, to test mode's app
 * (compose-test-mode.ts) before anything here reads its body or records it: test mode
 * answers, logs, audits and charges it in its own stores. Everything else goes on here.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.ts';
import type { AppEnv } from '../env.ts';
import { renderError } from '../render-error.ts';
import { presentedKey } from './require-api-key.ts';

export interface TestModeRouting {
  /** Test mode's app, built on its first call. */
  readonly app: () => Promise<{ fetch: (request: Request, env: unknown) => Response | Promise<Response> }>;
  readonly isTestKey: (key: string) => boolean;
  /** The path test mode's document links live under (TEST_MODE_PATH), before the API's base path. */
  readonly linkPrefix: string;
}

export function testModeDispatch(basePath: string, routing: TestModeRouting): MiddlewareHandler<AppEnv> {
  const links = `${routing.linkPrefix}${basePath}/documents/`;
  return async (c, next) => {
    const path = c.req.path;
    let request: Request | undefined;
    if (path.startsWith(links)) {
      const url = new URL(c.req.url);
      url.pathname = path.slice(routing.linkPrefix.length);
      request = new Request(url, c.req.raw);
    } else if (path === basePath || path.startsWith(`${basePath}/`)) {
      const key = presentedKey(c);
      if (key !== undefined && routing.isTestKey(key)) request = c.req.raw;
    }
    if (request === undefined) return next();
    let app: Awaited<ReturnType<TestModeRouting['app']>>;
    try {
      app = await routing.app();
    } catch {
      // Logged where it failed (compose-test-mode.ts); the next test call tries to build it again.
      return renderError(
        c,
        new ApiError('UPSTREAM_UNAVAILABLE', { message: 'Test mode could not start; nothing was charged. Retry shortly.' }),
      );
    }
    return app.fetch(request, c.env);
  };
}
