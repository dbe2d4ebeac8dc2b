/**
 * Marks a long text (a judgment's full text) without holding the event loop: the embedder
 * runs in steps of EMBED_STEP_CHARS characters and the loop is given back between them, so
 * other requests are served while half a million characters are marked (some 60 ms of one
 * thread in one piece). Short prose is marked in one step.
 */
import { setImmediate } from 'node:timers/promises';
import { embedSteps } from '../../domain/watermark/embed.ts';
import type { AccountTag } from '../../domain/watermark/tag.ts';

export async function embedInSteps(text: string, tag: AccountTag): Promise<string> {
  const steps = embedSteps(text, tag);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await setImmediate();
  }
}
