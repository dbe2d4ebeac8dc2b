/** Every workflow type the worker registers (its workflowsPath bundle starts here). */
export { analyseCase, analyseConsolidated } from './analysis.ts';
export { fetchCaseTimeline } from './timeline.ts';
