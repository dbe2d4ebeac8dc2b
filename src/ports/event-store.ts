/**
 * The event store port. Streams are appended with an expected version (optimistic
 * concurrency); a mismatch is a typed conflict, never a silent overwrite. Events carry
 * type, schema version, data and metadata, and get a global position when recorded.
 * Inline projections run in the appending transaction, so their read models never lag;
 * an append can join a transaction the caller holds (several streams, or a read model
 * row and its events, in one commit). `Tx` is the adapter's transaction (Kysely's for
 * Postgres): the port names it without depending on the database code.
 */
export interface EventMetadata {
  readonly requestId?: string;
  readonly actor?: string;
  readonly occurredAt: string;
  readonly causationId?: string;
  readonly correlationId?: string;
}

export interface NewEvent<T extends string = string, D = unknown> {
  readonly type: T;
  readonly data: D;
  readonly schemaVersion?: number;
  /** This event's own metadata, over the append's (several callers' commands in one commit). */
  readonly metadata?: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  readonly globalPosition: number;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly type: T;
  readonly schemaVersion: number;
  readonly data: D;
  readonly metadata: EventMetadata;
  readonly transactionId: string;
  readonly recordedAt: Date;
}

/** What `readCommittedOfTypes` answers: the wanted events, where the scan ended, and how many it passed. */
export interface CommittedOfTypes {
  readonly events: RecordedEvent[];
  readonly through: Checkpoint | null;
  readonly scanned: number;
}

/** A number is the exact version the stream must be at (0: must not exist yet). */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  readonly nextExpectedVersion: number;
  readonly lastGlobalPosition: number;
}

export class VersionConflictError extends Error {
  readonly tag = 'VersionConflict';

  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
  ) {
    super(`stream ${streamId} is not at expected version ${String(expected)}`);
  }
}

export interface ReadStreamResult<E extends RecordedEvent = RecordedEvent> {
  readonly events: E[];
  readonly version: number;
}

export interface InlineProjection<Tx> {
  readonly name: string;
  readonly handles: readonly string[];
  /** The events of one append; of several streams at once only when `acrossStreams` says it can take them. */
  apply(trx: Tx, events: readonly RecordedEvent[]): Promise<void>;
  /** Takes the events of several streams' appends in one call (see `appendToStreams`). */
  readonly acrossStreams?: boolean;
}

/** One stream's part of `appendToStreams`: its events, at the version the caller holds it at. */
export interface StreamAppend {
  readonly streamId: string;
  /** The stream's current version; it exists, so at least 1. */
  readonly expected: number;
  readonly events: readonly NewEvent[];
}

export interface AppendOptions<Tx> {
  readonly streamType: string;
  readonly metadata: EventMetadata;
  /** Join a transaction the caller already holds (several streams in one commit). */
  readonly trx?: Tx;
}

/** A place in the order of committed events: transaction id, then global position. */
export interface Checkpoint {
  readonly transactionId: string;
  readonly globalPosition: number;
}

/** Before the first event: where a reader of the whole log starts. */
export const START: Checkpoint = { transactionId: '0', globalPosition: 0 };

/** A page of the events of every stream of one type, or of one stream of it. */
export interface StreamTypePage {
  readonly streamType: string;
  /** Only this stream of the type. */
  readonly streamId?: string;
  readonly limit: number;
}

export interface EventStore<Tx> {
  append(streamId: string, expected: ExpectedVersion, events: readonly NewEvent[], options: AppendOptions<Tx>): Promise<AppendResult>;
  /**
   * Starts streams of one event each in one commit of its own, for facts no inline
   * projection handles (the audit trail): nothing is read back. A stream that exists
   * fails the whole batch with a version conflict.
   */
  recordFacts(items: readonly { streamId: string; event: NewEvent; metadata: EventMetadata }[], streamType: string): Promise<void>;
  /**
   * Appends to several existing streams in the caller's transaction, each at the version
   * given, with one statement whatever their number (a group commit across accounts). A
   * stream not at its version throws VersionConflictError, and the others may then have
   * moved: the caller's transaction is to be rolled back. Results in the order given.
   */
  appendToStreams(appends: readonly StreamAppend[], options: AppendOptions<Tx> & { readonly trx: Tx }): Promise<AppendResult[]>;
  readStream(streamId: string, from?: number, trx?: Tx): Promise<ReadStreamResult>;
  /** Every event after a global position, in position order (for audits and rebuilds). */
  readAll(after: number, limit: number): Promise<RecordedEvent[]>;
  /**
   * Events committed after `after`, in an order that never skips a late commit (for pollers
   * and projectors); `trx` reads them in the caller's transaction (a projector's, which
   * holds its lock and saves its checkpoint there).
   */
  readCommittedAfter(after: Checkpoint, limit: number, trx?: Tx): Promise<RecordedEvent[]>;
  /**
   * The same read for a reader of a few event types: the events of `types` among the next
   * `limit`, and where the scan ended (`through`, null when nothing was committed after
   * `after`), which is where the next read starts; the other events' data is never read out.
   */
  readCommittedOfTypes(after: Checkpoint, limit: number, types: readonly string[], trx?: Tx): Promise<CommittedOfTypes>;
  /** How many events committed after `after` (a projector's lag), counting no further than `ceiling`. */
  countCommittedAfter(after: Checkpoint, ceiling: number): Promise<number>;
  /** Events of a stream type's streams in global position order after `after`, recorded before `recordedBefore` (exports). */
  readStreamTypeByPosition(page: StreamTypePage & { readonly after: number; readonly recordedBefore?: Date }): Promise<RecordedEvent[]>;
  /**
   * The same events ordered by stream, then stream position, after (streamId, position): each
   * stream's events together, for folds stream by stream (`trx`: in the caller's transaction).
   */
  readStreamTypeByStream(page: StreamTypePage & { readonly after: readonly [string, number]; readonly trx?: Tx }): Promise<RecordedEvent[]>;
  /** Events of one type in global position order after `after`, recorded in [recordedFrom, recordedBefore). */
  readEventTypeByPosition(page: {
    readonly type: string;
    readonly after: number;
    readonly limit: number;
    readonly recordedFrom?: Date;
    readonly recordedBefore?: Date;
  }): Promise<RecordedEvent[]>;
  /** Where a poller that only cares about what commits from now on starts. */
  committedHead(): Promise<Checkpoint>;
}
