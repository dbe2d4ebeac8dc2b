/**
 * Messages between ChdbAnalyticsStore (main thread) and the worker that owns the chdb
 * session. Every request carries an id that its one reply echoes, so any number of
 * requests can be in flight.
 */
import type { WireParam } from './wire.ts';

export interface ChdbWorkerData {
  dataPath: string;
  /** Engine arguments at connect, in `clickhouse local` command-line form. */
  connectionArgs: string[];
}

export type ChdbRequest =
  | { id: number; op: 'command'; sql: string }
  | { id: number; op: 'query'; sql: string; params: Record<string, WireParam> }
  /** Rows as JSONEachRow text, serialised on the main thread by the shared wire rules. */
  | { id: number; op: 'insert'; table: string; jsonEachRow: string; dedupToken: string | undefined }
  | { id: number; op: 'close' };

export interface ChdbFailure {
  /** The engine's text, "Code: N. DB::Exception: ...", parsed on the main thread. */
  message: string;
}

export type ChdbReply = { id: number; ok: true; rows: unknown[] } | { id: number; ok: false; error: ChdbFailure };

/** Sent once, before any reply: the session opened, or why it did not. */
export type ChdbStartup = { ready: true } | { ready: false; error: ChdbFailure };
