/**
 * The contract between the ingest loop and one dataset: a name (the `source` column),
 * the folder under the corpus directory, the files it reads (for progress totals) and a
 * stream of mapped rows. Readers stream line by line so the 32k-row SC file never sits
 * in memory whole.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { MapResult } from '../../domain/case/case-record.ts';

export interface SourceContext {
  /** This source's folder. */
  folderPath: string;
  /** The corpus root, for reference data in sibling folders. */
  corpusDir: string;
}

export interface CorpusSource {
  readonly name: string;
  /** Folder under the corpus directory; missing folder = source skipped. */
  readonly folder: string;
  /** Files (relative to the folder) whose lines are the rows, for progress totals. */
  readonly rowFiles: readonly string[];
  read(ctx: SourceContext): AsyncIterable<MapResult>;
}

export interface JsonlLine {
  /** `file.jsonl#L12`, 1-based: where a person finds the row. */
  ref: string;
  /** Parsed value, or the parse error message. */
  value: { json: unknown } | { error: string };
}

/** Streams a JSONL file; blank lines are skipped, unparseable ones reported. */
export async function* readJsonl(path: string, fileName: string): AsyncGenerator<JsonlLine> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    const ref = `${fileName}#L${n}`;
    try {
      yield { ref, value: { json: JSON.parse(line) as unknown } };
    } catch (e) {
      yield { ref, value: { error: e instanceof Error ? e.message : String(e) } };
    }
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string field, or null when absent / not a string. */
export function str(row: Record<string, unknown>, key: string): string | null {
  const v = row[key];
  return typeof v === 'string' ? v : null;
}

/** One line per zod issue, `path: message`, for rejection reasons. */
export function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(row)'}: ${i.message}`).join('; ');
}
