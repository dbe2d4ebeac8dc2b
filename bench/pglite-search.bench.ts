/**
 * Keyword search on the embedded default at 4 connections (issue 27, item 5): the real
 * service as a child process on PGlite (no DATABASE_URL) over the real corpus, ingested and
 * projected into its keyword index before the child starts, then POST /search/cases with
 * one common phrase at a time, driven by wrk at 4 connections. The same runs over
 * PostgreSQL when a database URL is set. Medians of RUNS runs, phrase by phrase, so a
 * phrase's figure is one phrase's cost. After the runs the ledger must be exact: credits
 * spent equal the 2xx answers times the price (5), within the requests in flight at each
 * cut-off, and the ledger reconciles. Beside each phrase, the same phrase never asked
 * before (a new fromDate each request, before the corpus's first decision: the same
 * matches), which the index's kept answers cannot serve: the cost of a search that misses them.
 *
 *   TEST_DATABASE_URL=postgres://... node --import tsx bench/pglite-search.bench.ts
 *
 * PGLITE_SEARCH_BACKENDS (pglite,postgres; postgres only with a database URL),
 * PGLITE_SEARCH_RUNS (3), PGLITE_SEARCH_SECONDS (2), PGLITE_SEARCH_CONNECTIONS (4).
 * Target: p50 at most 50 ms on PGlite for every phrase.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { PostgresSearchIndex } from '../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import type { Db } from '../src/db/database.ts';
import { LocalUseEmbedder } from '../src/adapters/embeddings/local-use-embedder.ts';
import { embeddingProjectorName } from '../src/projections/embedding-projector.ts';
import { SearchIndexProjector, searchIndexProjectorName } from '../src/projections/search-index-projector.ts';
import { eventStoreOf } from '../src/wiring.ts';
import { corpusDir } from '../test/support/corpus.ts';
import { freshDatabase, freshPglite, fundedKey, serveChild, type ChildService } from './serve-child.ts';
import { table } from './stats.ts';
import { medianWrk, wrk, type WrkResult } from './wrk.ts';

export const PHRASES = ['union of india', 'state of punjab', 'state of uttar pradesh', 'commissioner of income tax', 'land acquisition'];
const PRICE = 5;
const TARGET_P50_MS = 50;

/** Test mode (built from the corpus after start-up on the embedded default) is not on the measured path. */
const CHILD_ENV = { CORPUS_DIR: corpusDir, TEST_MODE: 'false' };

export type SearchBackend = 'pglite' | 'postgres';

export interface PhraseFigures {
  readonly phrase: string;
  /** The `total` the service answered for the phrase. */
  readonly total: number;
  readonly load: WrkResult;
  /** The same phrase with a new fromDate each request (coldScript): no answer asked before. */
  readonly cold: WrkResult;
}

export interface PgliteSearchFigures {
  readonly backend: SearchBackend;
  readonly runs: number;
  readonly seconds: number;
  readonly connections: number;
  readonly documents: number;
  readonly phrases: readonly PhraseFigures[];
  readonly charged: number;
  readonly answered: number;
  readonly inFlightAtCutOff: number;
  readonly reconcileDifferences: number;
}

