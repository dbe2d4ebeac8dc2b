/**
 * Gives every request an id of the server's own, echoed in X-Request-Id on every response
 * (errors included) and carried by the audit row, the ledger's request reference and the
 * logs. A caller's id is never used for any of those: ids the ledger keys on must be ours,
 * or a caller could replay one to make a paid call free. A caller's own well-formed
 * X-Request-Id (or X-Client-Request-Id) is kept for correlation only: logged beside ours
 * and echoed back in X-Client-Request-Id, so its logs and ours join up.
 */
import type { MiddlewareHandler } from 'hono';
import type { IdGenerator } from '../../ports/clock.ts';
import type { AppEnv } from '../env.ts';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(ids: IdGenerator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = ids.next();
    c.set('requestId', id);
    c.set('callId', id);
    c.header('X-Request-Id', id);
    const incoming = c.req.header('X-Client-Request-Id') ?? c.req.header('X-Request-Id');
    const clientId = incoming !== undefined && ACCEPTABLE.test(incoming) ? incoming : undefined;
    if (clientId !== undefined) {
      c.set('clientRequestId', clientId);
      c.header('X-Client-Request-Id', clientId);
    }
    await next();
    // A handler may have built a fresh Response; make sure it still carries the ids.
    if (!c.res.headers.has('X-Request-Id')) c.res.headers.set('X-Request-Id', id);
    if (clientId !== undefined && !c.res.headers.has('X-Client-Request-Id')) c.res.headers.set('X-Client-Request-Id', clientId);
  };
}
