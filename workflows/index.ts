/** Every workflow type the worker registers (its workflowsPath bundle starts here). */
export { analyseCase, analyseConsolidated } from './analysis.ts';
export { fetchCaseTimeline } from './timeline.ts';
export { deliverWebhook } from './webhook.ts';
