/**
 * A private Meilisearch server for a test: the real binary (MEILI_BIN, else the one in
 * ../shared/bin beside the repository), on a free port with its own data folder, which it
 * keeps across `restart()` so a test can kill the server mid-work and bring the same data
 * back. Suites that need no fault use MEILI_URL when it is set (CI starts one server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Meilisearch } from 'meilisearch';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './service-process.ts';

export const meilisearchBinary = process.env.MEILI_BIN ?? resolve(import.meta.dirname, '../../../shared/bin/meilisearch');

/** Why Meilisearch suites cannot run here, or false when they can. */
export const meilisearchMissing: string | false =
  process.env.MEILI_URL || existsSync(meilisearchBinary) ? false : `no Meilisearch: MEILI_URL unset and no binary at ${meilisearchBinary}`;

export interface MeilisearchServer {
  readonly url: string;
  readonly apiKey: string;
  /** SIGKILL: no shutdown work, as a crash or an OOM kill. */
  kill(): Promise<void>;
  /** Starts again on the same port and data after kill(). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const API_KEY = 'test-master-key-0123456789abcdef';

async function healthy(url: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`Meilisearch at ${url} did not become healthy`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startMeilisearch(): Promise<MeilisearchServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'meili-test-'));
  const url = `http://127.0.0.1:${String(port)}`;
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(
      meilisearchBinary,
      ['--db-path', join(dataDir, 'data'), '--http-addr', `127.0.0.1:${String(port)}`, '--master-key', API_KEY, '--no-analytics'],
      { stdio: 'ignore', env: { ...process.env, MEILI_LOG_LEVEL: 'WARN' } },
    );
    await healthy(url, 30_000);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url,
    apiKey: API_KEY,
    kill,
    restart: launch,
    stop: async () => {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The shared server when MEILI_URL is set, else a private one stopped by `close`. */
export async function meilisearchForSuite(): Promise<{ url: string; apiKey: string | undefined; close(): Promise<void> }> {
  if (process.env.MEILI_URL) return { url: process.env.MEILI_URL, apiKey: process.env.MEILI_API_KEY, close: async () => undefined };
  const server = await startMeilisearch();
  return { url: server.url, apiKey: server.apiKey, close: () => server.stop() };
}

/** Drops a test's index and what open() keeps beside it (its `_schema` and any `_next`), which share its uid as a prefix. */
export async function dropIndexes(url: string, apiKey: string | undefined, uid: string): Promise<void> {
  const client = new Meilisearch({ host: url, ...(apiKey ? { apiKey } : {}) });
  const { results } = await client.getIndexes({ limit: 1000 });
  await Promise.all(results.filter((i) => i.uid.startsWith(uid)).map((i) => client.deleteIndex(i.uid)));
}
