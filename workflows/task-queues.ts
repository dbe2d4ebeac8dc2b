/** Task queue names, in one place: the API starts workflows on them and the worker polls them. */
export const TASK_QUEUES = {
  /** Single-document and consolidated analyses. */
  analysis: 'court-records-analysis',
  /** Timeline requests, including live fetches from court portals. */
  timeline: 'court-records-timeline',
} as const;

/** Workflow ids: deterministic per subject, so one can never be started twice. */
export const workflowIds = {
  /** `analysis-<caseId>-<n>`: the run id itself. */
  analysis: (runId: string): string => runId,
  consolidated: (caseNumberNormalised: string): string => `consolidated-${caseNumberNormalised}`,
  timeline: (requestId: string): string => `timeline-${requestId}`,
} as const;
