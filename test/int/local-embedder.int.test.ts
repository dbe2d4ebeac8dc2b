/**
 * The local embedder runs its model off the main thread. While 32 chunks of a real
 * judgment (the longest in the IN-Abs sample) embed, a 10 ms timer on the main thread
 * keeps firing with no gap above 100 ms; the same chunks embedded on this thread, as the
 * model did before it moved to a worker, leave a gap of seconds, so the bound tells the
 * two apart. The worker's vectors are the in-thread ones to the last bit. It also loads
 * and embeds inside a network namespace with no network at all, closes cleanly (waiting
 * calls fail, the next call starts a new worker) and stops early when aborted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalUseEmbedder, USE_LITE_BATCH, USE_LITE_MODEL } from '../../src/adapters/embeddings/local-use-embedder.ts';
import { embedBatch, loadUseLite } from '../../src/adapters/embeddings/use-lite-model.ts';
import { chunkText, USE_LITE_CHUNKING } from '../../src/domain/semantic/chunking.ts';
import { EmbedderUnavailableError } from '../../src/ports/embedder.ts';
import { corpusDir } from '../support/corpus.ts';

const MAX_GAP_MS = 100;

/** The first 32 chunks of the longest judgment in the IN-Abs sample. */
function realChunks(): string[] {
  const file = join(corpusDir, 'sc-judgments-text-inabs-sample', 'in_abs_sample.jsonl');
  const judgments = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { judgement: string }).judgement);
  const longest = judgments.reduce((a, b) => (b.length > a.length ? b : a), '');
  return chunkText(longest, USE_LITE_CHUNKING).slice(0, 32);
}

/** Runs `work` with a 10 ms interval timer beside it; the longest wait between ticks, the end included. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; gapMs: number; ticks: number }> {
  let last = performance.now();
  let gapMs = 0;
  let ticks = 0;
  const tick = (): void => {
    const now = performance.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
    ticks += 1;
  };
  const timer = setInterval(tick, 10);
  try {
    const result = await work();
    tick();
    return { result, gapMs, ticks: ticks - 1 };
  } finally {
    clearInterval(timer);
  }
}

describe('local embedder in a worker thread', { timeout: 300_000 }, () => {
  const chunks = realChunks();
  const embedder = new LocalUseEmbedder();
  let inThread: { result: number[][]; gapMs: number; ticks: number };

  before(async () => {
    const model = await loadUseLite();
    inThread = await longestStall(async () => {
      const vectors: number[][] = [];
      for (let i = 0; i < chunks.length; i += USE_LITE_BATCH)
        vectors.push(...(await embedBatch(model, chunks.slice(i, i + USE_LITE_BATCH))));
      return vectors;
    });
  });
  after(() => embedder.close());

  it('keeps the main thread responsive while a 32-chunk batch embeds, with the in-thread vectors', async () => {
    assert.equal(chunks.length, 32);
    await embedder.load();
    const inWorker = await longestStall(() => embedder.embed(chunks));
    console.log(
      `32 chunks: in-thread longest stall ${inThread.gapMs.toFixed(0)} ms (${String(inThread.ticks)} ticks); ` +
        `worker longest stall ${inWorker.gapMs.toFixed(0)} ms (${String(inWorker.ticks)} ticks)`,
    );
    assert.ok(inThread.gapMs > MAX_GAP_MS * 5, `the in-thread run stalled only ${inThread.gapMs.toFixed(0)} ms: the probe cannot tell`);
    assert.ok(inWorker.gapMs < MAX_GAP_MS, `the main thread stalled ${inWorker.gapMs.toFixed(0)} ms`);
    assert.ok(inWorker.ticks > 20, `only ${String(inWorker.ticks)} timer ticks`);
    assert.equal(inWorker.result.length, 32);
    assert.ok(inWorker.result.every((v) => v.length === embedder.dimensions && Math.abs(Math.hypot(...v) - 1) < 1e-9));
    assert.deepEqual(inWorker.result, inThread.result);
    assert.equal(embedder.model, USE_LITE_MODEL);
  });

  it('loads and embeds with no network at all (a network namespace without interfaces)', (t) => {
    const probe = spawnSync('unshare', ['-rn', 'true']);
    if (probe.status !== 0) {
      t.skip('unshare -rn is not permitted here');
      return;
    }
    const script = `
      import { LocalUseEmbedder } from ${JSON.stringify(new URL('../../src/adapters/embeddings/local-use-embedder.ts', import.meta.url).href)};
      const embedder = new LocalUseEmbedder();
      const vectors = await embedder.embed(${JSON.stringify(chunks.slice(0, USE_LITE_BATCH))});
      await embedder.close();
      process.stdout.write(JSON.stringify(vectors));`;
    const run = spawnSync('unshare', ['-rn', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const offline = JSON.parse(run.stdout) as number[][];
    assert.deepEqual(offline, inThread.result.slice(0, USE_LITE_BATCH));
  });

  it('close() fails waiting calls and terminates the worker; the next call starts a new one', async () => {
    const local = new LocalUseEmbedder();
    const waiting = assert.rejects(local.embed(chunks), EmbedderUnavailableError);
    await local.load();
    await local.close();
    await waiting;
    const [vector] = await local.embed(chunks.slice(0, 1));
    assert.equal(vector?.length, 512);
    await local.close();
  });

  it('an aborted call stops at the next batch instead of embedding the rest', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const call = embedder.embed(chunks, controller.signal);
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await assert.rejects(call, /caller gave up/);
    const elapsed = performance.now() - started;
    // 32 chunks take seconds; an abort answers at once.
    assert.ok(elapsed < 1000, `abort took ${elapsed.toFixed(0)} ms`);
  });
});
