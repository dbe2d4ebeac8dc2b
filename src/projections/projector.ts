/**
 * Async projector runner. Reads committed events through the event store port, in an
 * order that never skips a late commit, inside its own transaction: each batch and its
 * checkpoint are saved in that one transaction, so a crash resumes from the last checkpoint.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.ts';
import { START, type Checkpoint, type CommittedOfTypes, type EventStore, type RecordedEvent } from '../ports/event-store.ts';
import { PeriodicTask } from '../scheduling/periodic-task.ts';

export interface AsyncProjection {
  readonly name: string;
  /** Event types it wants; omitted means all. The checkpoint advances past the rest. */
  readonly handles?: readonly string[];
  apply(events: readonly RecordedEvent[], trx: Trx): Promise<void>;
  /** Clears the read model before a rebuild from position zero. */
  reset(trx: Trx): Promise<void>;
}

const DEFAULT_BATCH_SIZE = 500;

export class ProjectorRunner {
  readonly #task: PeriodicTask;
  /**
   * Where this runner's last committed batch left the checkpoint. Another instance's batches
   * only move it on, so nothing before it is new; a rebuild elsewhere moves it back, but
   * then carries those events itself.
   */
  #seen: Checkpoint | undefined;

  constructor(
    private readonly db: Db,
    private readonly events: EventStore<Trx>,
    private readonly projection: AsyncProjection,
    private readonly options: { batchSize?: number; idleMs?: number; now: () => Date; onError?: (error: unknown) => void },
  ) {
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    // A batch short of the limit has read all that was committed: the next waits idleMs, so a
    // steady stream of events (an audit event per keyed request) is carried a few times a second
    // in large batches rather than by a loop of tiny ones that competes with the requests.
    this.#task = new PeriodicTask(
      async () => {
        // A caught-up poll costs one statement instead of a batch's transaction, lock and reads.
        if (this.#seen && (await this.events.countCommittedAfter(this.#seen, 1)) === 0) return;
        while (this.#task.active && (await this.runOnce()) >= batchSize);
      },
      { intervalMs: options.idleMs ?? 250, onError: (error) => options.onError?.(error) },
    );
  }

  /** Applies at most one batch; returns how many events it read (0 when caught up). */
  async runOnce(): Promise<number> {
    const ran = await this.db.transaction().execute(async (trx) => {
      // One runner per projector at a time, across processes: a second one waits here.
      await sql`select pg_advisory_xact_lock(hashtext(${this.projection.name}))`.execute(trx);
      const checkpoint = await this.#checkpoint(trx);
      const { events, through, scanned } = await this.#read(checkpoint, trx);
      if (!through) return { read: 0, at: checkpoint };
      if (events.length > 0) await this.projection.apply(events, trx);
      await this.#save(trx, through);
      return { read: scanned, at: through };
    });
    this.#seen = ran.at;
    return ran.read;
  }

  /** The next batch: of the projection's event types only when it names them (the rest never leave the database). */
  async #read(after: Checkpoint, trx: Trx): Promise<CommittedOfTypes> {
    const limit = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    const wanted = this.projection.handles;
    if (wanted) return this.events.readCommittedOfTypes(after, limit, wanted, trx);
    const events = await this.events.readCommittedAfter(after, limit, trx);
    const last = events[events.length - 1];
    return {
      events,
      through: last ? { transactionId: last.transactionId, globalPosition: last.globalPosition } : null,
      scanned: events.length,
    };
  }

  /** Applies batches until nothing committed is left unread. */
  async catchUp(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  /** Clears the read model and the checkpoint, then replays every event. */
  async rebuild(): Promise<number> {
    await this.db.transaction().execute(async (trx) => {
      await this.projection.reset(trx);
      await trx.deleteFrom('projectorCheckpoints').where('projector', '=', this.projection.name).execute();
    });
    return this.catchUp();
  }

  start(): void {
    this.#task.start();
  }

  stop(): Promise<void> {
    return this.#task.stop();
  }

  async #checkpoint(trx: Trx): Promise<Checkpoint> {
    const row = await trx
      .selectFrom('projectorCheckpoints')
      .select(['transactionId', 'globalPosition'])
      .where('projector', '=', this.projection.name)
      .executeTakeFirst();
    return row ?? START;
  }

  async #save(trx: Trx, checkpoint: Checkpoint): Promise<void> {
    const updatedAt = this.options.now();
    await trx
      .insertInto('projectorCheckpoints')
      .values({ projector: this.projection.name, ...checkpoint, updatedAt })
      .onConflict((oc) => oc.column('projector').doUpdateSet({ ...checkpoint, updatedAt }))
      .execute();
  }
}
