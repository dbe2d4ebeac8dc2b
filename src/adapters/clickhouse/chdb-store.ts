/**
 * The analytics store on embedded ClickHouse (chdb, ClickHouse 26.x in process): the
 * default when no CLICKHOUSE_URL is set, and what the tests run. A worker thread owns the
 * session (see chdb-worker.ts); this side numbers requests, matches replies to them and
 * turns engine failures into AnalyticsError, so the event loop never waits on a query.
 * Data persists under DATA_DIR/clickhouse.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AnalyticsError, type AnalyticsParam, type AnalyticsStore, type InsertOptions } from '../../ports/analytics.ts';
import type { ChdbReply, ChdbRequest, ChdbStartup, ChdbWorkerData } from './chdb-protocol.ts';
import { assertTableName, engineError, SHARED_SETTINGS, toWireParams, toWireRow } from './wire.ts';

// Node 20 does not carry tsx's module hooks into worker threads, so the worker registers
// them itself before it loads its TypeScript entry. Deno loads TypeScript itself and must
// not get them: once any module load hook is registered, its require compiles chdb's .node
// addon as JavaScript ("Invalid or unexpected token") instead of loading it.
const WORKER_BOOTSTRAP = `const hooks = typeof Deno === 'object' ? Promise.resolve()
  : import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => register());
hooks.then(() => import(${JSON.stringify(new URL('./chdb-worker.ts', import.meta.url).href)}));`;

type Pending = { resolve: (rows: unknown[]) => void; reject: (error: Error) => void };
/** A request before it is numbered; distributes over the union so each op keeps its fields. */
type RequestBody = ChdbRequest extends infer R ? (R extends ChdbRequest ? Omit<R, 'id'> : never) : never;

export class ChdbAnalyticsStore implements AnalyticsStore {
  readonly kind = 'chdb';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed: Promise<void> | undefined;
  private stopped: Error | undefined;

  constructor(
    private readonly worker: Worker,
    readonly replica: string,
  ) {
    worker.on('message', (reply: ChdbReply) => this.settle(reply));
    worker.on('error', (error) =>
      this.stop(new AnalyticsError(`chdb worker failed: ${error.message}`, undefined, undefined, { cause: error })),
    );
    worker.on('exit', (code) => this.stop(new AnalyticsError(`chdb worker exited (code ${code})`, undefined, undefined)));
    // An idle store must not keep the process alive; a pending request must.
    worker.unref();
  }

  async command(sql: string): Promise<void> {
    await this.request({ op: 'command', sql });
  }

  async insert(table: string, rows: readonly Record<string, unknown>[], options: InsertOptions = {}): Promise<void> {
    assertTableName(table);
    if (rows.length === 0) return;
    const jsonEachRow = rows.map((row) => JSON.stringify(toWireRow(row))).join('\n');
    await this.request({ op: 'insert', table, jsonEachRow, dedupToken: options.dedupToken });
  }

  async query<T>(sql: string, params?: Readonly<Record<string, AnalyticsParam>>): Promise<T[]> {
    return (await this.request({ op: 'query', sql, params: toWireParams(params) })) as T[];
  }

  async ping(): Promise<void> {
    await this.request({ op: 'query', sql: 'SELECT 1', params: {} });
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.stopped) return;
      const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
      await this.request({ op: 'close' }, true);
      // The reply unref'd the worker; its exit is still worth waiting for.
      this.worker.ref();
      await exited;
    })();
    return this.closed;
  }

  private request(body: RequestBody, closing = false): Promise<unknown[]> {
    if (this.closed && !closing) return Promise.reject(new AnalyticsError('analytics store is closed', undefined, undefined));
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      const message: ChdbRequest = { ...body, id };
      this.worker.postMessage(message);
    });
  }

  private settle(reply: ChdbReply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.ok) waiter.resolve(reply.rows);
    else waiter.reject(engineError(reply.error.message));
  }

  private stop(error: Error): void {
    this.stopped ??= error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

function startup(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new AnalyticsError(`chdb worker exited during startup (code ${code})`, undefined, undefined));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (message: ChdbStartup) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (message.ready) resolve();
      else reject(engineError(message.error.message));
    });
  });
}

/** The store's own id, kept with its data: a store reopened resumes its projection, a new folder starts one afresh. */
function replicaOf(dataPath: string): string {
  const file = join(dataPath, 'replica-id');
  if (!existsSync(file)) writeFileSync(file, crypto.randomUUID(), { flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

export async function openChdbStore(dataDir: string): Promise<ChdbAnalyticsStore> {
  const dataPath = join(dataDir, 'clickhouse');
  mkdirSync(dataPath, { recursive: true });
  // Node unloads an addon that only a worker loaded when that worker exits, and unloading
  // libchdb crashes the process. Loading it here as well keeps it resident for good.
  await import('chdb');
  const workerData: ChdbWorkerData = {
    dataPath,
    connectionArgs: Object.entries(SHARED_SETTINGS).map(([name, value]) => `--${name}=${value}`),
  };
  const worker = new Worker(WORKER_BOOTSTRAP, { eval: true, workerData });
  try {
    await startup(worker);
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return new ChdbAnalyticsStore(worker, replicaOf(dataPath));
}
