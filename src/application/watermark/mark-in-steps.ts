/**
 * Plans the marks of a long text (a judgment's full text) without holding the event loop:
 * the planner runs in steps and the loop is given back whenever a time slice has run, so
 * other requests are served while half a million characters are planned (some 60 ms of
 * one thread in one piece).
 */
import { planSteps, type MarkPlan } from '../../domain/watermark/embed.ts';
import { TimeSlicer } from '../../scheduling/time-slice.ts';

export async function planInSteps(text: string): Promise<MarkPlan> {
  return new TimeSlicer().run(planSteps(text));
}
