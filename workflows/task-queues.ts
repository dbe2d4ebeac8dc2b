/** Task queue names, in one place: the API starts workflows on them and the worker polls them. */
export const TASK_QUEUES = {
  /** Single-document and consolidated analyses. */
  analysis: 'court-records-analysis',
  /** Timeline requests, including live fetches from court portals. */
  timeline: 'court-records-timeline',
  /** Webhook deliveries: one workflow per (event, endpoint). */
  webhooks: 'court-records-webhooks',
} as const;

/**
 * Test mode's queues and id prefix: its workflows run the same code on workers bound to the
 * test-mode stores, and their ids can never meet a live workflow's.
 */
export const TEST_MODE_WORKFLOWS = {
  queues: { analysis: 'court-records-analysis-test', timeline: 'court-records-timeline-test' },
  idPrefix: 'test-',
} as const;

/** Where a workflows adapter starts its workflows: the live queues and ids, or test mode's. */
export interface WorkflowPlacement {
  readonly queues: { readonly analysis: string; readonly timeline: string };
  readonly idPrefix: string;
}

export const LIVE_WORKFLOWS: WorkflowPlacement = { queues: TASK_QUEUES, idPrefix: '' };

/** Workflow ids: deterministic per subject, so one can never be started twice. */
export const workflowIds = {
  /** `analysis-<caseId>-<n>`: the run id itself. */
  analysis: (runId: string): string => runId,
  consolidated: (caseNumberNormalised: string): string => `consolidated-${caseNumberNormalised}`,
  timeline: (requestId: string): string => `timeline-${requestId}`,
  webhook: (deliveryId: string): string => `webhook-${deliveryId}`,
} as const;
