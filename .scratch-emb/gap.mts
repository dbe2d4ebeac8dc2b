import { loadUseLite, embedBatch } from '../src/adapters/embeddings/use-lite-model.ts';
import { LocalUseEmbedder } from '../src/adapters/embeddings/local-use-embedder.ts';
const texts = Array.from({ length: 32 }, (_, i) => `The appellant was convicted under section ${i} of the Indian Penal Code and the High Court dismissed the appeal. `.repeat(10));
async function gaps(fn: () => Promise<unknown>) {
  let last = performance.now(); const g: number[] = [];
  const timer = setInterval(() => { const n = performance.now(); g.push(n - last); last = n; }, 10);
  const t = performance.now(); await fn(); clearInterval(timer);
  g.sort((a, b) => b - a);
  return { ms: Math.round(performance.now() - t), top: g.slice(0, 5).map(Math.round), ticks: g.length };
}
const m = await loadUseLite();
console.log('in-thread', await gaps(async () => { for (let i = 0; i < 32; i += 16) await embedBatch(m, texts.slice(i, i + 16)); }));
const e = new LocalUseEmbedder(); await e.load();
for (let k = 0; k < 3; k++) console.log('worker', await gaps(() => e.embed(texts)));
await e.close();
