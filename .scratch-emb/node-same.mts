import { LocalUseEmbedder } from '../src/adapters/embeddings/local-use-embedder.ts';
const e = new LocalUseEmbedder();
const v = await e.embed(['The appellant was convicted under section 302 of the Indian Penal Code.']);
console.log(v[0]?.slice(0, 3)); await e.close();
