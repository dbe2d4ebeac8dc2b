/**
 * The worker thread that owns the embedded ClickHouse session. libchdb binds one data
 * directory per process and some of its calls (opening the session, parsing results) run
 * on the calling thread, so all of it lives here and the main thread only posts messages.
 * Replies are JSONEachRow already parsed into rows, so parsing is off the main thread too.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { drainPending, Session } from 'chdb';
import type { ChdbFailure, ChdbReply, ChdbRequest, ChdbStartup, ChdbWorkerData } from './chdb-protocol.ts';
import { parseJsonEachRow } from './wire.ts';

function failure(error: unknown): ChdbFailure {
  return { message: error instanceof Error ? error.message : String(error) };
}

async function run(session: Session, request: Exclude<ChdbRequest, { op: 'close' }>): Promise<unknown[]> {
  switch (request.op) {
    case 'command':
      await session.queryAsync(request.sql);
      return [];
    case 'query': {
      const format = { format: 'JSONEachRow' };
      const result =
        Object.keys(request.params).length === 0
          ? await session.queryAsync(request.sql, format)
          : await session.queryBindAsync(request.sql, request.params, format);
      return parseJsonEachRow(result.text());
    }
    case 'insert':
      await session.insert({
        table: request.table,
        values: request.jsonEachRow,
        format: 'JSONEachRow',
        ...(request.dedupToken === undefined ? {} : { settings: { insert_deduplication_token: request.dedupToken } }),
      });
      return [];
    default: {
      const unexpected: never = request;
      throw new Error(`unknown request ${JSON.stringify(unexpected)}`);
    }
  }
}

function serve(port: NonNullable<typeof parentPort>, data: ChdbWorkerData): void {
  let session: Session;
  try {
    session = new Session(data.dataPath, { connectionArgs: data.connectionArgs });
  } catch (error) {
    port.postMessage({ ready: false, error: failure(error) } satisfies ChdbStartup);
    // Lets the thread end; unref() rather than close(), which Deno's parentPort lacks.
    port.unref();
    return;
  }
  port.postMessage({ ready: true } satisfies ChdbStartup);
  port.on('message', (request: ChdbRequest) => {
    if (request.op === 'close') {
      session.close();
      // close() returns before the connection is gone if a query still runs on it.
      void drainPending().then(() => {
        port.postMessage({ id: request.id, ok: true, rows: [] } satisfies ChdbReply);
        port.unref();
      });
      return;
    }
    run(session, request).then(
      (rows) => port.postMessage({ id: request.id, ok: true, rows } satisfies ChdbReply),
      (error: unknown) => port.postMessage({ id: request.id, ok: false, error: failure(error) } satisfies ChdbReply),
    );
  });
}

if (parentPort) serve(parentPort, workerData as ChdbWorkerData);
