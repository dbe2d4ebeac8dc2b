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

// Only methods whose routes read a body, and only the headers: asking for the body itself
// (`c.req.raw.body`) makes @hono/node-server build a full web Request (body stream, abort
// signal) per call, which profiling showed as the largest single cost of GET /health and a
// tenth of a keyword search's. A declared length is checked as it stands (the HTTP parser
// reads no more than it declares); only a streamed body is counted as it arrives.
export const limitBody: MiddlewareHandler<AppEnv> = (c, next) => {
  if (!WITH_BODY.has(c.req.method)) return next();
  const declared = c.req.header('content-length');
  if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return limit(c, next);
  if (Number.parseInt(declared, 10) > MAX_BODY_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE');
  return next();
};

// The text is read through Hono's body cache (on Node straight from the socket, no web
// stream), so the route's validator parses it from there.
export const parseJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (WITH_BODY.has(c.req.method) && !FORM_BODY.test(c.req.header('content-type') ?? '')) {
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
