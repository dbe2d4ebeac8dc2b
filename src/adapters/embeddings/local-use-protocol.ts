/**
 * Messages between LocalUseEmbedder (main thread) and the worker thread that runs the
 * model. Every request carries an id that its one reply echoes; the worker answers in
 * order, one batch at a time.
 */

export interface EmbedRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

export type EmbedReply = { id: number; ok: true; vectors: number[][] } | { id: number; ok: false; message: string };

/** Sent once, before any reply: the model loaded, or why it did not. */
export type WorkerStartup = { ready: true } | { ready: false; message: string };
