/**
 * The on-disk layout of the two public bulk datasets, as `aws s3 sync` lays them down:
 *
 *   indian-high-court-judgments/metadata/parquet/year=YYYY/court=SS_CC/bench=NAME/metadata.parquet
 *   indian-high-court-judgments/metadata/json/year=YYYY/court=SS_CC/bench=NAME/<judgment>.json
 *   indian-supreme-court-judgments/metadata/parquet/year=YYYY/metadata.parquet
 *
 * (vanga/indian-high-court-judgments opendata/docs/dataset.md and src/utils/s3_utils.py
 * `upload_single_file_to_s3`; vanga/indian-supreme-court-judgments opendata/tutorials/README.md
 * and process_metadata.py `write_records_to_s3`.)
 *
 * The walk never leaves the root: it descends only into real directories whose names are
 * partition names (`year=`, `court=`, `bench=` with safe values), never follows a symbolic
 * link, and reports what it refused as an issue with a reason instead of stopping.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface Partition {
  year: number;
  /** Court as the path writes it (`27_1`); null for the Supreme Court. */
  court: string | null;
  bench: string | null;
}

export type LayoutEntry =
  | { kind: 'parquet'; rel: string; partition: Partition }
  | { kind: 'json-dir'; rel: string; partition: Partition }
  | { kind: 'issue'; rel: string; reason: string };

const YEAR = /^year=(\d{4})$/;
const COURT = /^court=(\d{1,3}_\d{1,3})$/;
const BENCH = /^bench=([A-Za-z0-9][\w.-]{0,99})$/;
const SAFE_NAME = /^[\w.-]+$/;
const MAX_NAME = 255;

const PARQUET_FILE = 'metadata.parquet';

/** A directory entry name as stored in a sourceRef: control characters escaped, so a name cannot forge a line. */
export function printable(name: string): string {
  return JSON.stringify(name).slice(1, -1);
}

/** Is this directory entry name one we may open: no control characters, no replacement characters, no slashes. */
export function safeFileName(name: string): boolean {
  return name.length <= MAX_NAME && SAFE_NAME.test(name) && name !== '.' && name !== '..';
}

interface Listing {
  names: Map<string, string>;
  issues: LayoutEntry[];
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Partition subdirectories of `dir` (value by entry name) and the entries refused. */
async function partitions(root: string, rel: string, pattern: RegExp, key: string): Promise<Listing> {
  const listing: Listing = { names: new Map(), issues: [] };
  let entries;
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch {
    return listing;
  }
  for (const entry of entries) {
    if (!entry.name.startsWith(`${key}=`)) continue;
    const entryRel = `${rel}/${printable(entry.name)}`;
    const value = pattern.exec(entry.name)?.[1];
    if (value === undefined) {
      listing.issues.push({ kind: 'issue', rel: entryRel, reason: `not a ${key} partition name` });
    } else if (entry.isSymbolicLink()) {
      listing.issues.push({ kind: 'issue', rel: entryRel, reason: 'symbolic link not followed' });
    } else if (entry.isDirectory()) {
      listing.names.set(entry.name, value);
    } else {
      listing.issues.push({ kind: 'issue', rel: entryRel, reason: 'not a directory' });
    }
  }
  return listing;
}

async function union(
  root: string,
  rels: string[],
  pattern: RegExp,
  key: string,
): Promise<{ names: [string, string][]; issues: LayoutEntry[] }> {
  const names = new Map<string, string>();
  const issues: LayoutEntry[] = [];
  for (const rel of rels) {
    const listing = await partitions(root, rel, pattern, key);
    for (const [name, value] of listing.names) names.set(name, value);
    issues.push(...listing.issues);
  }
  return { names: [...names].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)), issues };
}

/** A regular file (not a link) at `rel`, or an issue saying why not; null when absent. */
async function regularFile(root: string, rel: string): Promise<'file' | LayoutEntry | null> {
  let stats;
  try {
    stats = await lstat(join(root, rel));
  } catch {
    return null;
  }
  if (stats.isSymbolicLink()) return { kind: 'issue', rel, reason: 'symbolic link not followed' };
  return stats.isFile() ? 'file' : { kind: 'issue', rel, reason: 'not a regular file' };
}

/**
 * High Court partitions in path order. Per (year, court, bench) the parquet file is read
 * when it is there (one file, typed columns), else the partition's JSON files: reading both
 * layers of one partition would hold every judgment twice.
 */
export async function* highCourtLayout(root: string): AsyncGenerator<LayoutEntry> {
  const layers = ['metadata/parquet', 'metadata/json'];
  const years = await union(root, layers, YEAR, 'year');
  yield* years.issues;
  for (const [yearDir, year] of years.names) {
    const courts = await union(
      root,
      layers.map((l) => `${l}/${yearDir}`),
      COURT,
      'court',
    );
    yield* courts.issues;
    for (const [courtDir, court] of courts.names) {
      const benches = await union(
        root,
        layers.map((l) => `${l}/${yearDir}/${courtDir}`),
        BENCH,
        'bench',
      );
      yield* benches.issues;
      for (const [benchDir, bench] of benches.names) {
        const partition: Partition = { year: Number(year), court, bench };
        const tail = `${yearDir}/${courtDir}/${benchDir}`;
        const parquetRel = `metadata/parquet/${tail}/${PARQUET_FILE}`;
        const parquet = await regularFile(root, parquetRel);
        if (parquet === 'file') {
          yield { kind: 'parquet', rel: parquetRel, partition };
          continue;
        }
        if (parquet !== null) yield parquet;
        const jsonRel = `metadata/json/${tail}`;
        if (await exists(join(root, jsonRel))) yield { kind: 'json-dir', rel: jsonRel, partition };
      }
    }
  }
}

/** Supreme Court yearly parquet files in year order. */
export async function* supremeCourtLayout(root: string): AsyncGenerator<LayoutEntry> {
  const years = await union(root, ['metadata/parquet'], YEAR, 'year');
  yield* years.issues;
  for (const [yearDir, year] of years.names) {
    const rel = `metadata/parquet/${yearDir}/${PARQUET_FILE}`;
    const file = await regularFile(root, rel);
    if (file === 'file') yield { kind: 'parquet', rel, partition: { year: Number(year), court: null, bench: null } };
    else if (file !== null) yield file;
  }
}
