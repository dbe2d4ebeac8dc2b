/**
 * Creates a new PGlite data folder (initdb) in a worker thread. PGlite runs on the thread
 * that opens it, and initdb is seconds of uninterrupted WebAssembly (8 to 10 s on a busy
 * two-core machine): on the main thread, test mode's first call would hold every request,
 * every timer and a SIGTERM's handler for that long. Opening the folder once it exists
 * takes well under a second and is left to the caller's thread. A worker that cannot run
 * it (a runtime without worker threads, a failure) leaves initdb to the caller's open, as
 * before, which then reports what is wrong.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

const INITDB = `
const { workerData, parentPort } = require('node:worker_threads');
import(workerData.pglite)
  .then(({ PGlite }) => PGlite.create(workerData.location))
  .then((pg) => pg.close())
  .then(() => parentPort.postMessage(true), () => parentPort.postMessage(false));
`;

/** Runs initdb for `location` off this thread when it holds no database yet; resolves once done, or given up to the caller. */
export async function initDataDir(location: string): Promise<void> {
  if (existsSync(join(location, 'PG_VERSION'))) return;
  let worker: Worker;
  try {
    worker = new Worker(INITDB, { eval: true, workerData: { location, pglite: import.meta.resolve('@electric-sql/pglite') } });
  } catch {
    return;
  }
  await new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
    worker.once('error', () => resolve());
    worker.once('exit', () => resolve());
  });
  await worker.terminate();
}
