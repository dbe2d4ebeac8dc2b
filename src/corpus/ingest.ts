/**
 * Loads the court datasets into `cases` and `ingest_rejections`. Idempotent: each record
 * is keyed by its case id and carries a SHA-256 of its content; a batch first reads the
 * stored hashes and writes only new or changed rows, so a re-run over the same files
 * writes nothing and `ingestedAt` moves only when content changed. `restricted` is ours,
 * not the source's, so an update never touches it. Rejections of a source are replaced
 * as a whole on each run. A missing dataset folder is reported, not fatal.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Insertable } from 'kysely';
import type { CaseRecord } from '../domain/case/case-record.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { yearOf } from '../domain/case/dates.ts';
import type { Database, Db, Trx } from '../db/database.ts';
import { jsonb } from '../db/jsonb.ts';
import { CORPUS_SOURCES, type CorpusSource } from './sources/index.ts';

/** 500 rows x 26 columns stays far below Postgres' 65,535 bind parameters. */
const BATCH_SIZE = 500;

export interface Rejection {
  source: string;
  sourceRef: string;
  reason: string;
}

export interface SourceReport {
  source: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Set when the source was not read (e.g. its folder is missing). */
  skipped?: string;
}

export interface IngestReport {
  corpusDir: string;
  startedAt: string;
  durationMs: number;
  sources: SourceReport[];
  rejections: Rejection[];
}

export interface IngestProgress {
  source: string;
  read: number;
  /** Non-blank lines in the source's row files; null when unknown. */
  total: number | null;
  done: boolean;
}

export interface IngestOptions {
  db: Db;
  corpusDir: string;
  now: () => Date;
  onProgress?: (progress: IngestProgress) => void;
  sources?: readonly CorpusSource[];
  /** Checked before each batch is written: an aborted ingest stops there, every batch before it stored. */
  signal?: AbortSignal | undefined;
}

export function contentHash(record: CaseRecord): string {
  // The restriction flag is ours, not content: canonicalJson drops the undefined key.
  return createHash('sha256')
    .update(canonicalJson({ ...record, restricted: undefined }))
    .digest('hex');
}

function toRow(record: CaseRecord, hash: string, ingestedAt: Date): Insertable<Database['cases']> {
  return {
    caseId: record.caseId,
    source: record.source,
    sourceRef: record.sourceRef,
    caseNumber: record.caseNumber,
    caseNumberNormalised: record.caseNumberNormalised,
    courtCode: record.court.code,
    courtName: record.court.name,
    courtLevel: record.court.level,
    bench: record.bench,
    caseType: record.caseType,
    title: record.title,
    petitioners: jsonb(record.parties.petitioners),
    respondents: jsonb(record.parties.respondents),
    judges: jsonb(record.judges),
    decisionDate: record.decisionDate,
    filingDate: record.filingDate,
    decisionYear: yearOf(record.decisionDate),
    citations: jsonb(record.citations),
    text: record.text,
    summary: record.summary,
    documentBearing: record.documentBearing,
    quirks: jsonb(record.quirks),
    extra: jsonb(record.extra),
    contentHash: hash,
    ingestedAt,
  };
}

/** Columns an update rewrites: all but the key and the restriction flag. */
const UPDATED_COLUMNS = [
  'source',
  'sourceRef',
  'caseNumber',
  'caseNumberNormalised',
  'courtCode',
  'courtName',
  'courtLevel',
  'bench',
  'caseType',
  'title',
  'petitioners',
  'respondents',
  'judges',
  'decisionDate',
  'filingDate',
  'decisionYear',
  'citations',
  'text',
  'summary',
  'documentBearing',
  'quirks',
  'extra',
  'contentHash',
  'ingestedAt',
] as const satisfies readonly (keyof Database['cases'])[];

/** Inserts new cases and rewrites changed ones (all columns but the key and the restriction flag). */
export async function upsertCases(trx: Trx, changed: readonly { record: CaseRecord; hash: string }[], ingestedAt: Date): Promise<void> {
  if (changed.length === 0) return;
  await trx
    .insertInto('cases')
    .values(changed.map((h) => toRow(h.record, h.hash, ingestedAt)))
    .onConflict((oc) =>
      oc.column('caseId').doUpdateSet((eb) => Object.fromEntries(UPDATED_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)]))),
    )
    .execute();
}

