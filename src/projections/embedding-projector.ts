/**
 * Keeps the vector index (case_chunks) in step with the case store, following the same
 * `cases` change feed as the search-index projector: rows whose writing transaction is
 * below `pg_snapshot_xmin(pg_current_snapshot())`, in (change_xid, change_seq) order,
 * after a checkpoint, so a late commit is never skipped. Here the index lives in the same
 * database, so a batch's chunks and its checkpoint are written in one transaction: a crash
 * repeats nothing and loses nothing.
 *
 * What is embedded: the analysed subset. No AI analysis exists yet, so until it does the
 * subset is the cases with a judgment text or a summary (the Supreme Court full-text
 * judgments); when analyses land, `embeddable` widens to the analysed cases. A case whose
 * chunks are unchanged (same model, same input hashes) is updated in place, so a
 * restriction or a new bench spelling costs no embedding; a changed text, or a new model,
 * re-embeds the case. The checkpoint is per model, so configuring another model walks the
 * whole feed again and replaces every case's rows, each row naming its model meanwhile.
 */
import { createHash } from 'node:crypto';
import type { Database, Db, Trx } from '../db/database.ts';
import type { DatabaseKind } from '../db/open.ts';
import { chunkCase, USE_LITE_CHUNKING, type ChunkingOptions } from '../domain/semantic/chunking.ts';
import type { Embedder } from '../ports/embedder.ts';
import type { SearchDocument } from '../ports/search-index.ts';
import type { Checkpoint } from '../ports/event-store.ts';
import { PeriodicTask } from '../scheduling/periodic-task.ts';
import { caseChangesPending, exclusively, readCaseChanges } from './case-change-feed.ts';
import { caseRowToSearchDocument } from './search-index-projector.ts';

type ChunkRow = Database['caseChunks'];

export interface EmbeddingProgress {
  /** Case rows read from the feed. */
  readonly read: number;
  /** Cases whose chunks were embedded (new text or new model). */
  readonly embedded: number;
  /** Cases whose chunks only had their filter columns or withheld flag rewritten. */
  readonly updated: number;
  /** Cases that left the subset (no text, no summary) and lost their chunks. */
  readonly removed: number;
  readonly chunks: number;
}

export interface EmbeddingProjectorOptions {
  readonly kind: DatabaseKind;
  readonly now: () => Date;
  /** Case rows a batch reads (each may give up to `chunking.maxChunks` chunks to embed). */
  readonly batchSize?: number;
  readonly idleMs?: number;
  readonly chunking?: ChunkingOptions;
  readonly onProgress?: (progress: EmbeddingProgress) => void;
  readonly onError?: (error: unknown) => void;
}

export function embeddingProjectorName(embedder: Embedder): string {
  return `embeddings:${embedder.model}`;
}

/** The subset that is embedded (see the module header). */
export function embeddable(doc: SearchDocument): boolean {
  return (doc.text ?? '').trim() !== '' || (doc.summary ?? '').trim() !== '';
}

function hash(model: string, content: string): string {
  return createHash('sha256').update(model).update('\n').update(content).digest('base64url');
}

/** The columns copied from the case so filters run inside the index scan. */
function filterColumns(
  doc: SearchDocument,
): Pick<ChunkRow, 'courtCode' | 'caseType' | 'judges' | 'decisionYear' | 'decisionDate' | 'caseNumberKey' | 'withheld'> {
  return {
    courtCode: doc.courtCode,
    caseType: doc.caseType,
    judges: [...doc.judges],
    decisionYear: doc.decisionYear,
    decisionDate: doc.decisionDate,
    caseNumberKey: doc.caseNumberNormalised,
    withheld: doc.withheld,
  };
}

interface Planned {
  readonly doc: SearchDocument;
  readonly chunks: readonly { chunkNo: number; content: string; inputHash: string }[];
}

export class EmbeddingProjector {
  readonly #task: PeriodicTask;
  #serial: Promise<unknown> = Promise.resolve();
  #abort = new AbortController();
  #progress: EmbeddingProgress = { read: 0, embedded: 0, updated: 0, removed: 0, chunks: 0 };
  readonly #name: string;

