/**
 * The restricted-record check of both searches, through the real app on both databases:
 * a case restricted after the indexes were fed is left out of keyword and semantic results
 * and counted as withheld; and when the check itself fails (a lookup that errors, or one
 * that never answers), the searches still answer 200 with every result masked and
 * meta.restrictedCheckDegraded true, uncharged. The failing check is injected through the
 * wiring's own dependency parameter. The vector index here is a stand-in that still shows
 * the restricted case, as a vector index not yet re-projected does, so the semantic path
 * runs on PostgreSQL without pgvector too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import type { CaseRestrictions } from '../../src/ports/case-restrictions.ts';
import type { VectorIndex } from '../../src/ports/vector-index.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { createAccessFixture, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

const operator = { kind: 'operator' } as const;
type Json = Record<string, unknown>;

/** Finds a page of Indian Kanoon judgments, whose records carry titles and party names. */
const QUERY = 'appeal';

for (const factory of databases)
  describe(`restricted-record check of both searches on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let fixture: AccessFixture;
    let healthy: TestApp;
    let failing: TestApp;
    let silent: TestApp;
    /** What the stand-in vector index returns: the keyword hits of QUERY, as if nearest. */
    let nearest: string[] = [];
    const clock = new SettableClock(new Date('2026-11-20T10:00:00Z'));

    const staleVectors: VectorIndex = {
      search: async ({ offset, limit }) => ({
        hits: nearest.slice(offset, offset + limit).map((caseId, i) => ({ caseId, similarity: 0.9 - i / 100 })),
        total: nearest.length,
        exhausted: true,
        withheld: false,
      }),
      ping: async () => undefined,
    };
    const brokenCheck: CaseRestrictions = { statesOf: () => Promise.reject(new Error('permission denied for table cases')) };
    const hungCheck: CaseRestrictions = { statesOf: () => new Promise(() => undefined) };

    const call = async (t: TestApp, path: string, body: unknown) => {
      const res = await t.app.request(`${BASE}${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { res, body: (await res.json()) as Json };
    };
    const balance = async () => (await healthy.application.credits.balance(fixture.organizationId)).balance;

    before(async () => {
      database = await factory.open();
      const index = new PostgresSearchIndex(database.db);
      const common = { db: database.db, clock, index, vectors: staleVectors };
      healthy = buildTestApp(common);
      failing = buildTestApp({ ...common, restrictions: brokenCheck });
      silent = buildTestApp({ ...common, restrictions: hungCheck });
      fixture = await createAccessFixture(healthy.application.accounts, clock);
      await healthy.application.credits.grant(fixture.organizationId, { amount: 100_000, source: 'grant' });
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scIk50Source] });
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
      const open = (await call(healthy, '/search/cases', { query: QUERY })).body.data as Json[];
      nearest = open.map((d) => d.caseId as string);
      assert.ok(nearest.length >= 2, `the query finds ${String(nearest.length)} cases`);
      assert.ok(open.every((d) => typeof d.title === 'string' && (d.parties as { petitioners: unknown[] }).petitioners.length > 0));
    });
    after(async () => {
      await database.close();
    });

    it('a check that fails answers both searches 200 with every title and party masked, flagged, and uncharged', async () => {
      for (const [t, label] of [
        [failing, 'a failing lookup'],
        [silent, 'a lookup that never answers'],
      ] as const) {
        for (const path of ['/search/cases', '/search/cases/semantic']) {
          const before = await balance();
          const { res, body } = await call(t, path, { query: QUERY });
          assert.equal(res.status, 200, `${label} ${path}: ${JSON.stringify(body)}`);
          assert.equal(body.success, true);
          assert.equal((body.meta as Json).restrictedCheckDegraded, true, `${label} ${path}`);
          const data = body.data as Json[];
          assert.deepEqual(
            data.map((d) => d.caseId),
            nearest,
            `${label} ${path}: the same page, masked`,
          );
          for (const d of data) {
            assert.equal(d.title, null);
            assert.deepEqual(d.parties, { petitioners: [], respondents: [] });
            assert.equal(typeof d.caseNumber, 'string');
          }
          assert.equal(res.headers.get('X-Credits-Charged'), '0');
          assert.match(res.headers.get('Cache-Control') ?? '', /no-store/);
          assert.equal(await balance(), before, `${label} ${path} is not charged`);
        }
      }
      assert.ok(failing.logs.some((l) => l.includes('restricted-record check failed')));
      assert.ok(silent.logs.some((l) => l.includes('RestrictionCheckTimeout')));
    });

    it('the same searches answer unmasked and charged when the check works', async () => {
      for (const [path, price] of [
        ['/search/cases', '5'],
        ['/search/cases/semantic', '10'],
      ] as const) {
        const { res, body } = await call(healthy, path, { query: QUERY });
        assert.equal((body.meta as Json).restrictedCheckDegraded, false, path);
        assert.ok(
          (body.data as Json[]).every((d) => typeof d.title === 'string'),
          path,
        );
        assert.equal(res.headers.get('X-Credits-Charged'), price, path);
        assert.equal(res.headers.get('Cache-Control'), null, path);
      }
    });

    it('a case restricted after the indexes were fed is not returned by either search, and is counted as withheld', async () => {
      const [target] = nearest;
      assert.ok(target);
      const restricted = await healthy.application.cases.restrict(target, operator);
      assert.ok(restricted.ok);
      // No projector runs: both indexes still show the case as open.
      for (const path of ['/search/cases', '/search/cases/semantic']) {
        const { res, body } = await call(healthy, path, { query: QUERY });
        assert.equal(res.status, 200);
        const ids = (body.data as Json[]).map((d) => d.caseId);
        assert.ok(!ids.includes(target), `${path} returned the restricted case`);
        assert.deepEqual(ids, nearest.slice(1), path);
        const meta = body.meta as Json;
        assert.deepEqual([meta.someRecordsWithheld, meta.restrictedCheckDegraded], [true, false], path);
      }
    });
  });
