/**
 * Gives every request an id, echoed in X-Request-Id on every response (errors included).
 * A caller's own well-formed id is kept so its logs and ours join up.
 */
import type { MiddlewareHandler } from 'hono';
import type { IdGenerator } from '../../ports/clock.ts';
import type { AppEnv } from '../env.ts';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(ids: IdGenerator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('X-Request-Id');
    const id = incoming && ACCEPTABLE.test(incoming) ? incoming : ids.next();
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
    // A handler may have built a fresh Response; make sure it still carries the id.
    if (!c.res.headers.has('X-Request-Id')) c.res.headers.set('X-Request-Id', id);
  };
}
