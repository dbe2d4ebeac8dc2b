/**
 * POST /search/cases/semantic through the whole HTTP path (key, charge, audit, query
 * embedding by the local model in its worker, pgvector HNSW, case rows) at 100,000 vectors
 * on PGlite. The vectors are SYNTHETIC (clustered random 512-dimension vectors, three per
 * real case of the ingested corpus, so every hit resolves to a real case row); the queries
 * are real text, embedded per request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ingestCorpus } from '../src/corpus/ingest.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPglite } from '../src/db/open.ts';
import { buildTestApp, testEmbedder } from '../test/support/app.ts';
import { serveWithFundedKey } from './served-app.ts';
import { load, type LoadResult } from './http-load.ts';

const VECTORS = Number(process.env.SEMANTIC_HTTP_VECTORS ?? 100_000);
const QUERIES = [
  'compensation for land acquired by the state',
  'bail in a murder case',
  'dismissal of a government servant',
  'income tax assessment',
];

export interface SemanticHttpFigures {
  readonly vectors: number;
  readonly at32: LoadResult;
  readonly at1: LoadResult;
}

export async function semanticHttpBench(corpusDir: string): Promise<SemanticHttpFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-semantic-http-'));
  const database = await openPglite(dir);
  const server: { close?: () => void } = {};
  try {
    const db = database.db;
    await migrate(db);
    await ingestCorpus({ db, corpusDir, now: () => new Date() });
    await sql`drop index case_chunks_use_lite_512_hnsw_idx`.execute(db);
    await sql`create table syn_centres as
      select c, array(select random() * 2 - 1 from generate_series(1, 512) where c >= 0) as v from generate_series(0, 999) c`.execute(db);
    for (let from = 0; from < VECTORS; from += 10_000) {
      await sql`insert into case_chunks (case_id, chunk_no, model, input_hash, embedding, court_code, case_type, judges,
          decision_year, decision_date, case_number_key, withheld)
        select c.case_id, n.k / ${33_000}::int, 'use-lite-512', 'synthetic',
          (select array_agg(x + random() - 0.5 order by o) from unnest(s.v) with ordinality u(x, o))::vector,
          c.court_code, c.case_type, '{}', c.decision_year, c.decision_date, c.case_number_normalised, false
        from generate_series(${from}::int, ${Math.min(VECTORS, from + 10_000) - 1}::int) n(k)
        join (select row_number() over (order by case_id) - 1 as i, * from cases where source = 'sc-judgments-metadata') c on c.i = n.k % ${33_000}::int
        join syn_centres s on s.c = n.k % 1000`.execute(db);
    }
    await sql`create index case_chunks_use_lite_512_hnsw_idx on case_chunks
      using hnsw ((embedding::vector(512)) vector_cosine_ops) where model = 'use-lite-512'`.execute(db);
    const vectors = (await sql<{ n: number }>`select count(*)::int as n from case_chunks`.execute(db)).rows[0]?.n ?? 0;

    const served = await serveWithFundedKey(buildTestApp({ db }), {
      email: 'semantic-bench@lawfirm.example',
      credits: 100_000_000,
      user: { organizationId: null, limitOverrides: { requestsPerMinute: 10_000_000 } },
    });
    server.close = () => served.close();
    const url = `${served.root}/search/cases/semantic`;
    const options = {
      expectStatus: 200,
      durationMs: 4_000,
      body: (i: number) => JSON.stringify({ query: QUERIES[i % QUERIES.length], limit: 20 }),
    };
    const headers = { 'X-API-Key': served.key };
    // The route answers from the keyword index when the vector path fails: make sure it did not.
    const probe = (await (
      await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: options.body(0) })
    ).json()) as {
      meta?: { fallbackMode?: string };
      data?: unknown[];
    };
    if (probe.meta?.fallbackMode !== undefined || !probe.data?.length)
      throw new Error(`semantic search did not use the vector index: ${JSON.stringify(probe).slice(0, 300)}`);
    await load(url, headers, { ...options, concurrency: 4, durationMs: 1_000 });
    const at1 = await load(url, headers, { ...options, concurrency: 1 });
    const at32 = await load(url, headers, { ...options, concurrency: 32 });
    return { vectors, at32, at1 };
  } finally {
    server.close?.();
    await testEmbedder().close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
