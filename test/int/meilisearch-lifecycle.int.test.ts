/**
 * The Meilisearch index's life beyond one query, on a private real server (the binary in
 * ../shared/bin) fed from the case store by the real projector, on PostgreSQL when one is
 * configured (as in CI), else on PGlite (the projector's code is one for both, and the
 * contract and projector suites run on each):
 * settings come from a versioned schema (a settings-only version applied in place, a
 * version that changed the documents flagged for a reindex); a full reindex swaps a new
 * index in while searches keep answering; and the projector resumes after Meilisearch is
 * killed and restarted under indexing load, losing nothing and indexing nothing twice; and
 * while it is down, keyword search and the litigation check answer UPSTREAM_UNAVAILABLE,
 * uncharged, and work again once it is back.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Meilisearch } from 'meilisearch';
import { MEILI_MIGRATIONS, MEILI_SETTINGS, MeilisearchSearchIndex, toChunks } from '../../src/adapters/meilisearch/search-index.ts';
import type { IndexMigration } from '../../src/adapters/meilisearch/index-schema.ts';
import type { Db } from '../../src/db/database.ts';
import { caseRowToSearchDocument, SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { createAccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { meilisearchMissing, startMeilisearch, type MeilisearchServer } from '../support/meilisearch.ts';
import { ingestSlice } from '../support/search-corpus.ts';

const now = () => new Date('2026-01-01T00:00:00Z');
const GAUHATI_BAIL = 'hc-GAHC010225502018';
const ROWS = 3000;

/** Every chunk document the cases should make, by id: what a complete, duplicate-free index holds. */
async function expectedChunkIds(db: Db): Promise<Set<string>> {
  const rows = await db.selectFrom('cases').selectAll().execute();
  return new Set(rows.flatMap((row) => toChunks(caseRowToSearchDocument(row)).map((c) => c.id)));
}

/** Every document id in the index, read page by page. */
async function indexedIds(client: Meilisearch, uid: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await client.index<{ id: string }>(uid).getDocuments<{ id: string }>({ fields: ['id'], offset, limit: 1000 });
    ids.push(...page.results.map((d) => d.id));
    if (page.results.length < 1000) return ids;
  }
}

const lifecycleDatabases = databases.some((d) => d.name === 'postgres') ? databases.filter((d) => d.name === 'postgres') : databases;

