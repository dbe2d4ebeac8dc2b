/**
 * The worker thread that owns the local embedding model. Computing an embedding keeps a
 * thread busy for about 150 ms a chunk, so the model lives here and the main thread, which
 * also serves HTTP, only posts texts and receives vectors. The model loads once at start;
 * the startup message says whether it did.
 */
import { parentPort } from 'node:worker_threads';
import type { EmbedReply, EmbedRequest, WorkerStartup } from './local-use-protocol.ts';
import { embedBatch, loadUseLite } from './use-lite-model.ts';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function serve(port: NonNullable<typeof parentPort>): Promise<void> {
  let model: Awaited<ReturnType<typeof loadUseLite>>;
  try {
    model = await loadUseLite();
  } catch (error) {
    port.postMessage({ ready: false, message: messageOf(error) } satisfies WorkerStartup);
    port.close();
    return;
  }
  // Requests are chained so that replies leave in the order the batches arrived.
  let queue = Promise.resolve();
  port.on('message', (request: EmbedRequest) => {
    queue = queue.then(() =>
      embedBatch(model, request.texts).then(
        (vectors) => port.postMessage({ id: request.id, ok: true, vectors } satisfies EmbedReply),
        (error: unknown) => port.postMessage({ id: request.id, ok: false, message: messageOf(error) } satisfies EmbedReply),
      ),
    );
  });
  port.postMessage({ ready: true } satisfies WorkerStartup);
}

if (parentPort) void serve(parentPort);
