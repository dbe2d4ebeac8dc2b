/**
 * Chooses the Embedder from config: the OpenAI-compatible HTTP service when
 * EMBEDDINGS_URL is set (model and dimensions must then be named too), else the local
 * Universal Sentence Encoder lite, which needs no network and no key.
 */
import type { Embedder } from '../../ports/embedder.ts';
import { LocalUseEmbedder } from './local-use-embedder.ts';
import { OpenAiEmbedder } from './openai-embedder.ts';

export interface EmbedderConfig {
  readonly EMBEDDINGS_URL?: string | undefined;
  readonly EMBEDDINGS_MODEL?: string | undefined;
  readonly EMBEDDINGS_API_KEY?: string | undefined;
  readonly EMBEDDINGS_DIMENSIONS?: number | undefined;
}

export function openEmbedder(config: EmbedderConfig): Embedder {
  if (!config.EMBEDDINGS_URL) return new LocalUseEmbedder();
  if (!config.EMBEDDINGS_MODEL || !config.EMBEDDINGS_DIMENSIONS) {
    throw new Error('EMBEDDINGS_URL is set: EMBEDDINGS_MODEL and EMBEDDINGS_DIMENSIONS must be set too');
  }
  return new OpenAiEmbedder({
    url: config.EMBEDDINGS_URL,
    model: config.EMBEDDINGS_MODEL,
    dimensions: config.EMBEDDINGS_DIMENSIONS,
    apiKey: config.EMBEDDINGS_API_KEY,
  });
}
