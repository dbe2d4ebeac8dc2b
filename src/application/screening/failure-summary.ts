/**
 * What may be said about a failure during a litigation check: the error's class and code,
 * never its message. Database and search errors can quote the statement's parameters (a
 * PostgreSQL error names the offending value), and those parameters are screened names;
 * so nothing from a screening failure reaches a log or an error body beyond this summary.
 */
export class ScreeningFailedError extends Error {
  override readonly name = 'ScreeningFailedError';
}

export function failureSummary(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' || typeof code === 'number' ? `${error.name} (${String(code)})` : error.name;
}

/** Rethrown in place of whatever failed, carrying only the summary. */
export function scrubbed(stage: string, error: unknown): ScreeningFailedError {
  return new ScreeningFailedError(`litigation check failed at ${stage}: ${failureSummary(error)}`);
}
