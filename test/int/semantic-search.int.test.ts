/**
 * POST /search/cases/semantic through the real app over real judgments: wherever pgvector
 * is (PGlite always, PostgreSQL with the extension) the vector path (the local model embeds
 * the cases; pgvector finds them); on a PostgreSQL without it, where the migration left
 * case_chunks out, the keyword fallback, flagged and charged at the keyword price. The
 * Free tier is refused before anything else, and nothing is charged for any refusal.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { vectorStoreAvailable } from '../../src/adapters/postgres/vector-index.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { USE_LITE_CHUNKING } from '../../src/domain/semantic/chunking.ts';
import { EmbeddingProjector } from '../../src/projections/embedding-projector.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { createAccessFixture, enterpriseUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, testEmbedder, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import type { SearchIndex } from '../../src/ports/search-index.ts';
import { VECTOR_SEARCH_MAX_DEPTH, type VectorIndex } from '../../src/ports/vector-index.ts';

const operator = { kind: 'operator' } as const;
type Json = Record<string, unknown>;

for (const factory of databases)
  describe(`POST /search/cases/semantic on ${factory.name}`, { timeout: 600_000 }, () => {
    let database: OpenedDatabase;
    let t: TestApp;
    let fixture: AccessFixture;
    let freeKey: string;
    let vectors = false;
    const clock = new SettableClock(new Date('2026-11-20T10:00:00Z'));

    const search = async (body: unknown, key = fixture.keys.active, app = t, headers: Record<string, string> = {}) => {
      const res = await app.app.request(`${BASE}/search/cases/semantic`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { res, body: (await res.json()) as Json };
    };
    const balance = async () => (await t.application.credits.balance(fixture.organizationId)).balance;
    async function cost(work: () => Promise<unknown>): Promise<number> {
      const before = await balance();
      await work();
      return before - (await balance());
    }

    before(async () => {
      database = await factory.open();
      const index = new PostgresSearchIndex(database.db);
      t = buildTestApp({ db: database.db, clock, index, entitledTiers: ['enterprise', 'free'] });
      fixture = await createAccessFixture(t.application.accounts, clock);
      await t.application.credits.grant(fixture.organizationId, { amount: 100_000, source: 'grant' });
      const free = await t.application.accounts.registerUser(
        enterpriseUser('free@lawfirm.example', { organizationId: fixture.organizationId, tier: 'free' }),
        operator,
      );
      assert.ok(free.ok);
      const key = await t.application.accounts.createKey(free.value.userId, 'free', operator);
      assert.ok(key.ok);
      freeKey = key.value.fullKey;
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scIk50Source, scInAbsSource] });
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
      vectors = await vectorStoreAvailable(database.db);
      if (vectors) {
        const chunking = { ...USE_LITE_CHUNKING, maxChunks: 2 };
        await new EmbeddingProjector(database.db, testEmbedder(), { kind: database.kind, now: () => clock.now(), chunking }).catchUp();
      }
    });
    after(async () => {
      await database.close();
    });

    it('refuses the Free tier with 403 SEMANTIC_NOT_ALLOWED before validation, work or charge', async () => {
      const charged = await cost(async () => {
        for (const body of [{ query: 'land acquisition compensation' }, { query: 'x' }]) {
          const { res, body: answer } = await search(body, freeKey);
          assert.deepEqual([res.status, answer.code], [403, 'SEMANTIC_NOT_ALLOWED']);
        }
      });
      assert.equal(charged, 0);
    });

    it('refuses a query under 3 characters and an unknown filter court, uncharged', async () => {
      const charged = await cost(async () => {
        assert.equal((await search({ query: 'ab' })).body.code, 'VALIDATION_ERROR');
        const court = await search({ query: 'land acquisition', filters: { court: 'Court of Narnia' } });
        assert.equal(court.body.code, 'VALIDATION_ERROR');
        assert.match((court.body.details as string[])[0]!, /^filters\.court:/);
      });
      assert.equal(charged, 0);
    });

    it('finds a judgment by a passage of its text, with similarity, and charges 10 (or 5 on the keyword fallback)', async () => {
      const target = await database.db
        .selectFrom('cases')
        .select(['caseId', 'text'])
        .where('source', '=', 'sc-judgments-text-ik50')
        .orderBy('caseId')
        .executeTakeFirstOrThrow();
      const passage = (target.text ?? '').slice(0, 1500);
      let answer: Json = {};
      const charged = await cost(async () => {
        answer = (await search({ query: passage, limit: 5, court: 'ignored at top level', sortBy: 'oldest' })).body;
      });
      const data = answer.data as Json[];
      const meta = answer.meta as Json;
      if (vectors) {
        assert.equal(charged, 10);
        assert.equal(meta.fallbackMode, undefined);
        assert.equal(data[0]?.caseId, target.caseId, JSON.stringify(data.map((d) => [d.caseId, d.similarity])));
        const best = data.at(0)?.similarity;
        assert.ok(typeof best === 'number' && best > 0.8, String(best));
        for (let i = 1; i < data.length; i += 1) assert.ok((data[i - 1]!.similarity as number) >= (data[i]!.similarity as number));
      } else {
        assert.equal(charged, 5);
        assert.equal(meta.fallbackMode, 'opensearch');
        for (const d of data) assert.equal(d.similarity, null);
      }
      // The top-level court is inert; a court the passage itself names is inferred (and says so).
      const applied = meta.appliedFilters as { court?: string[]; inferredFromQuery: string[] };
      assert.deepEqual(applied.court ?? [], applied.inferredFromQuery.includes('court') ? ['Supreme Court of India'] : []);
    });

    it('merges filters the query names under the caller’s and caps limit at 100', async () => {
      const { res, body } = await search({
        query: 'appeals against acquittal decided in 1987',
        limit: 500,
        filters: { court: 'Supreme Court' },
      });
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal((body.pagination as Json).limit, 100);
      const applied = (body.meta as Json).appliedFilters as Json;
      assert.deepEqual([applied.court, applied.caseYear, applied.inferredFromQuery], [['Supreme Court of India'], [1987], ['caseYear']]);
    });

    it('pages reach the vector index depth bound and no further: deeper is 400 PAGINATION_DEPTH_EXCEEDED, uncharged', async () => {
      const limit = 100;
      const deepest = await search({ query: 'land acquisition compensation', limit, page: VECTOR_SEARCH_MAX_DEPTH / limit });
      assert.equal(deepest.res.status, 200, JSON.stringify(deepest.body));
      assert.equal(deepest.body.success, true);
      const charged = await cost(async () => {
        const deeper = await search({ query: 'land acquisition compensation', limit, page: VECTOR_SEARCH_MAX_DEPTH / limit + 1 });
        assert.deepEqual([deeper.res.status, deeper.body.code], [400, 'PAGINATION_DEPTH_EXCEEDED']);
      });
      assert.equal(charged, 0);
    });

    it('once the search runs, a failure of both the vector path and the keyword fallback is 200 success false UPSTREAM_UNAVAILABLE, uncharged and not replayed', async () => {
      const down = (what: string) => () => Promise.reject(new Error(`${what} is down`));
      const vectorsDown: VectorIndex = { search: down('vector index'), ping: down('vector index') };
      const indexDown: SearchIndex = {
        name: 'postgres',
        checkpointKey: 'postgres',
        writeBatchSize: 200,
        search: down('search index'),
        upsert: down('search index'),
        remove: down('search index'),
        ping: down('search index'),
      };
      const broken = buildTestApp({ db: database.db, clock, index: indexDown, vectors: vectorsDown });
      const body = { query: 'land acquisition compensation', limit: 5 };
      const key = { 'Idempotency-Key': 'semantic-in-band-failure-1' };
      let failed = { res: new Response(), body: {} as Json };
      const charged = await cost(async () => {
        failed = await search(body, fixture.keys.active, broken, key);
      });
      assert.equal(charged, 0);
      assert.equal(failed.res.status, 200);
      assert.deepEqual(Object.keys(failed.body).sort(), ['code', 'error', 'message', 'requestId', 'success']);
      assert.deepEqual([failed.body.success, failed.body.code], [false, 'UPSTREAM_UNAVAILABLE']);
      assert.equal(failed.body.requestId, failed.res.headers.get('X-Request-Id'));
      assert.equal(failed.res.headers.get('X-Credits-Charged'), null);
      assert.match(failed.res.headers.get('Cache-Control') ?? '', /no-store/);
      // Not stored: the same key and body run again, here on the working app, and are charged then.
      const retried = await search(body, fixture.keys.active, t, key);
      assert.equal(retried.body.success, true);
      assert.equal(retried.res.headers.get('Idempotency-Replayed'), null);
      // A refusal decided before the search runs keeps its own status, on the broken app too.
      const refused = await search({ query: 'ab' }, fixture.keys.active, broken);
      assert.deepEqual([refused.res.status, refused.body.code], [400, 'VALIDATION_ERROR']);
    });

    it('filters by case number inside the vector search, with an exact total', async (c) => {
      if (!vectors) {
        c.skip('no pgvector on this PostgreSQL (case_chunks not created): the keyword fallback cannot filter by case number');
        return;
      }
      const { body } = await search({ query: 'compensation under a civil appeal', filters: { caseNumber: 'CA 56/1987' } });
      assert.deepEqual(
        (body.data as Json[]).map((d) => d.caseId),
        ['sc-inabs-5861'],
      );
      assert.deepEqual((body.pagination as Json).exact, true);
      assert.deepEqual(((body.meta as Json).appliedFilters as Json).caseNumber, ['CA 56/1987']);
    });
  });
