/**
 * Hands a request made with a test key, and a test-mode document link, to test mode's app
 * (compose-test-mode.ts) before anything here reads its body or records it: test mode
 * answers, logs, audits and charges it in its own stores. Everything else goes on here.
 * A test call never waits long for test mode to start: past `readyWithinMs` it is answered
 * 502 UPSTREAM_UNAVAILABLE with Retry-After, nothing charged, while the build goes on.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.ts';
import type { AppEnv } from '../env.ts';
import { renderError } from '../render-error.ts';
import { presentedKey } from './require-api-key.ts';

export interface TestModeRouting {
  /** Test mode's app once it is ready; building it if nothing has started to. */
  readonly app: () => Promise<{ fetch: (request: Request, env: unknown) => Response | Promise<Response> }>;
  /** How long a test call waits for test mode still starting before it is answered "retry shortly". */
  readonly readyWithinMs: number;
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
    const built = await within(routing.app(), routing.readyWithinMs);
    if ('app' in built) return built.app.fetch(request, c.env);
    // Failed: logged where it failed (compose-test-mode.ts), and the next test call tries to build it again.
    const message = built.failed
      ? 'Test mode could not start; nothing was charged.'
      : 'Test mode is starting on this instance; nothing was charged.';
    return renderError(
      c,
      new ApiError('UPSTREAM_UNAVAILABLE', {
        message: `${message} Retry after ${String(RETRY_AFTER_SECONDS)} seconds.`,
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      }),
    );
  };
}

/** Test mode starts in seconds: a retry this much later usually finds it ready. */
const RETRY_AFTER_SECONDS = 5;

type Built = { readonly app: Awaited<ReturnType<TestModeRouting['app']>> } | { readonly failed: boolean };

/** The app if it is ready within `ms`; a build that fails after the wait is settled here too, never left unhandled. */
async function within(building: ReturnType<TestModeRouting['app']>, ms: number): Promise<Built> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Built>((resolve) => {
    timer = setTimeout(() => resolve({ failed: false }), ms);
  });
  const settled = building.then(
    (app): Built => ({ app }),
    (): Built => ({ failed: true }),
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}
