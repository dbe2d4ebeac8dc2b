/**
 * The exit guard ends a process that cannot end itself. Why it must exist: `process.exit`
 * waits for every worker thread, and the embedded ClickHouse's worker inside a native call
 * does not stop for it, so a bare exit leaves the process running (its exit handlers, and
 * with them the data folder's lock release, already run) for as long as the call takes. The
 * guard kills it EXIT_GRACE_MS after the exit, and a main thread blocked outright at its
 * deadline; each time it says why on stderr.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EXIT_GRACE_MS } from '../../src/composition/exit-guard.ts';

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** From "exiting" (or the start) to the end; undefined when it had not ended after `waitMs`. */
  readonly ms: number | undefined;
  readonly stderr: string;
}

async function held(mode: string, waitMs: number): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'held-exit-'));
  try {
    return await run(mode, waitMs, dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function run(mode: string, waitMs: number, dataDir: string): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/held-exit.ts', mode, '1000', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let from = Date.now();
  child.stdout.on('data', (chunk: Buffer) => {
    if (chunk.toString().includes('exiting')) from = Date.now();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    let ended = false;
    const timer = setTimeout(() => {
      if (ended) return;
      child.kill('SIGKILL');
      resolve({ code: null, signal: null, ms: undefined, stderr });
    }, waitMs);
    child.once('exit', (code, signal) => {
      ended = true;
      clearTimeout(timer);
      resolve({ code, signal, ms: Date.now() - from, stderr });
    });
  });
}

describe('the exit guard', { timeout: 120_000 }, () => {
  it('is needed: a bare process.exit with the embedded ClickHouse in a native call does not end the process', async () => {
    const ran = await held('native-worker-unguarded', 8_000);
    assert.equal(ran.ms, undefined, `the process ended on its own: ${JSON.stringify(ran)}`);
  });

  it('kills a process whose exit a native call in a worker thread holds, EXIT_GRACE_MS after the exit', async () => {
    const ran = await held('native-worker', 30_000);
    assert.equal(ran.signal, 'SIGKILL', JSON.stringify(ran));
    assert.ok(
      ran.ms !== undefined && ran.ms >= EXIT_GRACE_MS && ran.ms < EXIT_GRACE_MS + 3_000,
      `ended ${String(ran.ms)} ms after exiting`,
    );
    assert.match(ran.stderr, /did not end the process in 2000 ms \(a worker thread in a native call\): killed/);
  });

  it('kills a process whose main thread is blocked, at the deadline it was given', async () => {
    const ran = await held('main-thread', 30_000);
    assert.equal(ran.signal, 'SIGKILL', JSON.stringify(ran));
    assert.ok(ran.ms !== undefined && ran.ms < 10_000, `ended ${String(ran.ms)} ms after the start`);
    assert.match(ran.stderr, /held main thread: killed/);
  });
});
