import { LocalUseEmbedder } from '../src/adapters/embeddings/local-use-embedder.ts';
const e = new LocalUseEmbedder();
const t = performance.now();
try {
  const v = await e.embed(['The appellant was convicted under section 302 of the Indian Penal Code.']);
  console.log('ok', v.length, v[0]?.length, v[0]?.slice(0, 3), Math.round(performance.now() - t), 'ms');
} catch (error) {
  console.log('failed', (error as Error).name, (error as Error).message, Math.round(performance.now() - t), 'ms');
}
await e.close();
console.log('closed');
