/**
 * Chooses the keyword search index: Meilisearch when MEILI_URL is set (its index created
 * and configured before this resolves), otherwise PostgreSQL full-text search over the
 * document database already opened, the embedded default.
 */
import type { Db } from '../../db/database.ts';
import type { PartySearchIndex, SearchIndex } from '../../ports/search-index.ts';
import { MeilisearchSearchIndex } from '../meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../postgres/search-index.ts';

export interface SearchIndexConfig {
  readonly MEILI_URL?: string | undefined;
  readonly MEILI_API_KEY?: string | undefined;
  readonly MEILI_INDEX?: string | undefined;
}

/** `soleWriter`: no other process writes this database (PGlite), so the index may keep its answers. */
export async function openSearchIndex(
  config: SearchIndexConfig,
  db: Db,
  options: { readonly soleWriter?: boolean } = {},
): Promise<SearchIndex & PartySearchIndex> {
  if (config.MEILI_URL)
    return MeilisearchSearchIndex.open({ url: config.MEILI_URL, apiKey: config.MEILI_API_KEY, indexUid: config.MEILI_INDEX ?? 'cases' });
  return new PostgresSearchIndex(db, { keepAnswers: options.soleWriter ?? false });
}
