/**
 * Recognises a statement PostgreSQL cancelled for running past the request path's
 * statement timeout (SQLSTATE 57014, query_canceled), so the HTTP layer can answer it as
 * the timeout of a dependency rather than as a fault of ours.
 */
const QUERY_CANCELED = '57014';

export function isStatementTimeout(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if ((current as { code?: unknown }).code === QUERY_CANCELED) return true;
  }
  return false;
}
