/**
 * Real search documents for the search-index tests: a slice of the real corpus (the first
 * SC_METADATA_ROWS Supreme Court metadata rows, and every judgment-text and eCourts High
 * Court record) ingested into an in-memory PGlite and mapped by the projector's own
 * mapping, so the index sees exactly what production feeds it.
 */
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { CORPUS_SOURCES, type CorpusSource } from '../../src/corpus/sources/index.ts';
import { scMetadataSource } from '../../src/corpus/sources/sc-metadata.ts';
import type { Db } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPglite } from '../../src/db/open.ts';
import type { SearchDocument } from '../../src/ports/search-index.ts';
import { caseRowToSearchDocument } from '../../src/projections/search-index-projector.ts';
import { corpusDir } from './corpus.ts';

export const SC_METADATA_ROWS = 3000;

/** The corpus sources with the SC metadata cut to its first `rows` records. */
export function corpusSlice(rows: number): CorpusSource[] {
  const head: CorpusSource = {
    ...scMetadataSource,
    async *read(ctx) {
      let n = 0;
      for await (const result of scMetadataSource.read(ctx)) {
        if (n++ >= rows) return;
        yield result;
      }
    },
  };
  return CORPUS_SOURCES.map((s) => (s === scMetadataSource ? head : s));
}

export async function ingestSlice(db: Db, rows = SC_METADATA_ROWS): Promise<void> {
  await ingestCorpus({ db, corpusDir, now: () => new Date('2026-01-01T00:00:00Z'), sources: corpusSlice(rows) });
}

export async function realSearchDocuments(rows = SC_METADATA_ROWS): Promise<SearchDocument[]> {
  const database = await openPglite(undefined);
  try {
    await migrate(database.db);
    await ingestSlice(database.db, rows);
    const stored = await database.db.selectFrom('cases').selectAll().orderBy('caseId').execute();
    return stored.map(caseRowToSearchDocument);
  } finally {
    await database.close();
  }
}
