/**
 * Keyword search index figures, on real PostgreSQL (BENCH_DATABASE_URL or
 * TEST_DATABASE_URL; PGlite files when neither is set, without the synthetic sets):
 * (a) relevance on the real corpus: for 100 real case numbers rewritten in another printed
 *     form and 100 real party names given an honorific or a typo, how often the right case
 *     is in the top 10 (the probes and the measure are shared with the relevance int test,
 *     test/support/search-relevance.ts; the bench uses the tuning spread, the test the held-out one);
 * (b) bare index query latency (p50/p99, sequential) on the real corpus, then on SYNTHETIC
 *     sets of SEARCH_BENCH_SIZES documents (default 100000,1000000) made in SQL by
 *     recombining real rows (parties, number and text of one real case with the judges and
 *     date of another), and the latency growth from the first size to the last.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import postgres from 'postgres';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import type { Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite, openPostgres, type OpenedDatabase } from '../src/db/open.ts';
import type { SearchIndex, SearchRequest } from '../src/ports/search-index.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { relevanceProbes, top10, type Probe } from '../test/support/search-relevance.ts';
import { table } from './stats.ts';

const request = (query: string): SearchRequest => ({ query, filters: {}, sort: 'relevance', offset: 0, limit: 10 });

async function top10Rate(index: SearchIndex, probes: readonly Probe[]): Promise<number> {
  const { found, of } = await top10(index, probes);
  return found / of;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function latency(index: SearchIndex, queries: readonly string[]): Promise<{ p50: number; p99: number }> {
  for (const q of queries.slice(0, 10)) await index.search(request(q));
  const times: number[] = [];
  for (const q of queries) {
    const started = performance.now();
    await index.search(request(q));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

const WORD_QUERIES = [
  'land acquisition',
  'murder conviction',
  'income tax',
  'bail',
  'state of bihar',
  'union of india',
  'compensation',
  'appeal dismissed',
];

/** Fills search_documents with `size` recombined copies of the real rows, in SQL. */
async function synthesise(db: Db, size: number): Promise<void> {
  await sql`delete from search_documents where case_id like 'syn-%'`.execute(db);
  const real = (await sql<{ n: number }>`select count(*)::int as n from search_documents`.execute(db)).rows[0]?.n ?? 0;
  const step = 100_000;
  for (let from = 1; from <= size - real; from += step) {
    const to = Math.min(size - real, from + step - 1);
    await sql`
      with base as (select row_number() over (order by case_id) - 1 as i, * from search_documents where case_id not like 'syn-%'),
           n as (select count(*) as n from base)
      insert into search_documents (case_id, case_number, case_number_key, cnr, court_code, case_type, judges, decision_date, decision_year, party_names, document, withheld)
      select 'syn-' || k, a.case_number, a.case_number_key, null, a.court_code, a.case_type, b.judges, b.decision_date, b.decision_year, a.party_names, a.document, false
      from generate_series(${from}::int, ${to}::int) k cross join n
      join base a on a.i = k % n.n
      join base b on b.i = (k::bigint * 7919 + 13) % n.n`.execute(db);
  }
  await sql`analyze search_documents`.execute(db);
}

export interface SearchIndexFigures {
  readonly engine: 'postgres' | 'pglite';
  readonly documents: number;
  readonly relevance: { caseNumbers: number; honorifics: number; typos: number };
  readonly latency: { label: string; documents: number; p50: number; p99: number }[];
}

async function openBenchDatabase(adminUrl: string | undefined): Promise<{ database: OpenedDatabase; drop(): Promise<void> }> {
  if (!adminUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-search-'));
    const database = await openPglite(dir);
    return { database, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `bench_search_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 4 });
  return {
    database,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

async function measure(adminUrl: string | undefined): Promise<SearchIndexFigures> {
  const sizes = (process.env.SEARCH_BENCH_SIZES ?? '100000,1000000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  const { database, drop } = await openBenchDatabase(adminUrl);
  try {
    const db = database.db;
    await migrate(db);
    await ingestCorpus({ db, corpusDir, now: () => new Date() });
    const index = new PostgresSearchIndex(db);
    await new SearchIndexProjector(db, index, { kind: database.kind, now: () => new Date(), batchSize: 500 }).catchUp();
    await sql`analyze search_documents`.execute(db);
    const documents = (await sql<{ n: number }>`select count(*)::int as n from search_documents`.execute(db)).rows[0]?.n ?? 0;

    const probes = await relevanceProbes(db, { caseNumbers: 100, partyNames: 100 }, 'tuning');
    const relevance = {
      caseNumbers: await top10Rate(index, probes.caseNumbers),
      honorifics: await top10Rate(index, probes.honorifics),
      typos: await top10Rate(index, probes.typos),
    };
    const queries = [...probes.caseNumbers, ...probes.honorifics, ...probes.typos].map((p) => p.query).concat(WORD_QUERIES);
    const figures: SearchIndexFigures = { engine: database.kind, documents, relevance, latency: [] };
    figures.latency.push({ label: 'real corpus', documents, ...(await latency(index, queries)) });
    if (database.kind === 'postgres') {
      for (const size of sizes) {
        await synthesise(db, size);
        figures.latency.push({ label: 'SYNTHETIC (recombined real rows)', documents: size, ...(await latency(index, queries)) });
      }
    }
    return figures;
  } finally {
    await database.close();
    await drop();
  }
}

function print(f: SearchIndexFigures): void {
  console.log(`Search index (${f.engine}, ${f.documents} real documents): right case in the top 10`);
  console.log(
    table([
      ['probe set (100 each; parties 50 + 50)', 'top-10 rate'],
      ['case numbers in another printed form', f.relevance.caseNumbers],
      ['party names with an honorific and "& Ors."', f.relevance.honorifics],
      ['party names with a typo', f.relevance.typos],
    ]),
  );
  console.log('\nBare index query latency (sequential, 216 queries: case numbers, party names, words)');
  console.log(table([['set', 'documents', 'p50 ms', 'p99 ms'], ...f.latency.map((l) => [l.label, l.documents, l.p50, l.p99])]));
  const first = f.latency[1];
  const last = f.latency[f.latency.length - 1];
  if (first && last && first !== last) {
    console.log(
      `Latency growth ${first.documents} → ${last.documents} (synthetic): p50 x${(last.p50 / first.p50).toFixed(2)}, p99 x${(last.p99 / first.p99).toFixed(2)}`,
    );
  }
}

/** Measures and prints; returns the figures for callers that compare runs. */
export async function searchIndexBench(
  adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL,
): Promise<SearchIndexFigures> {
  const figures = await measure(adminUrl);
  print(figures);
  return figures;
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await searchIndexBench();