for (const factory of lifecycleDatabases)
  describe(`Meilisearch index lifecycle on ${factory.name}`, { skip: meilisearchMissing, timeout: 600_000 }, () => {
    let server: MeilisearchServer;
    let client: Meilisearch;
    let database: TestDatabase;
    let expected: Set<string>;
    const open = (uid: string, migrations: readonly IndexMigration[] = MEILI_MIGRATIONS) =>
      MeilisearchSearchIndex.open({ url: server.url, apiKey: server.apiKey, indexUid: uid, migrations });

    before(async () => {
      server = await startMeilisearch();
      client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
      database = await factory.open();
      await ingestSlice(database.db, ROWS);
      expected = await expectedChunkIds(database.db);
    });
    after(async () => {
      await database.close();
      await server.stop();
    });

    it('applies a settings-only schema version in place and flags one that changed the documents', async () => {
      const uid = `schema_${randomUUID().slice(0, 8)}`;
      const first = await open(uid);
      const latest = MEILI_MIGRATIONS.length;
      assert.deepEqual(first.schema, { version: latest, needsReindex: false });
      await new SearchIndexProjector(database.db, first, { kind: database.kind, now }).catchUp();
      const search = (index: MeilisearchSearchIndex, query: string) =>
        index.search({ query, filters: {}, sort: 'relevance', offset: 0, limit: 10 });
      assert.equal((await search(first, 'qqzxbail')).total, 0);

      const synonym: IndexMigration = {
        version: latest + 1,
        description: 'a made-up word for bail',
        settings: { ...MEILI_SETTINGS, synonyms: { ...MEILI_SETTINGS.synonyms, qqzxbail: ['bail'] } },
        reindex: false,
      };
      const second = await open(uid, [...MEILI_MIGRATIONS, synonym]);
      assert.deepEqual(second.schema, { version: latest + 1, needsReindex: false });
      assert.ok((await search(second, 'qqzxbail')).total > 0, 'the new synonym is live');
      assert.equal((await client.index(uid).getStats()).numberOfDocuments, expected.size, 'no document was lost');

      const reshaped: IndexMigration = { version: latest + 2, description: 'documents changed', settings: synonym.settings, reindex: true };
      const third = await open(uid, [...MEILI_MIGRATIONS, synonym, reshaped]);
      assert.deepEqual(
        third.schema,
        { version: latest + 1, needsReindex: true },
        'the live index stays at the last version it can reach in place',
      );
      await new SearchIndexProjector(database.db, third, { kind: database.kind, now }).reindex();
      assert.deepEqual((await open(uid, [...MEILI_MIGRATIONS, synonym, reshaped])).schema, { version: latest + 2, needsReindex: false });
    });

    it('reindexes into a new index and swaps it in while searches keep answering, missing no concurrent change', async () => {
      const uid = `swap_${randomUUID().slice(0, 8)}`;
      const index = await open(uid);
      const projector = new SearchIndexProjector(database.db, index, { kind: database.kind, now, batchSize: 500 });
      await projector.catchUp();

      const searching = { on: true };
      let searches = 0;
      const misses: string[] = [];
      const searcher = (async () => {
        while (searching.on) {
          const found = await index.search({ query: 'GAHC010225502018', filters: {}, sort: 'relevance', offset: 0, limit: 10 }).then(
            (r) => r.hits[0]?.caseId ?? 'no hit',
            (error: unknown) => `error: ${String(error)}`,
          );
          searches += 1;
          if (found !== GAUHATI_BAIL) misses.push(found);
        }
      })();
      // A change committed while the shadow fills must reach the swapped-in index.
      const [changed] = await database.db
        .selectFrom('cases')
        .select('caseId')
        .where('courtCode', '=', 'SC')
        .orderBy('caseId')
        .limit(1)
        .execute();
      assert.ok(changed);
      const reindexing = projector.reindex();
      await database.db.updateTable('cases').set({ title: 'QQZX RETITLED DURING REINDEX' }).where('caseId', '=', changed.caseId).execute();
      const cases = await reindexing;
      await projector.catchUp();
      searching.on = false;
      await searcher;

      assert.ok(cases >= ROWS, `the shadow was filled with every case (${String(cases)})`);
      assert.ok(searches > 10, `searches ran through the reindex (${String(searches)})`);
      assert.deepEqual(misses, [], 'every search during the reindex found the case');
      const retitled = await index.search({ query: 'qqzx retitled', filters: {}, sort: 'relevance', offset: 0, limit: 10 });
      assert.deepEqual(
        retitled.hits.map((h) => h.caseId),
        [changed.caseId],
      );
      const ids = await indexedIds(client, uid);
      assert.equal(ids.length, expected.size);
      assert.deepEqual(new Set(ids), expected);
      const { results } = await client.getIndexes({ limit: 1000 });
      assert.ok(!results.some((i) => i.uid === `${uid}_next`), 'the old index was dropped after the swap');
    });

    it('resumes after Meilisearch is killed and restarted under indexing load: nothing lost, nothing indexed twice', async () => {
      const uid = `restart_${randomUUID().slice(0, 8)}`;
      const index = await open(uid);
      const errors: unknown[] = [];
      const projector = new SearchIndexProjector(database.db, index, {
        kind: database.kind,
        now,
        batchSize: 200,
        idleMs: 50,
        onError: (error) => errors.push(error),
      });
      projector.start();
      const deadline = Date.now() + 240_000;
      while ((await client.index(uid).getStats()).numberOfDocuments === 0) {
        assert.ok(Date.now() < deadline, 'the projector started indexing');
        await new Promise((r) => setTimeout(r, 20));
      }
      await server.kill();
      await new Promise((r) => setTimeout(r, 1_000));
      await server.restart();

      let ids = await indexedIds(client, uid);
      while (ids.length < expected.size) {
        assert.ok(Date.now() < deadline, `the projector caught up after the restart (${String(ids.length)} of ${String(expected.size)})`);
        await new Promise((r) => setTimeout(r, 250));
        ids = await indexedIds(client, uid);
      }
      await projector.stop();
      assert.ok(errors.length > 0, 'the projector saw the outage');
      assert.equal(ids.length, expected.size, 'no document twice, none extra');
      assert.deepEqual(new Set(ids), expected, 'every chunk of every case');
      assert.equal(await projector.runOnce(), 0, 'the checkpoint reached the end of the feed');
    });

    it('while Meilisearch is down, keyword search and the litigation check answer 502 uncharged, and recover', async () => {
      const uid = `outage_${randomUUID().slice(0, 8)}`;
      const index = await open(uid);
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now }).catchUp();
      const clock = new SettableClock(new Date('2026-11-20T10:00:00Z'));
      const t = buildTestApp({ db: database.db, clock, index, parties: index });
      const fixture = await createAccessFixture(t.application.accounts, clock);
      await t.application.credits.grant(fixture.organizationId, { amount: 10_000, source: 'grant' });
      const balance = async () => (await t.application.credits.balance(fixture.organizationId)).balance;
      const post = async (path: string, body: unknown) => {
        const res = await t.app.request(`${BASE}${path}`, {
          method: 'POST',
          headers: { 'X-API-Key': fixture.keys.active, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const search = () => post('/search/cases', { query: 'GAHC010225502018' });
      const screen = () => post('/party/screen', { name: 'Hakam Shah', entityType: 'person', purpose: 'kyc' });
      assert.equal((await search()).status, 200);

      await server.kill();
      try {
        const before = await balance();
        for (const [call, code] of [
          [search, 'UPSTREAM_UNAVAILABLE'],
          [screen, 'PARTY_SCREEN_SEARCH_DEGRADED'],
        ] as const) {
          const answer = await call();
          assert.equal(answer.status, 502, JSON.stringify(answer.body));
          assert.equal(answer.body.code, code);
          assert.ok(!JSON.stringify(answer.body).includes('127.0.0.1'), 'no engine detail leaks');
        }
        assert.equal(await balance(), before, 'nothing charged while the index was down');
      } finally {
        await server.restart();
      }
      const back = await search();
      assert.equal(back.status, 200);
      assert.equal((back.body.data as { caseId: string }[])[0]?.caseId, GAUHATI_BAIL);
      assert.equal((await screen()).status, 200);
    });
  });
