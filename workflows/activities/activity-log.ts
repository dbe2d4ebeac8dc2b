/**
 * An activity's log line: through the SDK's activity logger, which adds the workflow and
 * activity ids and, in the service and the worker, writes through our pino logger
 * (runtime-logger.ts); with the id of the request that admitted the work, so one search
 * for an X-Request-Id finds the request's access-log line and its workflow's activities.
 * Never a case's text or a party's name: only ids, counts and outcomes.
 */
import { Context } from '@temporalio/activity';

export function logActivity(message: string, fields: { readonly requestId: string | undefined } & Record<string, unknown>): void {
  Context.current().log.info(message, fields);
}
