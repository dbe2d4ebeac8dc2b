import { loadUseLite, embedBatch } from '../src/adapters/embeddings/use-lite-model.ts';
const texts = Array.from({ length: 16 }, (_, i) => `The appellant ${i} was convicted under section ${i * 7} of the Indian Penal Code. `.repeat(i + 1));
const m = await loadUseLite();
const a = await embedBatch(m, texts);
const b: number[][] = [];
for (let i = 0; i < 16; i += 4) b.push(...(await embedBatch(m, texts.slice(i, i + 4))));
let maxd = 0, same = 0;
for (let i = 0; i < 16; i++) for (let j = 0; j < 512; j++) { const d = Math.abs(a[i]![j]! - b[i]![j]!); maxd = Math.max(maxd, d); if (d === 0) same++; }
console.log('maxdiff', maxd, 'identical entries', same, 'of', 16 * 512);
