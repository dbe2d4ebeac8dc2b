/**
 * Reads JSON bodies once, up front: a body over the limit is refused with 413 before it is
 * parsed (counted while streaming, so chunked bodies without Content-Length are caught
 * too), and a body that is not JSON gets 400 MALFORMED_JSON instead of a parser message.
 * Hono caches the parsed body, so the route's validator reuses it.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../api-error.ts';
import type { AppEnv } from '../env.ts';

export const MAX_BODY_BYTES = 256 * 1024;

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// HTML forms post url-encoded bodies (the ops codec login form); their routes validate them as a form.
const FORM_BODY = /^application\/x-www-form-urlencoded\b/i;

const limit: MiddlewareHandler<AppEnv> = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError('PAYLOAD_TOO_LARGE');
  },
});

// Only methods whose routes read a body: asking a GET for its body makes @hono/node-server
// build a full web Request (body stream, abort signal) per call, which profiling showed as the
// largest single cost of GET /health.
export const limitBody: MiddlewareHandler<AppEnv> = (c, next) => (WITH_BODY.has(c.req.method) ? limit(c, next) : next());

export const parseJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (WITH_BODY.has(c.req.method) && c.req.raw.body !== null && !FORM_BODY.test(c.req.header('content-type') ?? '')) {
    const text = await c.req.text();
    if (text.trim().length > 0) {
      try {
        JSON.parse(text);
      } catch {
        throw new ApiError('MALFORMED_JSON');
      }
    }
  }
  await next();
};
