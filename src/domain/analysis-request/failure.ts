/**
 * Why an analysis run failed, as customers are told it: one of a documented set of codes,
 * each with a fixed message. The reason a run records is for operators and may hold raw
 * internal text (an activity's error, an engine's message); it never reaches a customer.
 * A reason the service decided itself starts with its code (`failureReason`); any other
 * reason is the analysis's own error, told as ANALYSIS_FAILED, or ANALYSIS_TIMED_OUT when it
 * was a deadline or timeout ending the workflow.
 */

export const ANALYSIS_FAILURES = {
  ANALYSIS_FAILED: 'The analysis could not be completed. Its charge was given back; you may request it again.',
  ANALYSIS_TIMED_OUT: 'The analysis did not finish within its time limit. Its charge was given back; you may request it again.',
  WORKFLOW_ENGINE_UNAVAILABLE:
    'The service that runs analyses was unavailable, so the run did not complete. Its charge was given back; retry later.',
  CONCURRENT_RUN:
    'Another consolidated analysis of the same case number was already running; this request waited for it instead. Its hold was given back.',
  CASE_RESTRICTED: 'A document the analysis covers was restricted as it completed, so the analysis is withheld. Its charge was given back.',
} as const;

export type AnalysisFailureCode = keyof typeof ANALYSIS_FAILURES;

export const ANALYSIS_FAILURE_CODES = Object.keys(ANALYSIS_FAILURES) as [AnalysisFailureCode, ...AnalysisFailureCode[]];

/** The reason recorded for a failure the service decided: its code, then what happened, for operators. */
export const failureReason = (code: AnalysisFailureCode, detail: string): string => `${code}: ${detail}`;

const TIMED_OUT = /deadline|timed? ?out|cancel/i;

/** What a customer is told of a recorded reason: its code and that code's message, never the reason's text. */
export function customerFailure(reason: string): { code: AnalysisFailureCode; message: string } {
  const prefix = /^([A-Z_]+): /.exec(reason)?.[1];
  const code: AnalysisFailureCode =
    prefix !== undefined && prefix in ANALYSIS_FAILURES
      ? (prefix as AnalysisFailureCode)
      : TIMED_OUT.test(reason)
        ? 'ANALYSIS_TIMED_OUT'
        : 'ANALYSIS_FAILED';
  return { code, message: ANALYSIS_FAILURES[code] };
}
