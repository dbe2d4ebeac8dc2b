/**
 * `court-records search reindex`: rebuilds the Meilisearch index from the case store
 * without taking search offline (a shadow index is filled, then swapped in; see
 * SearchIndexProjector.reindex). Run it after a schema version that changed the documents,
 * or to repair an index. Safe beside a running service on PostgreSQL: the hand-over waits
 * for the service's projector lock. On the embedded database the service holds PGlite, so
 * the service runs a pending reindex itself at start.
 */
import { openSearchIndex } from '../adapters/search/open-search-index.ts';
import { loadConfig } from '../config.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { SearchIndexProjector } from '../projections/search-index-projector.ts';

const USAGE = 'usage: court-records search reindex   (needs MEILI_URL: the PostgreSQL index is kept by the case store itself)';

export async function searchCommand(argv: readonly string[]): Promise<number> {
  if (argv.length !== 1 || argv[0] !== 'reindex') {
    process.stderr.write(`${USAGE}\n`);
    return argv[0] === '--help' ? 0 : 2;
  }
  const config = loadConfig(process.env);
  if (!config.MEILI_URL) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const database = await openDatabase(config, 'court-records search reindex');
  try {
    await migrate(database.maintenance);
    const index = await openSearchIndex(config, database.maintenance);
    const projector = new SearchIndexProjector(database.maintenance, index, { kind: database.kind, now: () => new Date() });
    const started = performance.now();
    const cases = await projector.reindex();
    process.stdout.write(
      `${JSON.stringify({ index: index.name, cases, seconds: Math.round((performance.now() - started) / 100) / 10 })}\n`,
    );
    return 0;
  } finally {
    await database.close();
  }
}
