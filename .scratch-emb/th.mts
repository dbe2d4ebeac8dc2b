import * as core from '@energetic-ai/core';
import { loadUseLite, embedBatch } from '../src/adapters/embeddings/use-lite-model.ts';
const m = await loadUseLite();
const c = core as unknown as Record<string, (...a: unknown[]) => unknown>;
console.log('backend', c.getBackend?.(), 'threads', (() => { try { return c.getThreadsCount?.(); } catch (e) { return String(e); } })());
const texts = Array.from({ length: 16 }, (_, i) => `The appellant was convicted under section ${i} of the Indian Penal Code and the High Court dismissed the appeal. `.repeat(10));
for (const n of [1, 4, 8, 16]) { const t = performance.now(); await embedBatch(m, texts.slice(0, n)); console.log(n, (performance.now() - t).toFixed(0)); }