/** A wrk script posting one search body. */
function postScript(body: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-search-'));
  const path = join(dir, 'post.lua');
  writeFileSync(path, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A wrk script posting the phrase with a new `fromDate` each request, every one before the
 * corpus's first decision (1950): the same matches and the same work, but no request asks
 * what an earlier one asked, so the index's kept answers (PGlite) never serve it.
 */
function coldScript(phrase: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-search-'));
  const path = join(dir, 'cold.lua');
  writeFileSync(
    path,
    [
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      'local n = math.random(0, 16799)',
      'request = function()',
      '  n = (n + 1) % 16800',
      '  local day = string.format("19%02d-%02d-%02d", n % 50, math.floor(n / 50) % 12 + 1, math.floor(n / 600) % 28 + 1)',
      `  return wrk.format(nil, nil, nil, string.format(${JSON.stringify(JSON.stringify({ query: phrase, limit: 20, fromDate: '%s' }))}, day))`,
      'end',
    ].join('\n'),
  );
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Store {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  serve(): Promise<ChildService>;
  afterStop(): Promise<Db>;
  drop(): Promise<void>;
}

async function store(backend: SearchBackend, adminUrl: string | undefined): Promise<Store> {
  if (backend === 'postgres') {
    if (!adminUrl) throw new Error('the PostgreSQL run needs TEST_DATABASE_URL');
    const database = await freshDatabase(adminUrl, 'bench_pglite_search');
    return {
      db: database.db,
      kind: 'postgres',
      serve: () => serveChild({ databaseUrl: database.url, env: CHILD_ENV }),
      afterStop: async () => database.db,
      drop: database.drop,
    };
  }
  const pglite = await freshPglite();
  return {
    db: pglite.db,
    kind: 'pglite',
    serve: async () => {
      await pglite.release();
      return serveChild({ dataDir: pglite.dataDir, env: CHILD_ENV });
    },
    afterStop: () => pglite.reopen(),
    drop: pglite.drop,
  };
}

export async function benchPgliteSearch(
  backend: SearchBackend,
  adminUrl: string | undefined,
  options: { runs?: number; seconds?: number; connections?: number; phrases?: readonly string[] } = {},
): Promise<PgliteSearchFigures> {
  const runs = options.runs ?? 3;
  const seconds = options.seconds ?? 2;
  const connections = options.connections ?? 4;
  const phrases = options.phrases ?? PHRASES;
  const s = await store(backend, adminUrl);
  try {
    await ingestCorpus({ db: s.db, corpusDir, now: () => new Date() });
    // Indexed here, as the service's own projector would at start, so the child starts with its index caught up.
    const index = new PostgresSearchIndex(s.db);
    await new SearchIndexProjector(s.db, index, { kind: s.kind, now: () => new Date() }).catchUp();
    // The local model would embed the whole corpus in the background for minutes, on the cores the load is measured on:
    // its projector starts where the keyword index's stands (semantic search is not measured here).
    await sql`insert into projector_checkpoints (projector, transaction_id, global_position, updated_at)
      select ${embeddingProjectorName(new LocalUseEmbedder())}, transaction_id, global_position, updated_at
      from projector_checkpoints where projector = ${searchIndexProjectorName(index)}`.execute(s.db);
    const { rows: counted } = await sql<{ n: number }>`select count(*)::int as n from search_documents`.execute(s.db);
    const hot = await fundedKey(s.db, { email: `search-${backend}@lawfirm.example`, credits: 100_000_000 });
    const scripts = phrases.map((phrase) => postScript(JSON.stringify({ query: phrase, limit: 20 })));
    const colds = phrases.map(coldScript);
    const service = await s.serve();
    try {
      await service.settled();
      const url = `${service.root}/search/cases`;
      const keyed = { headers: { 'X-API-Key': hot.key } };
      const totals: number[] = [];
      const all: WrkResult[] = [];
      for (const phrase of phrases) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'X-API-Key': hot.key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ query: phrase, limit: 20 }),
        });
        const body = (await res.json()) as { pagination?: { total?: number } };
        if (res.status !== 200) throw new Error(`"${phrase}" answered ${String(res.status)}`);
        totals.push(body.pagination?.total ?? Number.NaN);
      }
      // Warm-up: JIT, the key cache, the index pages.
      for (const script of scripts) all.push(await wrk(url, { ...keyed, script: script.path, connections, durationSeconds: 1 }));
      const per: WrkResult[][] = phrases.map(() => []);
      const perCold: WrkResult[][] = phrases.map(() => []);
      for (let run = 0; run < runs; run += 1)
        for (const [i, script] of scripts.entries()) {
          const r = await wrk(url, { ...keyed, script: script.path, connections, durationSeconds: seconds });
          per[i]!.push(r);
          all.push(r);
          const c = await wrk(url, { ...keyed, script: colds[i]!.path, connections, durationSeconds: seconds });
          perCold[i]!.push(c);
          all.push(c);
        }
      await service.stop();
      const db = await s.afterStop();
      const { rows } = await sql<{ charged: number }>`select coalesce(sum(amount), 0)::int as charged from credit_charges`.execute(db);
      const report = await reconcileLedger({ db, events: eventStoreOf(db), analytics: null }, {});
      return {
        backend,
        runs,
        seconds,
        connections,
        documents: counted[0]!.n,
        phrases: phrases.map((phrase, i) => ({ phrase, total: totals[i]!, load: medianWrk(per[i]!), cold: medianWrk(perCold[i]!) })),
        charged: rows[0]!.charged,
        // The probe request per phrase is answered and charged too.
        answered: all.reduce((n, r) => n + r.requests - r.failures, 0) + phrases.length,
        inFlightAtCutOff: connections * all.length,
        reconcileDifferences: report.differences.length,
      };
    } finally {
      await service.stop();
      for (const script of [...scripts, ...colds]) script.remove();
    }
  } finally {
    await s.drop();
  }
}

