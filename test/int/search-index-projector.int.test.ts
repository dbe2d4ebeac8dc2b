/**
 * The search-index projector over the real case store, on PGlite and PostgreSQL: an
 * ingested slice of the corpus becomes searchable, a restriction makes its case withheld,
 * a crash mid-way resumes from the saved checkpoint without losing or re-reading rows,
 * and (PostgreSQL, which has concurrent sessions) a row committed late is not skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.ts';
import { CaseRestrictionService } from '../../src/application/cases/case-restriction-service.ts';
import { openPostgres, type OpenedDatabase } from '../../src/db/open.ts';
import type { SearchDocument, SearchIndex } from '../../src/ports/search-index.ts';
import { caseChangesPending } from '../../src/projections/case-change-feed.ts';
import { SearchIndexProjector, searchIndexProjectorName } from '../../src/projections/search-index-projector.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { ingestSlice } from '../support/search-corpus.ts';

const now = () => new Date('2026-01-01T00:00:00Z');
const DANA_YADAV = 'sc-10567-2000-19020213'; // Crl.A. No.-001156-001157 - 2001
const ROWS = 1000;

/** An index that fails on its nth upsert, as a crash between batches would. */
function failingOn(n: number, inner: SearchIndex): SearchIndex {
  let calls = 0;
  return {
    name: inner.name,
    checkpointKey: inner.checkpointKey,
    writeBatchSize: inner.writeBatchSize,
    search: (r) => inner.search(r),
    remove: (ids) => inner.remove(ids),
    ping: () => inner.ping(),
    upsert: async (docs: readonly SearchDocument[]) => {
      calls += 1;
      if (calls === n) throw new Error('simulated crash');
      await inner.upsert(docs);
    },
  };
}

async function count(database: OpenedDatabase, table: 'cases' | 'searchDocuments'): Promise<number> {
  const row = await database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return row.n;
}

for (const factory of databases)
  describe(`search-index projector on ${factory.name}`, { timeout: 180_000 }, () => {
    let database: TestDatabase;
    let index: PostgresSearchIndex;

    before(async () => {
      database = await factory.open();
      await ingestSlice(database.db, ROWS);
      index = new PostgresSearchIndex(database.db);
    });
    after(async () => database.close());

    it('resumes from its checkpoint after a crash, losing and repeating nothing', async () => {
      const cases = await count(database, 'cases');
      const crashing = new SearchIndexProjector(database.db, failingOn(3, index), { kind: database.kind, now, batchSize: 100 });
      await assert.rejects(crashing.catchUp(), /simulated crash/);
      assert.equal(await count(database, 'searchDocuments'), 200);

      const resumed = new SearchIndexProjector(database.db, index, { kind: database.kind, now, batchSize: 100 });
      assert.equal(await resumed.catchUp(), cases - 200, 'reads only what the checkpoint has not covered');
      assert.equal(await count(database, 'searchDocuments'), cases);
      assert.equal(await resumed.runOnce(), 0);

      await index.remove(['sc-10567-2000-19020213']);
      assert.equal(await resumed.rebuild(), cases, 'a rebuild re-reads every case');
      assert.equal(await count(database, 'searchDocuments'), cases);
    });

    it('makes ingested cases searchable by their other printed forms', async () => {
      const found = await index.search({
        query: 'Criminal Appeal Nos. 1156-1157 of 2001',
        filters: {},
        sort: 'relevance',
        offset: 0,
        limit: 10,
      });
      assert.equal(found.hits[0]?.caseId, DANA_YADAV);
    });

    it('withholds a case once it is restricted', async () => {
      const projector = new SearchIndexProjector(database.db, index, { kind: database.kind, now });
      const restrictions = new CaseRestrictionService({ db: database.db, store: new PostgresEventStore(database.db), clock: { now } });
      const restricted = await restrictions.restrict(DANA_YADAV, { kind: 'operator' });
      assert.ok(restricted.ok);
      const name = searchIndexProjectorName(index);
      assert.equal(await caseChangesPending(database.db, name), true, 'the polling loop sees the change');
      assert.equal(await projector.catchUp(), 1, 'only the restricted row changed');
      assert.equal(await caseChangesPending(database.db, name), false, 'and then sees nothing left');
      const found = await index.search({ query: 'Dana Yadav', filters: {}, sort: 'relevance', offset: 0, limit: 10 });
      assert.ok(!found.hits.some((h) => h.caseId === DANA_YADAV));
      assert.equal(found.withheld, true);
    });

    it('runs in the background from start() until stop()', async () => {
      const projector = new SearchIndexProjector(database.db, index, { kind: database.kind, now, idleMs: 20 });
      projector.start();
      await database.db.updateTable('cases').set({ title: 'DANA YADAV ALIAS DAHU' }).where('caseId', '=', DANA_YADAV).execute();
      const deadline = Date.now() + 10_000;
      let withheld = false;
      while (!withheld && Date.now() < deadline) {
        withheld = (await index.search({ query: 'alias', filters: {}, sort: 'relevance', offset: 0, limit: 10 })).withheld;
        await new Promise((r) => setTimeout(r, 20));
      }
      await projector.stop();
      assert.ok(withheld, 'the retitled, still restricted case is indexed as withheld');
    });

    it(
      'never skips a row committed after a later one (PostgreSQL)',
      { skip: factory.name === 'pglite' ? 'PGlite has one session' : false },
      async () => {
        const projector = new SearchIndexProjector(database.db, index, { kind: database.kind, now });
        await projector.catchUp();
        const second = await openPostgres(database.url ?? '', { max: 1 });
        try {
          const [early, late] = await database.db
            .selectFrom('cases')
            .select('caseId')
            .where('restricted', '=', false)
            .orderBy('caseId')
            .limit(2)
            .execute();
          assert.ok(early && late);
          let release!: () => void;
          const held = new Promise<void>((r) => (release = r));
          let started!: () => void;
          const inFlight = new Promise<void>((r) => (started = r));
          // The early transaction takes its transaction id first and commits last.
          const slow = second.db.transaction().execute(async (trx) => {
            await trx.updateTable('cases').set({ restricted: true }).where('caseId', '=', early.caseId).execute();
            started();
            await held;
          });
          await inFlight;
          await database.db.updateTable('cases').set({ restricted: true }).where('caseId', '=', late.caseId).execute();
          assert.equal(await projector.catchUp(), 0, 'nothing is read while an older transaction is in flight');
          release();
          await slow;
          assert.equal(await projector.catchUp(), 2);
          const indexed = await database.db
            .selectFrom('searchDocuments')
            .select(['caseId', 'withheld'])
            .where('caseId', 'in', [early.caseId, late.caseId])
            .orderBy('caseId')
            .execute();
          assert.deepEqual(indexed, [
            { caseId: early.caseId, withheld: true },
            { caseId: late.caseId, withheld: true },
          ]);
        } finally {
          await second.close();
        }
      },
    );
  });
