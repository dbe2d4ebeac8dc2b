/** An events table row as the event store's readers see it. */
import type { EventMetadata, RecordedEvent } from '../ports/event-store.ts';

export interface EventRow {
  readonly globalPosition: number;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly transactionId: string;
  readonly recordedAt: Date;
}

export function toRecorded(row: EventRow): RecordedEvent {
  return { ...row, metadata: row.metadata as EventMetadata, recordedAt: new Date(row.recordedAt) };
}