  constructor(
    private readonly db: Db,
    private readonly embedder: Embedder,
    private readonly options: EmbeddingProjectorOptions,
  ) {
    this.#name = embeddingProjectorName(embedder);
    this.#task = new PeriodicTask(
      async () => {
        if (!(await caseChangesPending(this.db, this.#name))) return;
        // Checked between batches, so an embedder that ignores the abort signal still stops.
        while (this.#task.active && (await this.runOnce()) > 0);
      },
      { intervalMs: options.idleMs ?? 1000, onError: (error) => this.#task.active && options.onError?.(error) },
    );
  }

  /** Counts since this projector was made. */
  get progress(): EmbeddingProgress {
    return this.#progress;
  }

  /** Projects at most one batch; returns how many case rows it read (0 when caught up). */
  runOnce(): Promise<number> {
    const run = this.#serial.then(() => this.#exclusive());
    this.#serial = run.catch(() => undefined);
    return run;
  }

  async catchUp(): Promise<number> {
    let total = 0;
    for (let n = await this.runOnce(); n > 0; n = await this.runOnce()) total += n;
    return total;
  }

  start(): void {
    if (this.#task.active) return;
    this.#abort = new AbortController();
    this.#task.start();
  }

  /** Stops after the current embedding call; an unfinished batch is redone on the next start. */
  async stop(): Promise<void> {
    const stopped = this.#task.stop();
    this.#abort.abort(new Error('embedding projector stopped'));
    await stopped;
  }

  #exclusive(): Promise<number> {
    return exclusively(this.db, this.options.kind, this.#name, () => this.#batch());
  }

  async #batch(): Promise<number> {
    const after = await this.#checkpoint();
    const rows = await readCaseChanges(this.db, after, this.options.batchSize ?? 16);
    const last = rows[rows.length - 1];
    if (!last) return 0;

    const chunking = this.options.chunking ?? USE_LITE_CHUNKING;
    const model = this.embedder.model;
    const planned: Planned[] = rows.map((row) => {
      const doc = caseRowToSearchDocument(row);
      const chunks = embeddable(doc) ? chunkCase(doc, chunking) : [];
      return { doc, chunks: chunks.map((c) => ({ ...c, inputHash: hash(model, c.content) })) };
    });
    const stored = await this.#storedHashes(planned.map((p) => p.doc.caseId));
    const unchanged = (p: Planned): boolean =>
      p.chunks.length > 0 && stored.get(p.doc.caseId) === p.chunks.map((c) => `${model}:${c.inputHash}`).join(',');
    const toEmbed = planned.filter((p) => p.chunks.length > 0 && !unchanged(p));
    const vectors = await this.embedder.embed(
      toEmbed.flatMap((p) => p.chunks.map((c) => c.content)),
      this.#abort.signal,
    );

    await this.db.transaction().execute(async (trx) => {
      let v = 0;
      for (const p of planned) {
        if (unchanged(p)) {
          await trx.updateTable('caseChunks').set(filterColumns(p.doc)).where('caseId', '=', p.doc.caseId).execute();
          continue;
        }
        await trx.deleteFrom('caseChunks').where('caseId', '=', p.doc.caseId).execute();
        if (p.chunks.length === 0) continue;
        const values = p.chunks.map((c) => ({
          caseId: p.doc.caseId,
          chunkNo: c.chunkNo,
          model,
          inputHash: c.inputHash,
          embedding: `[${(vectors[v++] ?? []).join(',')}]`,
          ...filterColumns(p.doc),
        }));
        await trx.insertInto('caseChunks').values(values).execute();
      }
      await this.#save(trx, { transactionId: last.changeXid, globalPosition: last.changeSeq });
    });

    const had = (p: Planned): boolean => stored.has(p.doc.caseId);
    this.#progress = {
      read: this.#progress.read + rows.length,
      embedded: this.#progress.embedded + toEmbed.length,
      updated: this.#progress.updated + planned.filter(unchanged).length,
      removed: this.#progress.removed + planned.filter((p) => p.chunks.length === 0 && had(p)).length,
      chunks: this.#progress.chunks + vectors.length,
    };
    this.options.onProgress?.(this.#progress);
    return rows.length;
  }

  /** Per case, "model:hash" of each stored chunk in chunk order, joined by commas. */
  async #storedHashes(caseIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('caseChunks')
      .select(['caseId', 'model', 'inputHash'])
      .where('caseId', 'in', caseIds)
      .orderBy('caseId')
      .orderBy('chunkNo')
      .execute();
    const byCase = new Map<string, string[]>();
    for (const r of rows) byCase.set(r.caseId, [...(byCase.get(r.caseId) ?? []), `${r.model}:${r.inputHash}`]);
    return new Map([...byCase].map(([id, hashes]) => [id, hashes.join(',')]));
  }

  async #checkpoint(): Promise<Checkpoint> {
    const row = await this.db
      .selectFrom('projectorCheckpoints')
      .select(['transactionId', 'globalPosition'])
      .where('projector', '=', this.#name)
      .executeTakeFirst();
    return row ?? { transactionId: '0', globalPosition: 0 };
  }

  async #save(trx: Trx, checkpoint: Checkpoint): Promise<void> {
    const updatedAt = this.options.now();
    await trx
      .insertInto('projectorCheckpoints')
      .values({ projector: this.#name, ...checkpoint, updatedAt })
      .onConflict((oc) => oc.column('projector').doUpdateSet({ ...checkpoint, updatedAt }))
      .execute();
  }
}
