/**
 * Writes the bulk datasets into the same `cases` and `ingest_rejections` tables as the
 * small corpus, one chunk of rows per transaction. Every row read leaves exactly one trace
 * keyed by its `sourceRef` (a case, or a rejection with its reason), written in the chunk's
 * transaction, so what is stored is the checkpoint: a row whose ref is stored is done, and
 * a run killed anywhere resumes after the last committed chunk without a marker table.
 *
 * A case id already stored from another row (another source or another ref) is rejected
 * as a duplicate, which keeps "first wins" across runs and files without holding every id
 * of 17M rows in memory. Unchanged rows (same content hash) are not rewritten, as in
 * `ingestCorpus`.
 */
import type { CaseRecord, MapResult } from '../../domain/case/case-record.ts';
import type { Db } from '../../db/database.ts';
import { contentHash, upsertCases, type Rejection } from '../ingest.ts';

export interface ChunkCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: Rejection[];
}

/** Refs (of `refs`) that already left a case or a rejection of this source. */
export async function storedRefs(db: Db, source: string, refs: readonly string[]): Promise<Set<string>> {
  if (refs.length === 0) return new Set();
  const [cases, rejections] = await Promise.all([
    db.selectFrom('cases').select('sourceRef').where('source', '=', source).where('sourceRef', 'in', refs).execute(),
    db.selectFrom('ingestRejections').select('sourceRef').where('source', '=', source).where('sourceRef', 'in', refs).execute(),
  ]);
  return new Set([...cases, ...rejections].map((r) => r.sourceRef));
}

/**
 * Stores one chunk's results atomically. The old rejections of every ref in the chunk are
 * replaced, so a row read again (a rescan) never holds two.
 */
export async function storeChunk(db: Db, source: string, results: readonly MapResult[], now: Date): Promise<ChunkCounts> {
  const rejected: Rejection[] = [];
  const records: { record: CaseRecord; hash: string }[] = [];
  const refs: string[] = [];
  const inChunk = new Map<string, string>();
  for (const result of results) {
    if ('rejected' in result) {
      refs.push(result.rejected.sourceRef);
      rejected.push({ source, ...result.rejected });
      continue;
    }
    const record = result.ok;
    refs.push(record.sourceRef);
    const first = inChunk.get(record.caseId);
    if (first !== undefined) {
      rejected.push({
        source,
        sourceRef: record.sourceRef,
        reason: `duplicate case id ${record.caseId}, first produced by ${source} ${first}`,
      });
      continue;
    }
    inChunk.set(record.caseId, record.sourceRef);
    records.push({ record, hash: contentHash(record) });
  }
  return db.transaction().execute(async (trx) => {
    const stored =
      records.length === 0
        ? []
        : await trx
            .selectFrom('cases')
            .select(['caseId', 'contentHash', 'source', 'sourceRef'])
            .where(
              'caseId',
              'in',
              records.map((r) => r.record.caseId),
            )
            .execute();
    const byId = new Map(stored.map((s) => [s.caseId, s]));
    const changed: { record: CaseRecord; hash: string }[] = [];
    let updated = 0;
    let unchanged = 0;
    for (const r of records) {
      const s = byId.get(r.record.caseId);
      if (s !== undefined && (s.source !== source || s.sourceRef !== r.record.sourceRef)) {
        rejected.push({
          source,
          sourceRef: r.record.sourceRef,
          reason: `duplicate case id ${r.record.caseId}, first produced by ${s.source} ${s.sourceRef}`,
        });
      } else if (s?.contentHash === r.hash) {
        unchanged += 1;
      } else {
        if (s !== undefined) updated += 1;
        changed.push(r);
      }
    }
    await upsertCases(trx, changed, now);
    if (refs.length > 0) await trx.deleteFrom('ingestRejections').where('source', '=', source).where('sourceRef', 'in', refs).execute();
    if (rejected.length > 0)
      await trx
        .insertInto('ingestRejections')
        .values(rejected.map((r) => ({ ...r, recordedAt: now })))
        .execute();
    return { inserted: changed.length - updated, updated, unchanged, rejected };
  });
}
