/**
 * The analytics store: ClickHouse SQL over one of two transports (a ClickHouse server over
 * HTTP in production, the embedded engine otherwise). Callers write ClickHouse SQL and bind
 * values with its native `{name:Type}` placeholders, so values never enter the SQL text.
 * Results arrive as ClickHouse's JSONEachRow renders them: 64-bit integers (count(), sum()
 * of UInt32) are strings, DateTime64 is 'YYYY-MM-DD hh:mm:ss.sss' in the column's zone.
 */

/** A value a `{name:Type}` placeholder can take; a Date binds as UTC text. */
export type AnalyticsScalar = string | number | bigint | boolean | Date | null;
export type AnalyticsParam = AnalyticsScalar | readonly AnalyticsScalar[];

export interface InsertOptions {
  /**
   * Retrying a batch with the same token is dropped by the server (insert_deduplication_token),
   * on tables that keep a deduplication window. Row-level replays are the table engine's job.
   */
  dedupToken?: string;
}

export interface AnalyticsStore {
  /**
   * Set on a store one process holds for itself (the embedded ClickHouse in its data
   * folder): such a store is a replica of the audit trail, filled by a projection of its own,
   * so every instance answers usage and audit from every event, not from the share it wrote.
   * Absent on a server every instance shares.
   */
  readonly replica?: string;
  /** Runs a statement that returns no rows (DDL, SYSTEM, OPTIMIZE). */
  command(sql: string): Promise<void>;
  /** Inserts rows by column name; a Date becomes UTC text, a missing column takes its default. */
  insert(table: string, rows: readonly Record<string, unknown>[], options?: InsertOptions): Promise<void>;
  query<T>(sql: string, params?: Readonly<Record<string, AnalyticsParam>>): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** An error from the engine: the ClickHouse message without its "Code: N. DB::Exception:" frame. */
export class AnalyticsError extends Error {
  override readonly name = 'AnalyticsError';

  constructor(
    message: string,
    /** ClickHouse's numeric error code, e.g. 60. */
    readonly code: number | undefined,
    /** ClickHouse's error name, e.g. UNKNOWN_TABLE. */
    readonly type: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
