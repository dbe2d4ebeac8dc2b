/**
 * The event store port. Streams are appended with an expected version (optimistic
 * concurrency); a mismatch is a typed conflict, never a silent overwrite. Events carry
 * type, schema version, data and metadata, and get a global position when recorded.
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
