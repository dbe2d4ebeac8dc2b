/**
 * Relevance parity of the two keyword search adapters on real records: a large slice of the
 * corpus goes into the Postgres adapter (on PostgreSQL when TEST_DATABASE_URL is set, else
 * PGlite) and into Meilisearch, and both answer the same held-out probes (see
 * search-relevance.ts): Supreme Court case numbers in another printed form to the keyword
 * search, and party names with an honorific and "& Ors." or with a typo to the keyword
 * search and to the party retrieval. On every probe set Meilisearch must put the right case
 * in its top 10 at least as often as PostgreSQL does, and for every case number, since
 * those are looked up exactly.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MeilisearchSearchIndex } from '../../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import type { PartySearchIndex, SearchIndex } from '../../src/ports/search-index.ts';
import { caseRowToSearchDocument } from '../../src/projections/search-index-projector.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../support/meilisearch.ts';
import { ingestSlice } from '../support/search-corpus.ts';
import { partyTop10, relevanceProbes, top10, type RelevanceProbes, type Top10 } from '../support/search-relevance.ts';

/**
 * Half the Supreme Court metadata (16,000 of 32,769 rows, with every judgment-text and High
 * Court record): thousands of parseable case numbers and distinct party names, indexed by
 * both adapters in well under a minute.
 */
const SC_ROWS = 16_000;
const PROBES = { caseNumbers: 60, partyNames: 80 };
const UPSERT_BATCH = 2_000;

const SETS = [
  'search: case numbers',
  'search: party names with an honorific',
  'search: party names with a typo',
  'searchParties: party names with an honorific',
  'searchParties: party names with a typo',
] as const;
type Scores = Record<(typeof SETS)[number], Top10>;

async function measure(index: SearchIndex & PartySearchIndex, probes: RelevanceProbes): Promise<Scores> {
  return {
    'search: case numbers': await top10(index, probes.caseNumbers),
    'search: party names with an honorific': await top10(index, probes.honorifics),
    'search: party names with a typo': await top10(index, probes.typos),
    'searchParties: party names with an honorific': await partyTop10(index, probes.honorifics),
    'searchParties: party names with a typo': await partyTop10(index, probes.typos),
  };
}

const factory = databases.at(-1);

describe('search relevance: Meilisearch against PostgreSQL on held-out probes', { skip: meilisearchMissing, timeout: 300_000 }, () => {
  let database: TestDatabase;
  let meili: { url: string; apiKey: string | undefined; close(): Promise<void> };
  const uid = `relevance_${randomUUID().slice(0, 8)}`;
  let pgScores: Scores;
  let meiliScores: Scores;

  before(async () => {
    assert.ok(factory);
    database = await factory.open();
    meili = await meilisearchForSuite();
    await ingestSlice(database.db, SC_ROWS);
    const probes = await relevanceProbes(database.db, PROBES, 'held-out');
    assert.equal(probes.caseNumbers.length, PROBES.caseNumbers, 'the slice yields every case-number probe');
    assert.equal(probes.honorifics.length + probes.typos.length, PROBES.partyNames, 'the slice yields every party-name probe');
    const rows = await database.db.selectFrom('cases').selectAll().orderBy('caseId').execute();
    const documents = rows.map(caseRowToSearchDocument);

    const pg = new PostgresSearchIndex(database.db);
    const ms = await MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid: uid });
    for (let i = 0; i < documents.length; i += UPSERT_BATCH) {
      const batch = documents.slice(i, i + UPSERT_BATCH);
      await Promise.all([pg.upsert(batch), ms.upsert(batch)]);
    }
    pgScores = await measure(pg, probes);
    meiliScores = await measure(ms, probes);
  });

  after(async () => {
    await dropIndexes(meili.url, meili.apiKey, uid);
    await meili.close();
    await database.close();
  });

  for (const set of SETS)
    it(`${set}: Meilisearch has the right case in its top 10 at least as often as PostgreSQL`, (t) => {
      const [pg, ms] = [pgScores[set], meiliScores[set]];
      t.diagnostic(`${set}: PostgreSQL ${String(pg.found)}/${String(pg.of)}, Meilisearch ${String(ms.found)}/${String(ms.of)}`);
      assert.ok(
        ms.found >= pg.found,
        `Meilisearch ${String(ms.found)} < PostgreSQL ${String(pg.found)} of ${String(ms.of)}; Meilisearch missed: ${ms.missed.map((p) => p.query).join(' | ')}`,
      );
    });

  it('search: Meilisearch finds every case number, by its exact lookup', () => {
    const { found, of, missed } = meiliScores['search: case numbers'];
    assert.equal(found, of, `missed: ${missed.map((p) => `${p.query} (${p.caseId})`).join(' | ')}`);
  });
});
