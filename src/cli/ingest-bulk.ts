/**
 * `court-records ingest --layout bulk [--rescan] [--reference DIR] PATH`: loads the public
 * bulk datasets synced under PATH (src/corpus/bulk) into the configured database, after
 * applying migrations. Progress (files and rows of the totals) goes to stderr, the JSON
 * report to stdout. Ctrl-C (SIGINT) or SIGTERM stops it between two chunks with everything
 * before committed; running the same command again resumes there. Exit 0 when the run
 * finished, 130 when it was stopped.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { ingestBulkCorpus, type BulkProgress } from '../corpus/bulk/bulk-ingest.ts';
import type { IngestIo } from './ingest.ts';

const USAGE = 'usage: court-records ingest --layout bulk [--rescan] [--reference DIR] PATH\n';
const SHOWN_REJECTIONS = 20;
const PLAIN_EVERY_ROWS = 5_000;
/** Shell convention for a run ended by SIGINT. */
const INTERRUPTED = 130;

export interface BulkIngestIo extends IngestIo {
  /** Aborted on SIGINT/SIGTERM by the real CLI; tests pass their own. */
  signal?: AbortSignal;
}

function reporter(io: BulkIngestIo): { onProgress: (p: BulkProgress) => void; stop: () => void } {
  if (io.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream: io.stderr, format: '{source} [{bar}] {value}/{total} rows, {files} files', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let current: string | null = null;
    return {
      onProgress: (p) => {
        const files = `${p.filesDone}/${p.filesTotal}`;
        if (p.source !== current) {
          if (current !== null) bar.stop();
          current = p.source;
          bar.start(p.rowsTotal, p.rowsDone, { source: p.source, files });
        }
        bar.update(p.rowsDone, { source: p.source, files });
        if (p.done) {
          bar.stop();
          current = null;
        }
      },
      stop: () => bar.stop(),
    };
  }
  const lastLogged = new Map<string, number>();
  return {
    onProgress: (p) => {
      const last = lastLogged.get(p.source) ?? -PLAIN_EVERY_ROWS;
      if (!p.done && p.rowsDone - last < PLAIN_EVERY_ROWS) return;
      lastLogged.set(p.source, p.rowsDone);
      io.stderr.write(
        `ingest ${p.source}: files ${p.filesDone}/${p.filesTotal}, rows ${p.rowsDone}/${p.rowsTotal}${p.done ? ' done' : ''}\n`,
      );
    },
    stop: () => undefined,
  };
}

export async function runBulkIngest(args: readonly string[], io: BulkIngestIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { rescan: { type: 'boolean', default: false }, reference: { type: 'string' } },
      allowPositionals: true,
    });
  } catch {
    io.stderr.write(USAGE);
    return 2;
  }
  const [path, ...extra] = parsed.positionals;
  if (path === undefined || extra.length > 0) {
    io.stderr.write(USAGE);
    return 2;
  }
  const config = loadConfig(io.env);
  const referenceDir = parsed.values.reference ?? (config.CORPUS_DIR ? join(config.CORPUS_DIR, 'hc-courts-reference') : undefined);
  if (referenceDir === undefined) {
    io.stderr.write('no High Court reference data: pass --reference DIR (hc-courts-reference) or set CORPUS_DIR\n');
    return 2;
  }
  const database = await openDatabase(config, 'court-records ingest');
  const progress = reporter(io);
  try {
    await migrate(database.maintenance);
    const report = await ingestBulkCorpus({
      db: database.maintenance,
      root: resolve(path),
      referenceDir: resolve(referenceDir),
      now: io.now,
      onProgress: progress.onProgress,
      rescan: parsed.values.rescan,
      ...(io.signal ? { signal: io.signal } : {}),
    });
    progress.stop();
    io.stdout.write(`${JSON.stringify({ database: database.kind, ...report, rejectionSample: report.rejectionSample.length })}\n`);
    for (const r of report.rejectionSample.slice(0, SHOWN_REJECTIONS))
      io.stderr.write(`rejected ${r.source} ${r.sourceRef}: ${r.reason}\n`);
    const rejected = report.sources.reduce((n, s) => n + s.rejected, 0);
    if (rejected > SHOWN_REJECTIONS) io.stderr.write(`... ${rejected} rejected in all (see table ingest_rejections)\n`);
    for (const s of report.sources) if (s.skipped) io.stderr.write(`skipped ${s.source}: ${s.skipped}\n`);
    if (report.interrupted) {
      io.stderr.write('stopped: run the same command again to resume\n');
      return INTERRUPTED;
    }
    return 0;
  } finally {
    progress.stop();
    await database.close();
  }
}

/** The real CLI: SIGINT/SIGTERM stop the run between chunks instead of killing it mid-write. */
export async function bulkIngestCommand(argv: readonly string[]): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await runBulkIngest(argv, {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      now: () => new Date(),
      signal: controller.signal,
    });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
