/**
 * Keyword search index figures, on real PostgreSQL (BENCH_DATABASE_URL or
 * TEST_DATABASE_URL; PGlite files when neither is set, without the synthetic sets):
 * (a) relevance on the real corpus: for 100 real case numbers rewritten in another printed
 *     form and 100 real party names given an honorific or a typo, how often the right case
 *     is in the top 10;
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
import { parseScApiCaseNumber } from '../src/domain/case/case-number.ts';
import { normalisePartyName } from '../src/domain/search/party-name.ts';
import type { SearchIndex, SearchRequest } from '../src/ports/search-index.ts';
import { SearchIndexProjector } from '../src/projections/search-index-projector.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { table } from './stats.ts';

interface Probe {
  readonly query: string;
  readonly caseId: string;
}

const LONG_TYPES: Readonly<Record<string, string>> = {
  'C.A.': 'Civil Appeal',
  'Crl.A.': 'Criminal Appeal',
  'W.P.(C)': 'Writ Petition (Civil)',
  'W.P.(Crl.)': 'Writ Petition (Criminal)',
  'SLP(C)': 'Special Leave Petition (Civil)',
  'SLP(Crl)': 'Special Leave Petition (Criminal)',
  'T.P.(C)': 'Transfer Petition (Civil)',
  'R.P.(C)': 'Review Petition (Civil)',
  'CONMT.PET.(C)': 'Contempt Petition (Civil)',
};

/** Every nth of the sorted candidates: a spread over the corpus, the same on every run. */
function spread<T>(items: readonly T[], n: number): T[] {
  const step = Math.max(1, Math.floor(items.length / n));
  return items.filter((_, i) => i % step === 0).slice(0, n);
}

async function caseNumberProbes(db: Db): Promise<Probe[]> {
  const rows = await db
    .selectFrom('cases')
    .select(['caseId', 'caseNumber'])
    .where('source', '=', 'sc-judgments-metadata')
    .orderBy('caseId')
    .execute();
  const parsed = rows.flatMap((r) => {
    const parts = parseScApiCaseNumber(r.caseNumber);
    return parts ? [{ caseId: r.caseId, parts }] : [];
  });
  return spread(parsed, 100).map(({ caseId, parts }, i) => {
    const numbers = parts.from === parts.to ? parts.from : `${parts.from}-${parts.to}`;
    const long = LONG_TYPES[parts.type];
    // Alternate the judgment-header form and the short form users type.
    const query =
      long && i % 2 === 0 ? `${long} No. ${numbers} of ${parts.year}` : `${parts.type.replace(/[.]/g, '')} ${numbers}/${parts.year}`;
    return { caseId, query };
  });
}

/** Swaps two letters in the middle of the longest word: the commonest typing slip. */
function typo(name: string): string {
  const words = name.split(' ');
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  const at = Math.floor(longest.length / 2);
  const slipped = longest.slice(0, at - 1) + (longest[at] ?? '') + (longest[at - 1] ?? '') + longest.slice(at + 1);
  return words.map((w) => (w === longest ? slipped : w)).join(' ');
}

async function partyProbes(db: Db): Promise<{ honorific: Probe[]; typo: Probe[] }> {
  const rows = await db
    .selectFrom('cases')
    .select(['caseId', sql<string>`petitioners->0->>'name'`.as('name')])
    .where('source', '=', 'sc-judgments-metadata')
    .where(sql<boolean>`petitioners->0->>'name' is not null`)
    .orderBy('caseId')
    .execute();
  const uses = new Map<string, number>();
  for (const r of rows) uses.set(normalisePartyName(r.name), (uses.get(normalisePartyName(r.name)) ?? 0) + 1);
  // A name only one case carries, of two words or more with a word long enough to misspell.
  const distinct = rows.filter((r) => {
    const n = normalisePartyName(r.name);
    return uses.get(n) === 1 && n.split(' ').length >= 2 && n.split(' ').some((w) => w.length >= 5);
  });
  const picked = spread(distinct, 100);
  const honorifics = ['Shri', 'Smt.', 'M/s.', 'Dr.'];
  return {
    honorific: picked
      .filter((_, i) => i % 2 === 0)
      .map((r, i) => ({ caseId: r.caseId, query: `${honorifics[i % 4] ?? ''} ${normalisePartyName(r.name)} & Ors.` })),
    typo: picked.filter((_, i) => i % 2 === 1).map((r) => ({ caseId: r.caseId, query: typo(normalisePartyName(r.name)).toLowerCase() })),
  };
}

const request = (query: string): SearchRequest => ({ query, filters: {}, sort: 'relevance', offset: 0, limit: 10 });

async function top10Rate(index: SearchIndex, probes: readonly Probe[]): Promise<number> {
  let found = 0;
  for (const p of probes) if ((await index.search(request(p.query))).hits.some((h) => h.caseId === p.caseId)) found += 1;
  return found / probes.length;
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

    const numbers = await caseNumberProbes(db);
    const parties = await partyProbes(db);
    const relevance = {
      caseNumbers: await top10Rate(index, numbers),
      honorifics: await top10Rate(index, parties.honorific),
      typos: await top10Rate(index, parties.typo),
    };
    const queries = [...numbers, ...parties.honorific, ...parties.typo].map((p) => p.query).concat(WORD_QUERIES);
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
