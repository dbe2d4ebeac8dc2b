/**
 * First-start ingest for the service: when the case store is empty and a corpus
 * directory is configured, load it in the background and log the outcome. A store that
 * already holds cases is left to the explicit `court-records ingest` command, so restarts
 * do not re-read 32k rows.
 */
import type { Db } from '../db/database.ts';
import { ingestCorpus } from './ingest.ts';

export interface AutoIngestLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface AutoIngestOptions {
  db: Db;
  corpusDir: string;
  clock: { now(): Date };
  logger: AutoIngestLogger;
  /** Ends the ingest between batches (the service is stopping); the next start finds a partial store and leaves it to `court-records ingest`. */
  signal?: AbortSignal | undefined;
}

export async function autoIngest({ db, corpusDir, clock, logger, signal }: AutoIngestOptions): Promise<void> {
  const existing = await db.selectFrom('cases').select('caseId').limit(1).executeTakeFirst();
  if (existing) return;
  try {
    const report = await ingestCorpus({ db, corpusDir, now: () => clock.now(), signal });
    logger.info(
      { corpusDir, durationMs: report.durationMs, sources: report.sources, rejected: report.rejections.length },
      'corpus ingested',
    );
  } catch (err) {
    if (signal?.aborted) throw err;
    logger.warn({ err, corpusDir }, 'corpus ingest failed');
  }
}
