/**
 * Ingest of the full public corpora from their bulk layout on disk (see layout.ts), into
 * the same case store as `ingestCorpus`. Built for 17M rows on a small machine:
 *
 * - streaming: a partition at a time, a parquet file by row ranges and a JSON directory
 *   by chunks of files; at most one chunk of rows is in memory;
 * - resumable: the stored rows are the checkpoint (bulk-store.ts). A chunk whose refs are
 *   all stored is skipped unread, so a re-run after a kill picks up at the first chunk not
 *   committed, and a finished run re-run reads footers and directory listings only.
 *   `rescan` reads everything again (the content hash still skips unchanged rows);
 * - observable: a first pass counts files and rows (parquet footers, directory entries),
 *   then progress reports files and rows done of those totals after every chunk;
 * - stoppable: an AbortSignal ends the run between chunks, leaving nothing half written.
 *
 * Nothing in a file stops the run: an unreadable file, row or name becomes a rejection
 * with its reason.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { rejected, type MapResult } from '../../domain/case/case-record.ts';
import type { Db } from '../../db/database.ts';
import type { Rejection } from '../ingest.ts';
import { storeChunk, storedRefs } from './bulk-store.ts';
import { HC_BULK_SOURCE, HC_PARQUET_COLUMNS, hcRowFromJson, loadHcReference, mapHcBulkRow, type HcReference } from './hc-judgments.ts';
import { highCourtLayout, printable, safeFileName, supremeCourtLayout, type LayoutEntry, type Partition } from './layout.ts';
import { openParquet } from './parquet-file.ts';
import { mapScBulkRow, SC_BULK_SOURCE, SC_PARQUET_COLUMNS } from './sc-judgments.ts';
import type { Row } from './fields.ts';

/** The folders `aws s3 sync s3://<bucket>/metadata <root>/<bucket>/metadata` creates. */
export const HC_BUCKET = 'indian-high-court-judgments';
export const SC_BUCKET = 'indian-supreme-court-judgments';

/** Rows per transaction: 500 x 26 columns stays far below Postgres' 65,535 parameters. */
const CHUNK_ROWS = 500;
/** A judgment's metadata JSON is a few kilobytes; a larger file is refused unread. */
const MAX_JSON_BYTES = 1024 * 1024;
const REJECTION_SAMPLE = 100;

export interface BulkProgress {
  source: string;
  filesDone: number;
  filesTotal: number;
  rowsDone: number;
  rowsTotal: number;
  done: boolean;
}

export interface BulkSourceReport {
  source: string;
  root: string;
  filesTotal: number;
  filesDone: number;
  rowsTotal: number;
  rowsDone: number;
  /** Rows skipped because an earlier run stored them. */
  rowsResumed: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  /** Set when the dataset was not read (folder missing, reference data unreadable). */
  skipped?: string;
}

export interface BulkIngestReport {
  root: string;
  startedAt: string;
  durationMs: number;
  /** True when the signal stopped the run before the end. */
  interrupted: boolean;
  sources: BulkSourceReport[];
  /** The first rejections of this run (all are in ingest_rejections). */
  rejectionSample: Rejection[];
}

export interface BulkIngestOptions {
  db: Db;
  /** Folder holding `indian-high-court-judgments/` and/or `indian-supreme-court-judgments/`. */
  root: string;
  /** The hc-courts-reference folder (court-codes.json, bench-codes.json). */
  referenceDir: string;
  now: () => Date;
  onProgress?: (progress: BulkProgress) => void;
  signal?: AbortSignal;
  rescan?: boolean;
}

interface Dataset {
  source: string;
  bucket: string;
  columns: readonly string[];
  layout(root: string): AsyncGenerator<LayoutEntry>;
  prepare(referenceDir: string): Promise<(ref: string, row: Row, partition: Partition, layer: 'parquet' | 'json') => MapResult>;
}