/** wrk gives up on a request after 2 s: a run with no answer has no latency to print. */
const NO_ANSWER = '> 2000 (none answered)';
const answered = (r: WrkResult): boolean => r.requests > r.failures;

export function printPgliteSearch(f: PgliteSearchFigures): string {
  const name = f.backend === 'pglite' ? 'PGlite (embedded default)' : 'PostgreSQL';
  const lines = [
    `POST /search/cases (${String(PRICE)} credits) on ${name}, ${String(f.documents)} real records, wrk at ${String(f.connections)} connections; medians of ${String(f.runs)} runs of ${String(f.seconds)} s`,
    table([
      [
        'phrase',
        'total',
        'req/s',
        'p50 ms',
        'p99 ms',
        'non-2xx',
        `target p50 ≤ ${String(TARGET_P50_MS)} ms`,
        'never asked before: req/s',
        'p50 / p99 ms',
      ],
      ...f.phrases.map((p) => [
        p.phrase,
        String(p.total),
        p.load.perSecond.toFixed(0),
        answered(p.load) ? p.load.p50Ms.toFixed(1) : NO_ANSWER,
        answered(p.load) ? p.load.p99Ms.toFixed(1) : NO_ANSWER,
        String(p.load.failures + p.cold.failures),
        f.backend !== 'pglite'
          ? '(reference)'
          : !answered(p.load)
            ? 'missed'
            : p.load.p50Ms <= TARGET_P50_MS
              ? 'met'
              : `missed (${(p.load.p50Ms / TARGET_P50_MS).toFixed(1)}x)`,
        p.cold.perSecond.toFixed(0),
        answered(p.cold) ? `${p.cold.p50Ms.toFixed(1)} / ${p.cold.p99Ms.toFixed(1)}` : NO_ANSWER,
      ]),
    ]),
  ];
  const expected = f.answered * PRICE;
  const exact = f.charged >= expected && f.charged <= expected + f.inFlightAtCutOff * PRICE && f.reconcileDifferences === 0;
  lines.push(
    `ledger: ${String(f.charged)} credits charged for ${String(f.answered)} 2xx counted × ${String(PRICE)} = ${String(expected)} (+ at most ${String(f.inFlightAtCutOff)} in flight at cut-off); reconciliation differences: ${String(f.reconcileDifferences)}: ${exact ? 'exact' : 'NOT EXACT'}`,
  );
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const backends = (process.env.PGLITE_SEARCH_BACKENDS ?? (adminUrl ? 'pglite,postgres' : 'pglite'))
    .split(',')
    .map((b) => b.trim()) as SearchBackend[];
  for (const backend of backends)
    console.log(
      printPgliteSearch(
        await benchPgliteSearch(backend, adminUrl, {
          runs: Number(process.env.PGLITE_SEARCH_RUNS ?? 3),
          seconds: Number(process.env.PGLITE_SEARCH_SECONDS ?? 2),
          connections: Number(process.env.PGLITE_SEARCH_CONNECTIONS ?? 4),
        }),
      ),
    );
}
