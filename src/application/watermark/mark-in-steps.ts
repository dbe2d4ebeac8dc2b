/**
 * Marks a long text (a judgment's full text) without holding the event loop: the embedder
 * runs in steps and the loop is given back whenever a time slice has run, so other
 * requests are served while half a million characters are marked (some 60 ms of one
 * thread in one piece). Short prose is marked in one slice.
 */
import { embedSteps } from '../../domain/watermark/embed.ts';
import type { AccountTag } from '../../domain/watermark/tag.ts';
import { TimeSlicer } from '../../scheduling/time-slice.ts';

export async function embedInSteps(text: string, tag: AccountTag): Promise<string> {
  return new TimeSlicer().run(embedSteps(text, tag));
}