const DATASETS: readonly Dataset[] = [
  {
    source: SC_BULK_SOURCE,
    bucket: SC_BUCKET,
    columns: SC_PARQUET_COLUMNS,
    layout: supremeCourtLayout,
    prepare: async () => (ref, row, partition) => mapScBulkRow(ref, row, partition),
  },
  {
    source: HC_BULK_SOURCE,
    bucket: HC_BUCKET,
    columns: HC_PARQUET_COLUMNS,
    layout: highCourtLayout,
    prepare: async (referenceDir) => {
      const reference: HcReference = await loadHcReference(referenceDir);
      return (ref, row, partition, layer) => mapHcBulkRow(ref, row, partition, reference, layer);
    },
  },
];

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Names in a JSON partition that are rows: every `*.json` entry, in name order. */
async function jsonNames(dir: string): Promise<{ name: string; regular: boolean }[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.name.endsWith('.json'))
    .map((e) => ({ name: e.name, regular: e.isFile() && !e.isSymbolicLink() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One JSON file to a row, or the reason it is not one. Never follows a link, never reads past the cap. */
async function readJsonRow(path: string): Promise<{ row: Row } | { error: string }> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    return { error: `cannot open: ${message(error)}` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { error: 'not a regular file' };
    if (stats.size > MAX_JSON_BYTES) return { error: `file is ${stats.size} bytes (a metadata record is at most ${MAX_JSON_BYTES})` };
    const bytes = await handle.readFile();
    let body: string;
    try {
      body = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return { error: 'not UTF-8 text' };
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      return { error: `unparseable JSON: ${message(error)}` };
    }
    return hcRowFromJson(json);
  } finally {
    await handle.close();
  }
}

interface Totals {
  files: number;
  rows: number;
  entries: { entry: LayoutEntry; rows: number }[];
}

/** First pass: the partitions and how many files and rows they hold. */
async function count(dataset: Dataset, root: string, signal: AbortSignal | undefined): Promise<Totals> {
  const totals: Totals = { files: 0, rows: 0, entries: [] };
  for await (const entry of dataset.layout(root)) {
    if (signal?.aborted) break;
    let files = 1;
    let rows = 1;
    if (entry.kind === 'parquet') {
      try {
        const file = await openParquet(join(root, entry.rel));
        rows = file.rows;
        await file.close();
      } catch {
        rows = 0;
      }
    } else if (entry.kind === 'json-dir') {
      files = (await jsonNames(join(root, entry.rel)).catch(() => [])).length;
      rows = files;
    }
    totals.files += files;
    totals.rows += rows;
    totals.entries.push({ entry, rows });
  }
  return totals;
}

class DatasetRun {
  readonly report: BulkSourceReport;

  constructor(
    private readonly options: BulkIngestOptions,
    private readonly dataset: Dataset,
    private readonly root: string,
    private readonly map: (ref: string, row: Row, partition: Partition, layer: 'parquet' | 'json') => MapResult,
    private readonly sample: Rejection[],
  ) {
    this.report = emptyReport(dataset.source, root);
  }

  private get stopped(): boolean {
    return this.options.signal?.aborted === true;
  }

  private progress(done: boolean): void {
    const r = this.report;
    this.options.onProgress?.({
      source: r.source,
      filesDone: r.filesDone,
      filesTotal: r.filesTotal,
      rowsDone: r.rowsDone,
      rowsTotal: r.rowsTotal,
      done,
    });
  }

  private async done(refs: readonly string[]): Promise<Set<string>> {
    return this.options.rescan ? new Set() : storedRefs(this.options.db, this.dataset.source, refs);
  }

  private async store(results: MapResult[]): Promise<void> {
    if (results.length === 0) return;
    const counts = await storeChunk(this.options.db, this.dataset.source, results, this.options.now());
    this.report.inserted += counts.inserted;
    this.report.updated += counts.updated;
    this.report.unchanged += counts.unchanged;
    this.report.rejected += counts.rejected.length;
    this.sample.push(...counts.rejected.slice(0, Math.max(0, REJECTION_SAMPLE - this.sample.length)));
  }

  /** A chunk of `n` rows finished: `resumed` of them were stored before this run. */
  private advance(rows: number, resumed: number): void {
    this.report.rowsDone += rows;
    this.report.rowsResumed += resumed;
    this.progress(false);
  }

  async run(): Promise<void> {
    const totals = await count(this.dataset, this.root, this.options.signal);
    this.report.filesTotal = totals.files;
    this.report.rowsTotal = totals.rows;
    this.progress(false);
    for (const { entry, rows } of totals.entries) {
      if (this.stopped) return;
      if (entry.kind === 'issue') await this.issue(entry.rel, entry.reason);
      else if (entry.kind === 'parquet') await this.parquet(entry.rel, entry.partition, rows);
      else await this.jsonDir(entry.rel, entry.partition);
    }
    if (!this.stopped) this.progress(true);
  }

  private async issue(ref: string, reason: string): Promise<void> {
    const resumed = (await this.done([ref])).size;
    if (resumed === 0) await this.store([rejected(ref, reason)]);
    this.report.filesDone += 1;
    this.advance(1, resumed);
  }

  private async parquet(rel: string, partition: Partition, plannedRows: number): Promise<void> {
    if ((await this.done([rel])).size > 0) {
      this.report.filesDone += 1;
      this.advance(plannedRows, plannedRows);
      return;
    }
    let file;
    try {
      file = await openParquet(join(this.root, rel));
    } catch (error) {
      await this.store([rejected(rel, `unreadable parquet file: ${message(error)}`)]);
      this.report.filesDone += 1;
      this.advance(plannedRows, 0);
      return;
    }
    try {
      for (let start = 0; start < file.rows; start += CHUNK_ROWS) {
        if (this.stopped) return;
        const end = Math.min(file.rows, start + CHUNK_ROWS);
        const refs = Array.from({ length: end - start }, (_, i) => `${rel}#R${start + i + 1}`);
        const stored = await this.done(refs);
        if (stored.size < refs.length) {
          let rows: Row[] | null = null;
          let failure = '';
          try {
            rows = await file.read(start, end, this.dataset.columns);
          } catch (error) {
            failure = message(error);
          }
          const results = refs.flatMap((ref, i): MapResult[] => {
            if (stored.has(ref)) return [];
            const row = rows?.[i];
            return [
              row === undefined
                ? rejected(ref, `unreadable rows ${start + 1}-${end}: ${failure || 'row missing'}`)
                : this.map(ref, row, partition, 'parquet'),
            ];
          });
          await this.store(results);
        }
        this.advance(refs.length, stored.size);
      }
      this.report.filesDone += 1;
      this.progress(false);
    } finally {
      await file.close();
    }
  }

  private async jsonDir(rel: string, partition: Partition): Promise<void> {
    const names = await jsonNames(join(this.root, rel)).catch(() => []);
    for (let start = 0; start < names.length; start += CHUNK_ROWS) {
      if (this.stopped) return;
      const chunk = names.slice(start, start + CHUNK_ROWS).map((n) => ({ ...n, ref: `${rel}/${printable(n.name)}` }));
      const stored = await this.done(chunk.map((c) => c.ref));
      const results: MapResult[] = [];
      for (const { name, regular, ref } of chunk) {
        if (stored.has(ref)) continue;
        if (!safeFileName(name)) {
          results.push(rejected(ref, 'file name has characters other than letters, digits, "_", "." and "-"'));
        } else if (!regular) {
          results.push(rejected(ref, 'not a regular file (symbolic links are not followed)'));
        } else {
          const read = await readJsonRow(join(this.root, rel, name));
          results.push('error' in read ? rejected(ref, read.error) : this.map(ref, read.row, partition, 'json'));
        }
      }
      await this.store(results);
      this.report.filesDone += chunk.length;
      this.advance(chunk.length, stored.size);
    }
  }
}

export async function ingestBulkCorpus(options: BulkIngestOptions): Promise<BulkIngestReport> {
  const started = options.now();
  const sample: Rejection[] = [];
  const report: BulkIngestReport = {
    root: options.root,
    startedAt: started.toISOString(),
    durationMs: 0,
    interrupted: false,
    sources: [],
    rejectionSample: sample,
  };
  for (const dataset of DATASETS) {
    if (options.signal?.aborted) break;
    const root = join(options.root, dataset.bucket);
    let map;
    try {
      map = await dataset.prepare(options.referenceDir);
    } catch (error) {
      report.sources.push({ ...emptyReport(dataset.source, root), skipped: `reference data unreadable: ${message(error)}` });
      continue;
    }
    const run = new DatasetRun(options, dataset, root, map, sample);
    report.sources.push(run.report);
    await run.run();
    if (run.report.filesTotal === 0) run.report.skipped = `no bulk layout found under ${root}`;
  }
  report.interrupted = options.signal?.aborted === true;
  report.durationMs = options.now().getTime() - started.getTime();
  return report;
}

function emptyReport(source: string, root: string): BulkSourceReport {
  return {
    source,
    root,
    filesTotal: 0,
    filesDone: 0,
    rowsTotal: 0,
    rowsDone: 0,
    rowsResumed: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    rejected: 0,
  };
}
