/**
 * Crypto-shredding's two contracts. `SubjectKeys` holds one data key per data subject (a
 * person) outside the event log; deleting it is what erases them. `PersonalDataSealer` is
 * what the event store calls: it seals a new event's personal fields under the subject's
 * key before the append and opens them after a read, reading a field whose key is gone as
 * null. Both take the caller's transaction, so a key is made in the commit that first uses
 * it and shredded in the commit that records the erasure.
 */
import type { NewEvent, RecordedEvent } from './event-store.ts';

/** What an erasure did to the stores (no personal data in it). */
export interface ErasureOutcome {
  /** A key existed and is gone now (false: the subject never had sealed fields, or was erased before). */
  readonly keyShredded: boolean;
  /** Events written before fields were sealed, whose personal fields were blanked in place. */
  readonly plaintextEventsRedacted: number;
}

export interface SubjectKeys<Tx> {
  /** The subject's key, made on first use; 'shredded' once the subject is erased (nothing may be sealed for them again). */
  obtain(subjectId: string, trx: Tx): Promise<Uint8Array | 'shredded'>;
  /** The keys of these subjects that still exist; erased and unknown subjects are absent. */
  find(subjectIds: readonly string[], trx?: Tx): Promise<ReadonlyMap<string, Uint8Array>>;
  /**
   * Erases a subject: deletes their key for good, and blanks the personal fields of theirs
   * in the events of `streamIds` written in plaintext before sealing existed (migration 0018).
   */
  erase(subject: { readonly subjectId: string; readonly streamIds: readonly string[] }, at: Date, trx: Tx): Promise<ErasureOutcome>;
}

export interface PersonalDataSealer<Tx> {
  seal(events: readonly NewEvent[], trx: Tx): Promise<NewEvent[]>;
  open(events: readonly RecordedEvent[], trx?: Tx): Promise<RecordedEvent[]>;
}

/** A subject is erased: an append would have had to seal their data under a key that no longer exists. */
export class SubjectErasedError extends Error {
  constructor(readonly subjectId: string) {
    super(`subject ${subjectId} is erased: no personal data may be recorded for them`);
    this.name = 'SubjectErasedError';
  }
}