async function writeBatch(
  db: Db,
  batch: CaseRecord[],
  ingestedAt: Date,
): Promise<{ inserted: number; updated: number; unchanged: number }> {
  const hashed = batch.map((record) => ({ record, hash: contentHash(record) }));
  return db.transaction().execute(async (trx: Trx) => {
    const stored = await trx
      .selectFrom('cases')
      .select(['caseId', 'contentHash'])
      .where(
        'caseId',
        'in',
        hashed.map((h) => h.record.caseId),
      )
      .execute();
    const storedHash = new Map(stored.map((s) => [s.caseId, s.contentHash]));
    const changed = hashed.filter((h) => storedHash.get(h.record.caseId) !== h.hash);
    await upsertCases(trx, changed, ingestedAt);
    const updated = changed.filter((h) => storedHash.has(h.record.caseId)).length;
    return { inserted: changed.length - updated, updated, unchanged: hashed.length - changed.length };
  });
}

async function replaceRejections(db: Db, source: string, rejections: Rejection[], recordedAt: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('ingestRejections').where('source', '=', source).execute();
    for (let i = 0; i < rejections.length; i += BATCH_SIZE) {
      await trx
        .insertInto('ingestRejections')
        .values(rejections.slice(i, i + BATCH_SIZE).map((r) => ({ ...r, recordedAt })))
        .execute();
    }
  });
}

async function countLines(path: string): Promise<number> {
  let lines = 0;
  let lineHasText = false;
  for await (const chunk of createReadStream(path)) {
    for (const byte of chunk as Buffer) {
      if (byte === 0x0a) {
        if (lineHasText) lines += 1;
        lineHasText = false;
      } else if (byte !== 0x0d && byte !== 0x20 && byte !== 0x09) {
        lineHasText = true;
      }
    }
  }
  return lineHasText ? lines + 1 : lines;
}

async function totalRows(folderPath: string, source: CorpusSource): Promise<number | null> {
  try {
    let total = 0;
    for (const file of source.rowFiles) total += await countLines(join(folderPath, file));
    return total;
  } catch {
    return null;
  }
}

export async function ingestCorpus(options: IngestOptions): Promise<IngestReport> {
  const { db, corpusDir, now, onProgress } = options;
  const started = now();
  const report: IngestReport = { corpusDir, startedAt: started.toISOString(), durationMs: 0, sources: [], rejections: [] };
  // Case ids must be unique across sources; the first record with an id wins.
  const firstRefOf = new Map<string, string>();

  for (const source of options.sources ?? CORPUS_SOURCES) {
    const entry: SourceReport = { source: source.name, read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
    report.sources.push(entry);
    const folderPath = join(corpusDir, source.folder);
    if (!existsSync(folderPath)) {
      entry.skipped = `dataset folder not found: ${folderPath}`;
      continue;
    }
    const total = await totalRows(folderPath, source);
    const rejections: Rejection[] = [];
    let batch: CaseRecord[] = [];
    const flush = async () => {
      options.signal?.throwIfAborted();
      if (batch.length === 0) return;
      const counts = await writeBatch(db, batch, now());
      entry.inserted += counts.inserted;
      entry.updated += counts.updated;
      entry.unchanged += counts.unchanged;
      batch = [];
      onProgress?.({ source: source.name, read: entry.read, total, done: false });
    };

    for await (const result of source.read({ folderPath, corpusDir })) {
      entry.read += 1;
      if ('rejected' in result) {
        rejections.push({ source: source.name, ...result.rejected });
        continue;
      }
      const record = result.ok;
      const first = firstRefOf.get(record.caseId);
      if (first !== undefined) {
        rejections.push({
          source: source.name,
          sourceRef: record.sourceRef,
          reason: `duplicate case id ${record.caseId}, first produced by ${first}`,
        });
        continue;
      }
      firstRefOf.set(record.caseId, `${source.name} ${record.sourceRef}`);
      batch.push(record);
      if (batch.length >= BATCH_SIZE) await flush();
    }
    await flush();
    await replaceRejections(db, source.name, rejections, now());
    entry.rejected = rejections.length;
    report.rejections.push(...rejections);
    onProgress?.({ source: source.name, read: entry.read, total, done: true });
  }

  report.durationMs = now().getTime() - started.getTime();
  return report;
}
