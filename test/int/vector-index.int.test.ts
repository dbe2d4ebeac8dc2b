/**
 * The pgvector VectorIndex over real judgments: the Supreme Court full-text judgments
 * (Indian Kanoon 50 and IN-Abs) ingested, embedded by the real local model through the
 * embedding projector (two chunks a case, to keep the run short) and searched. A passage
 * finds its own case; every filter holds on every hit and misses nothing; pages join up;
 * a withheld case is never returned but reported; the deepest page allowed is read through
 * the HNSW index (EXPLAIN) and a deeper one refused; and a filter matching few chunks far
 * from the query still fills its page, because the filter runs inside pgvector's
 * iterative HNSW scan (shown against the same scan with iterative scans off). The same
 * suite runs on PGlite and on PostgreSQL; a PostgreSQL without pgvector, where the
 * migration left case_chunks out, is reported as a skip.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  RawNode,
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { LocalUseEmbedder } from '../../src/adapters/embeddings/local-use-embedder.ts';
import { PostgresVectorIndex, vectorStoreAvailable } from '../../src/adapters/postgres/vector-index.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { USE_LITE_CHUNKING } from '../../src/domain/semantic/chunking.ts';
import { VECTOR_SEARCH_MAX_DEPTH, type VectorFilters } from '../../src/ports/vector-index.ts';
import { EmbeddingProjector } from '../../src/projections/embedding-projector.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const now = () => new Date('2026-01-01T00:00:00Z');
const embedder = new LocalUseEmbedder();
const CHUNKING = { ...USE_LITE_CHUNKING, maxChunks: 2 };

function parse(vector: string): number[] {
  return vector.slice(1, -1).split(',').map(Number);
}

/** Runs the adapter's own ranked queries (those with an ORDER BY) under EXPLAIN ANALYZE and keeps their plans. */
class ExplainRankedQueries implements KyselyPlugin {
  readonly plans: string[] = [];

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (node.kind !== 'RawNode' || !node.sqlFragments.join(' ').includes('order by')) return node;
    const [first = '', ...rest] = node.sqlFragments;
    return RawNode.create([`explain (analyze, costs off) ${first}`, ...rest], node.parameters);
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const lines = result.rows.map((row) => String(Object.values(row)[0]));
    if (lines.some((l) => l.startsWith('Planning Time'))) this.plans.push(lines.join('\n'));
    return result;
  }
}

