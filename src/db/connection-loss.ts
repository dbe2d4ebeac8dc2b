/**
 * Recognises a statement that failed because its connection was lost (the server ended the
 * backend, restarted, or the socket dropped), as opposed to one the database refused: the
 * first is worth one retry on a fresh connection once it is known nothing was written.
 */
const CLIENT_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNRESET', 'EPIPE']);
/** SQLSTATE class 08 (connection exception) and 57P01-57P03 (the server is going away). */
const SERVER_CODE = /^(08|57P0[123])/;

export function isConnectionLoss(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (CLIENT_CODES.has(code) || SERVER_CODE.test(code))) return true;
  }
  return false;
}
