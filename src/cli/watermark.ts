/**
 * `court-records admin watermark trace FILE`: names the billing account whose API key
 * fetched the text in FILE (a leaked extract of 200 characters or more), with the chance
 * that the match is luck. It reads the service's database (DATABASE_URL, else PGlite in
 * DATA_DIR) for the candidate accounts and derives their tags from the same secret the
 * service watermarks with. A file holding JSON (a saved API response, where the marks may
 * be escaped as \u200b) is traced on its string values. Prints one JSON object on stdout; exits 0 when an account is
 * named, 1 when no watermark is found, 2 on a bad command line or unreadable file.
 */
import { readFile } from 'node:fs/promises';
import { keyHashSecretOf } from '../adapters/crypto/local-secret.ts';
import { watermarkTagger } from '../adapters/crypto/watermark-tag.ts';
import { traceLeak, type Candidate, type TraceResult } from '../application/watermark/trace.ts';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type OpenedDatabase } from '../db/open.ts';

const USAGE = 'usage: court-records admin watermark trace FILE';

export interface WatermarkIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Opens the database to read accounts from; the configured one by default. */
  readonly open?: (config: Config) => Promise<OpenedDatabase>;
  /** The watermark secret; by default the service's key-hashing secret. */
  readonly secret?: string;
}

/** The text to trace: a JSON document's string values, else the file as it is. */
function leakedText(raw: string): string {
  const strings: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(collect);
  };
  try {
    collect(JSON.parse(raw));
  } catch {
    return raw;
  }
  return strings.join('\n');
}

function candidate(c: Candidate | null) {
  return c && { accountId: c.account.accountId, kind: c.account.kind, name: c.account.name, score: c.score, pValue: c.pValue };
}

function report(result: TraceResult) {
  const evidence = {
    confidence: 1 - result.familyPValue,
    familyPValue: result.familyPValue,
    votes: result.extraction.votes,
    marks: result.extraction.marks,
    maxScore: result.best?.maxScore ?? 0,
    candidates: result.candidates,
    runnerUp: candidate(result.runnerUp),
  };
  return result.found
    ? {
        found: true,
        accountId: result.account.accountId,
        kind: result.account.kind,
        name: result.account.name,
        score: result.best.score,
        ...evidence,
      }
    : { found: false, reason: result.reason, best: candidate(result.best), ...evidence };
}

export async function runWatermark(args: readonly string[], io: WatermarkIo): Promise<number> {
  const [action, file, ...extra] = args;
  if (action === undefined || action === '--help' || action === '-h') {
    io.stderr.write(`${USAGE}\n`);
    return action === undefined ? 2 : 0;
  }
  if (action !== 'trace' || file === undefined || extra.length > 0) {
    io.stderr.write(`court-records admin watermark: expected "trace FILE"\n${USAGE}\n`);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    io.stderr.write(`court-records admin watermark: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const config = loadConfig(io.env);
  const database = await (io.open ?? ((c) => openDatabase(c, 'court-records admin watermark trace')))(config);
  try {
    const result = await traceLeak(database.maintenance, leakedText(text), watermarkTagger(io.secret ?? keyHashSecretOf(config)));
    io.stdout.write(`${JSON.stringify(report(result))}\n`);
    return result.found ? 0 : 1;
  } finally {
    await database.close();
  }
}

export function watermarkCommand(args: readonly string[]): Promise<number> {
  return runWatermark(args, { stdout: process.stdout, stderr: process.stderr, env: process.env });
}