for (const factory of databases)
  describe(`pgvector index on ${factory.name}`, { timeout: 600_000 }, () => {
    let database: TestDatabase;
    let available = false;
    let index: PostgresVectorIndex;

    before(async () => {
      database = await factory.open();
      available = await vectorStoreAvailable(database.db);
      if (!available) return;
      await ingestCorpus({ db: database.db, corpusDir, now, sources: [scIk50Source, scInAbsSource] });
      const projector = new EmbeddingProjector(database.db, embedder, { kind: database.kind, now, chunking: CHUNKING });
      await projector.catchUp();
      // Statistics as autovacuum soon leaves them on PostgreSQL, so the plans below are planned
      // knowing the table is small: exactly where a planner would rather sort than walk the graph.
      await sql`analyze case_chunks`.execute(database.db);
      index = new PostgresVectorIndex(database.db, { model: embedder.model, dimensions: embedder.dimensions });
    });
    after(async () => database.close());

    const test = (name: string, fn: () => Promise<void>) =>
      it(name, async (t) => {
        if (!available) {
          t.skip(`${factory.name} has no pgvector: case_chunks was not created`);
          return;
        }
        await fn();
      });

    /** A stored chunk's vector, its case, and that case's filter columns. */
    async function chunkOf(caseId: string) {
      return database.db
        .selectFrom('caseChunks')
        .selectAll()
        .where('caseId', '=', caseId)
        .where('chunkNo', '=', 1)
        .executeTakeFirstOrThrow();
    }

    async function matching(filter: (q: ReturnType<typeof database.db.selectFrom<'caseChunks'>>) => typeof q): Promise<string[]> {
      const rows = await filter(database.db.selectFrom('caseChunks')).select('caseId').distinct().where('withheld', '=', false).execute();
      return rows.map((r) => r.caseId).sort();
    }

    test('a passage from a judgment finds its own case first', async () => {
      const cases = await database.db.selectFrom('caseChunks').select('caseId').distinct().orderBy('caseId').limit(8).execute();
      assert.equal(cases.length, 8);
      for (const { caseId } of cases) {
        const vector = parse((await chunkOf(caseId)).embedding);
        const result = await index.search({ vector, filters: {}, offset: 0, limit: 5 });
        assert.equal(result.hits[0]?.caseId, caseId);
        assert.ok((result.hits.at(0)?.similarity ?? 0) > 0.99);
        assert.equal(result.hits.length, 5);
        assert.ok(result.hits.every((h, i) => i === 0 || h.similarity <= (result.hits[i - 1]?.similarity ?? 1)));
      }
    });

    test('embeds the full-text subset, about 149 judgments', async () => {
      const n = await database.db
        .selectFrom('caseChunks')
        .select(sql<number>`count(distinct case_id)`.as('n'))
        .executeTakeFirstOrThrow();
      assert.ok(n.n >= 140 && n.n <= 150, `embedded ${String(n.n)} cases`);
    });

    test('every filter holds on every hit and leaves no match out', async () => {
      const sample = await chunkOf('sc-inabs-78');
      const vector = parse(sample.embedding);
      const withJudge = await database.db
        .selectFrom('caseChunks')
        .selectAll()
        .where(sql<boolean>`cardinality(judges) > 0`)
        .where('decisionYear', 'is not', null)
        .where('caseType', 'is not', null)
        .orderBy('caseId')
        .executeTakeFirstOrThrow();
      const judge = withJudge.judges[0] ?? '';
      const year = withJudge.decisionYear ?? 0;
      const cases: [string, VectorFilters, string[]][] = [
        ['court', { courtCodes: ['SC'] }, await matching((q) => q.where('courtCode', '=', 'SC'))],
        ['no such court', { courtCodes: ['XX'] }, []],
        ['case type', { caseTypes: [withJudge.caseType ?? ''] }, await matching((q) => q.where('caseType', '=', withJudge.caseType))],
        ['judge', { judges: [judge] }, await matching((q) => q.where(sql<boolean>`judges && ${[judge]}::text[]`))],
        ['year', { years: [year] }, await matching((q) => q.where('decisionYear', '=', year))],
        ['case number', { caseNumbers: [withJudge.caseNumberKey] }, [withJudge.caseId]],
        [
          'date range',
          { fromDate: '1960-01-01', toDate: '1979-12-31' },
          await matching((q) => q.where('decisionDate', '>=', '1960-01-01').where('decisionDate', '<=', '1979-12-31')),
        ],
      ];
      for (const [name, filters, expected] of cases) {
        const found: string[] = [];
        for (let offset = 0; ; offset += 100) {
          const result = await index.search({ vector, filters, offset, limit: 100 });
          found.push(...result.hits.map((h) => h.caseId));
          if (result.exhausted) {
            assert.equal(result.total, expected.length, name);
            break;
          }
        }
        assert.deepEqual(found.sort(), expected, name);
      }
      assert.ok(cases.every(([name, , expected]) => name === 'no such court' || expected.length > 0));
      assert.ok((cases.at(0)?.[2].length ?? 0) > 100);
    });

    test('pages join up into the single long page, and total becomes exact at the end', async () => {
      const vector = parse((await chunkOf('sc-inabs-232')).embedding);
      const whole = await index.search({ vector, filters: {}, offset: 0, limit: 100 });
      const paged: string[] = [];
      for (let offset = 0; offset < 100; offset += 10) {
        const page = await index.search({ vector, filters: {}, offset, limit: 10 });
        assert.ok(page.total >= offset + page.hits.length + (page.exhausted ? 0 : 1));
        paged.push(...page.hits.map((h) => h.caseId));
      }
      assert.deepEqual(
        paged,
        whole.hits.map((h) => h.caseId),
      );
      const last = await index.search({ vector, filters: {}, offset: 140, limit: 20 });
      assert.equal(last.exhausted, true);
      assert.equal(last.total, 140 + last.hits.length);
    });

    test('a withheld case is never returned but is reported', async () => {
      const target = 'sc-inabs-266';
      const vector = parse((await chunkOf(target)).embedding);
      assert.equal((await index.search({ vector, filters: {}, offset: 0, limit: 3 })).hits[0]?.caseId, target);
      await database.db.updateTable('cases').set({ restricted: true }).where('caseId', '=', target).execute();
      const projector = new EmbeddingProjector(database.db, embedder, { kind: database.kind, now, chunking: CHUNKING });
      assert.equal(await projector.catchUp(), 1);
      assert.deepEqual(projector.progress, { read: 1, embedded: 0, updated: 1, removed: 0, chunks: 0 });
      const result = await index.search({ vector, filters: {}, offset: 0, limit: 3 });
      assert.ok(!result.hits.some((h) => h.caseId === target));
      assert.equal(result.hits.length, 3);
      assert.equal(result.withheld, true);
      const all = await index.search({ vector, filters: {}, offset: 0, limit: 100 });
      assert.ok(!all.hits.some((h) => h.caseId === target));
    });

    test('the deepest accepted page walks the HNSW index, never a scan, and a deeper one is refused before any SQL', async () => {
      const explain = new ExplainRankedQueries();
      // exactFilteredMax 0: every filter here is walked (the test corpus is small enough for any filter to be ranked exactly).
      const explained = new PostgresVectorIndex(database.db.withPlugin(explain), {
        model: embedder.model,
        dimensions: embedder.dimensions,
        exactFilteredMax: 0,
      });
      const vector = parse((await chunkOf('sc-inabs-232')).embedding);
      const limit = 100;
      const deepest = { vector, offset: VECTOR_SEARCH_MAX_DEPTH - limit, limit };
      for (const filters of [{}, { courtCodes: ['SC'] }, { years: [1987, 1988] }] satisfies VectorFilters[]) {
        explain.plans.length = 0;
        await explained.search({ ...deepest, filters });
        assert.ok(explain.plans.length >= 1 && explain.plans.length <= 2, `${String(explain.plans.length)} walks`);
        for (const plan of explain.plans) {
          assert.match(plan, /Index Scan using case_chunks_use_lite_512_hnsw_idx on case_chunks/, plan);
          assert.doesNotMatch(plan, /Seq Scan|Bitmap/, plan);
        }
      }
      explain.plans.length = 0;
      await assert.rejects(explained.search({ ...deepest, offset: deepest.offset + 1, filters: {} }), RangeError);
      assert.deepEqual(explain.plans, []);
    });

    test('a filter keeping few chunks is ranked exactly through its own index, a broader one walks the graph', async () => {
      const probe = await chunkOf('sc-inabs-314');
      const vector = parse(probe.embedding);
      const distance = sql`(embedding::vector(512)) <=> ${probe.embedding}::vector(512)`;
      const busiest = await sql<{ year: number; n: number }>`select decision_year as year, count(*)::int as n from case_chunks
        where decision_year is not null and not withheld group by 1 order by 2 desc, 1 limit 1`.execute(database.db);
      const year = busiest.rows[0];
      assert.ok(year && year.n > 1);
      const exact = await sql<{
        caseId: string;
      }>`select case_id from case_chunks where model = 'use-lite-512' and decision_year = ${year.year}
        and not withheld group by case_id order by min(${distance}), case_id`.execute(database.db);

      const ranked = async (exactFilteredMax: number) => {
        const options = { model: embedder.model, dimensions: embedder.dimensions, exactFilteredMax };
        const query = { vector, filters: { years: [year.year] }, offset: 0, limit: 100 };
        const result = await new PostgresVectorIndex(database.db, options).search(query);
        // The same search again with its ranked statements explained instead of answered.
        const explain = new ExplainRankedQueries();
        await new PostgresVectorIndex(database.db.withPlugin(explain), options).search(query).catch(() => undefined);
        return { result, plans: explain.plans };
      };
      const few = await ranked(year.n);
      assert.deepEqual(
        few.result.hits.map((h) => h.caseId),
        exact.rows.map((r) => r.caseId),
        'every case of the year, in exact order',
      );
      assert.equal(few.result.total, exact.rows.length);
      assert.equal(few.result.exhausted, true);
      assert.equal(few.plans.length, 1);
      assert.doesNotMatch(few.plans[0] ?? '', /hnsw_idx|Seq Scan/, few.plans[0]);
      assert.match(few.plans[0] ?? '', /case_chunks_(year|court_year)_idx/, few.plans[0]);

      const many = await ranked(year.n - 1);
      assert.ok(many.plans.length >= 1);
      for (const plan of many.plans) assert.match(plan, /Index Scan using case_chunks_use_lite_512_hnsw_idx on case_chunks/, plan);
    });

    test('a filter matching few chunks far from the query still fills the page, through the HNSW index', async () => {
      const options = { model: embedder.model, dimensions: embedder.dimensions, efSearch: 10, exactFilteredMax: 0 };
      const forced = new PostgresVectorIndex(database.db, options);
      const probe = await chunkOf('sc-inabs-314');
      const vector = parse(probe.embedding);
      const distance = sql`(embedding::vector(512)) <=> ${probe.embedding}::vector(512)`;
      // The decade whose cases lie farthest from the query, with more cases than a page.
      const decades = await sql<{ decade: number; n: number; distance: number }>`
        select (decision_year / 10) * 10 as decade, count(distinct case_id)::int as n, avg(${distance}) as distance
        from case_chunks where decision_year is not null and not withheld group by 1 having count(distinct case_id) >= 6
        order by distance desc limit 1`.execute(database.db);
      const far = decades.rows[0];
      assert.ok(far);
      const years = Array.from({ length: 10 }, (_, i) => far.decade + i);
      const inDecade = sql<boolean>`model = 'use-lite-512' and decision_year = any(${years}::int[])`;
      const result = await forced.search({ vector, filters: { years }, offset: 0, limit: 5 });
      assert.equal(result.hits.length, 5, 'a full page');
      // The exact answer: every chunk of the decade ranked, each case by its best chunk.
      const exact = await sql<{ caseId: string }>`select case_id from case_chunks where ${inDecade} and not withheld
        group by case_id order by min(${distance}), case_id limit 5`.execute(database.db);
      assert.deepEqual(
        result.hits.map((h) => h.caseId),
        exact.rows.map((r) => r.caseId),
      );
      const explain = new ExplainRankedQueries();
      await new PostgresVectorIndex(database.db.withPlugin(explain), options).search({ vector, filters: { years }, offset: 0, limit: 5 });
      assert.ok(explain.plans.length >= 1);
      for (const plan of explain.plans) assert.match(plan, /Index Scan using case_chunks_use_lite_512_hnsw_idx on case_chunks/, plan);

      // The same index scan without iterative scans stops at ef_search candidates and comes back short.
      const plain = await database.db.transaction().execute(async (trx) => {
        for (const setting of ['enable_sort', 'enable_seqscan', 'enable_bitmapscan', 'hnsw.iterative_scan']) {
          await sql`select set_config(${setting}, 'off', true)`.execute(trx);
        }
        await sql`set local hnsw.ef_search = 10`.execute(trx);
        const query = sql<{ caseId: string }>`select case_id from case_chunks where ${inDecade} order by ${distance} limit 10`;
        const plan = await sql<Record<string, string>>`explain (costs off) ${query}`.execute(trx);
        return { plan: plan.rows.map((r) => Object.values(r).join('')).join('\n'), found: (await query.execute(trx)).rows.length };
      });
      assert.match(plain.plan, /Index Scan using case_chunks_use_lite_512_hnsw_idx on case_chunks/, plain.plan);
      assert.ok(plain.found < 10, `without iterative scans the filtered scan returned ${String(plain.found)} of 10 chunks`);
    });
  });
