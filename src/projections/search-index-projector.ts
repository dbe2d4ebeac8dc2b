/**
 * Keeps the search index in step with the case store. Cases are not event-sourced, so
 * every insert and update of a `cases` row is stamped by a trigger with its writing
 * transaction (`change_xid`) and a sequence (`change_seq`); this projector follows that
 * feed like the event projector follows events: it reads only rows whose transaction is
 * below `pg_snapshot_xmin(pg_current_snapshot())`, ordered by (change_xid, change_seq),
 * after its checkpoint, so a row committed late is never skipped. Each batch is mapped
 * to SearchDocuments, upserted (durable on return), and only then is the checkpoint saved
 * in `projector_checkpoints`: a crash in between repeats the batch, and upserts are
 * idempotent; each backend has its own checkpoint, and `rebuild()` starts one over. The
 * index is written outside any transaction (PGlite has one session), so on PostgreSQL a
 * session advisory lock on a reserved connection keeps a second instance from
 * interleaving stale batches; PGlite is single-process, and runs are serialised here.
 */
import type { Db } from '../db/database.ts';
import type { DatabaseKind } from '../db/open.ts';
import { decodeEntities } from '../corpus/source-text.ts';
import type { ReindexableSearchIndex, SearchDocument, SearchIndex } from '../ports/search-index.ts';
import { START, type Checkpoint } from '../ports/event-store.ts';
import { PeriodicTask } from '../scheduling/periodic-task.ts';
import { caseChangesPending, exclusively, holding, readCaseChanges, type CaseRow } from './case-change-feed.ts';

function isReindexable(index: SearchIndex): index is ReindexableSearchIndex {
  return 'createShadow' in index && 'swapIn' in index;
}

/** One checkpoint per index: switching to Meilisearch, or to another index uid, starts that index from zero. */
export function searchIndexProjectorName(index: SearchIndex): string {
  return `search-index:${index.checkpointKey}`;
}

function names(parties: unknown): string[] {
  if (!Array.isArray(parties)) return [];
  return parties
    .map((p: unknown) => (typeof p === 'object' && p !== null && 'name' in p && typeof p.name === 'string' ? decodeEntities(p.name) : ''))
    .filter((n) => n !== '');
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function decoded(value: string | null): string | null {
  return value === null ? null : decodeEntities(value);
}

/** The one mapping from a stored case row to what the index holds. */
export function caseRowToSearchDocument(row: CaseRow): SearchDocument {
  const extra = row.extra;
  const cnr = typeof extra === 'object' && extra !== null && 'cnr' in extra && typeof extra.cnr === 'string' ? extra.cnr : null;
  return {
    caseId: row.caseId,
    caseNumber: row.caseNumber,
    caseNumberNormalised: row.caseNumberNormalised,
    cnr,
    courtCode: row.courtCode,
    courtName: row.courtName,
    caseType: row.caseType,
    title: decoded(row.title),
    petitioners: names(row.petitioners),
    respondents: names(row.respondents),
    judges: strings(row.judges),
    decisionDate: row.decisionDate,
    decisionYear: row.decisionYear,
    summary: decoded(row.summary),
    text: decoded(row.text),
    withheld: row.restricted,
  };
}

export interface SearchIndexProjectorOptions {
  readonly kind: DatabaseKind;
  readonly now: () => Date;
  readonly batchSize?: number;
  readonly idleMs?: number;
  readonly onError?: (error: unknown) => void;
}

export class SearchIndexProjector {
  readonly #task: PeriodicTask;
  #serial: Promise<unknown> = Promise.resolve();
  readonly #name: string;

  constructor(
    private readonly db: Db,
    private readonly index: SearchIndex,
    private readonly options: SearchIndexProjectorOptions,
  ) {
    this.#name = searchIndexProjectorName(index);
    this.#task = new PeriodicTask(
      async () => {
        if (!(await caseChangesPending(this.db, this.#name))) return;
        while (this.#task.active && (await this.runOnce()) > 0);
      },
      { intervalMs: options.idleMs ?? 250, onError: (error) => options.onError?.(error) },
    );
  }

  /** Projects at most one batch; returns how many case rows it read (0 when caught up). */
  runOnce(): Promise<number> {
    const run = this.#serial.then(() => this.#exclusive());
    this.#serial = run.catch(() => undefined);
    return run;
  }

  /** Projects batches until every committed change is in the index. */
  async catchUp(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  /** Forgets the checkpoint and re-projects every case (an index emptied or replaced). */
  async rebuild(): Promise<number> {
    await this.db.deleteFrom('projectorCheckpoints').where('projector', '=', this.#name).execute();
    return this.catchUp();
  }

  start(): void {
    this.#task.start();
  }

  stop(): Promise<void> {
    return this.#task.stop();
  }

  #exclusive(): Promise<number> {
    return exclusively(this.db, this.options.kind, this.#name, async () => {
      const after = await this.#checkpoint();
      const last = await this.#project(this.index, after);
      if (!last) return 0;
      await this.#save(last.checkpoint);
      return last.rows;
    });
  }

  /**
   * Rebuilds the index in full without taking it offline: every case is projected into a
   * shadow while the live index keeps serving (and keeps being projected), then, holding
   * this projector's lock so no batch lands in between, the shadow catches up with the
   * feed, is swapped in, and its position becomes this projector's checkpoint. A crash
   * before the swap leaves the live index as it was; the next reindex starts a new shadow.
   */
  async reindex(): Promise<number> {
    const live = this.index;
    if (!isReindexable(live)) throw new Error(`the ${live.name} index is kept by the case store and has nothing to swap`);
    const shadow = await live.createShadow();
    let position: Checkpoint = START;
    let total = 0;
    const fill = async (): Promise<void> => {
      for (let last = await this.#project(shadow, position); last; last = await this.#project(shadow, position)) {
        position = last.checkpoint;
        total += last.rows;
      }
    };
    await fill();
    const handOver = this.#serial.then(() =>
      holding(this.db, this.options.kind, this.#name, async () => {
        await fill();
        await live.swapIn(shadow);
        await this.#save(position);
      }),
    );
    this.#serial = handOver.catch(() => undefined);
    await handOver;
    return total;
  }

  /** Projects the next batch after `after` into `index`; the batch's end, or undefined when caught up. */
  async #project(index: SearchIndex, after: Checkpoint): Promise<{ checkpoint: Checkpoint; rows: number } | undefined> {
    const rows = await readCaseChanges(this.db, after, this.options.batchSize ?? index.writeBatchSize);
    const last = rows[rows.length - 1];
    if (!last) return undefined;
    await index.upsert(rows.map(caseRowToSearchDocument));
    return { checkpoint: { transactionId: last.changeXid, globalPosition: last.changeSeq }, rows: rows.length };
  }

  async #checkpoint(): Promise<Checkpoint> {
    const row = await this.db
      .selectFrom('projectorCheckpoints')
      .select(['transactionId', 'globalPosition'])
      .where('projector', '=', this.#name)
      .executeTakeFirst();
    return row ?? START;
  }

  async #save(checkpoint: Checkpoint): Promise<void> {
    const updatedAt = this.options.now();
    await this.db
      .insertInto('projectorCheckpoints')
      .values({ projector: this.#name, ...checkpoint, updatedAt })
      .onConflict((oc) => oc.column('projector').doUpdateSet({ ...checkpoint, updatedAt }))
      .execute();
  }
}
