/**
 * `court-records ingest [PATH]`: loads the court datasets under PATH (default CORPUS_DIR,
 * else ../shared/data) into the database the service uses (DATABASE_URL, else PGlite in
 * DATA_DIR, as the service reads them), after applying migrations. Progress goes to stderr (a bar on a terminal,
 * plain lines otherwise), the JSON report to stdout, and the first rejected rows with
 * their reasons to stderr; every rejection is also stored in ingest_rejections.
 */
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { loadConfig, publicBaseUrl } from '../config.ts';
import { openDocumentStorage } from '../adapters/storage/open-document-storage.ts';
import { storeJudgmentDocuments } from '../corpus/store-documents.ts';
import { systemClock } from '../ports/clock.ts';
import { ingestCorpus, type IngestProgress } from '../corpus/ingest.ts';
import { bulkIngestCommand } from './ingest-bulk.ts';

const SHOWN_REJECTIONS = 20;
/** Plain progress lines (non-TTY) at most this often per source. */
const PLAIN_EVERY_ROWS = 5_000;

export interface IngestIo {
  stdout: { write(chunk: string): unknown };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

function progressReporter(io: IngestIo): { onProgress: (p: IngestProgress) => void; stop: () => void } {
  if (io.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream: io.stderr, format: '{source} [{bar}] {value}/{total}', hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let current: string | null = null;
    return {
      onProgress: (p) => {
        if (p.source !== current) {
          if (current !== null) bar.stop();
          current = p.source;
          bar.start(p.total ?? p.read, 0, { source: p.source });
        }
        bar.update(p.read, { source: p.source });
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
      const last = lastLogged.get(p.source) ?? 0;
      if (!p.done && p.read - last < PLAIN_EVERY_ROWS) return;
      lastLogged.set(p.source, p.read);
      io.stderr.write(`ingest ${p.source}: ${p.read}${p.total === null ? '' : `/${p.total}`} rows${p.done ? ' done' : ''}\n`);
    },
    stop: () => undefined,
  };
}

export async function runIngest(args: readonly string[], io: IngestIo): Promise<number> {
  if (args.length > 1 || args[0]?.startsWith('-')) {
    io.stderr.write('usage: court-records ingest [PATH]\n');
    return 2;
  }
  const config = loadConfig(io.env);
  const corpusDir = args[0] ? resolve(args[0]) : config.CORPUS_DIR;
  if (!corpusDir) {
    io.stderr.write('no corpus: pass PATH or set CORPUS_DIR\n');
    return 2;
  }
  const database = await openDatabase(config, 'court-records ingest');
  const progress = progressReporter(io);
  try {
    await migrate(database.maintenance);
    const report = await ingestCorpus({ db: database.maintenance, corpusDir, now: io.now, onProgress: progress.onProgress });
    progress.stop();
    io.stdout.write(`${JSON.stringify({ database: database.kind, ...report, rejections: report.rejections.length })}\n`);
    for (const r of report.rejections.slice(0, SHOWN_REJECTIONS)) {
      io.stderr.write(`rejected ${r.source} ${r.sourceRef}: ${r.reason}\n`);
    }
    const hidden = report.rejections.length - SHOWN_REJECTIONS;
    if (hidden > 0) io.stderr.write(`... and ${hidden} more rejected rows (see table ingest_rejections)\n`);
    for (const s of report.sources) if (s.skipped) io.stderr.write(`skipped ${s.source}: ${s.skipped}\n`);
    const documents = openDocumentStorage({ ...config, PUBLIC_BASE_URL: publicBaseUrl(config) }, systemClock);
    try {
      const stored = await storeJudgmentDocuments({ db: database.maintenance, storage: documents.storage, now: io.now });
      io.stdout.write(`${JSON.stringify({ documents: documents.storage.backend, ...stored })}\n`);
    } finally {
      documents.close();
    }
    return 0;
  } finally {
    progress.stop();
    await database.close();
  }
}

export function ingestCommand(argv: string[]): Promise<number> {
  if (argv[0] === '--layout' && argv[1] === 'bulk') return bulkIngestCommand(argv.slice(2));
  return runIngest(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, now: () => new Date() });
}
