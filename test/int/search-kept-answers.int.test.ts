/**
 * The PostgreSQL index's kept answers (`keepAnswers`, on when it is the only writer: PGlite):
 * the same request is answered from memory, and never stale: a write (upsert or remove)
 * empties them, and an answer read while a write was under way is not kept. Without
 * `keepAnswers` every search reads the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import type { SearchDocument, SearchRequest } from '../../src/ports/search-index.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { civilAppeal } from '../support/search-document.ts';

function doc(i: number, respondent: string, withheld = false): SearchDocument {
  return civilAppeal(`kept-${String(i).padStart(4, '0')}`, i, {
    petitioner: `Petitioner ${String(i)}`,
    respondent,
    decisionDate: '2010-05-01',
    withheld,
  });
}

const request = (query: string, offset = 0): SearchRequest => ({ query, filters: {}, sort: 'relevance', offset, limit: 20 });
const ids = (r: { hits: readonly { caseId: string }[] }) => r.hits.map((h) => h.caseId).sort();

for (const factory of databases)
  describe(`kept search answers on ${factory.name}`, () => {
    let database: TestDatabase;
    let index: PostgresSearchIndex;

    before(async () => {
      database = await factory.open();
      index = new PostgresSearchIndex(database.db, { keepAnswers: true });
      await index.upsert([1, 2, 3].map((i) => doc(i, 'State of Punjab')));
    });

    after(async () => {
      await database.close();
    });

    it('answers the same request from memory, and a different page or query from the database', async () => {
      const first = await index.search(request('state of punjab'));
      assert.deepEqual(ids(first), ['kept-0001', 'kept-0002', 'kept-0003']);
      assert.equal(await index.search(request('state of punjab')), first);
      assert.notEqual(await index.search(request('state of punjab', 1)), first);
      assert.notEqual(await index.search(request('punjab')), first);
    });

    it('finds a case upserted after the answer was kept, drops a removed one, and reports a withheld one', async () => {
      const before = await index.search(request('state of punjab'));
      await index.upsert([doc(4, 'State of Punjab')]);
      const added = await index.search(request('state of punjab'));
      assert.notEqual(added, before);
      assert.deepEqual(ids(added), ['kept-0001', 'kept-0002', 'kept-0003', 'kept-0004']);
      await index.remove(['kept-0002']);
      assert.deepEqual(ids(await index.search(request('state of punjab'))), ['kept-0001', 'kept-0003', 'kept-0004']);
      await index.upsert([doc(3, 'State of Punjab', true)]);
      const withheld = await index.search(request('state of punjab'));
      assert.deepEqual(ids(withheld), ['kept-0001', 'kept-0004']);
      assert.equal(withheld.withheld, true);
    });

    it('does not keep an answer read while a write was under way', async () => {
      const writing = index.upsert([doc(5, 'State of Punjab')]);
      const during = await index.search(request('state of punjab'));
      await writing;
      const after = await index.search(request('state of punjab'));
      assert.notEqual(after, during);
      assert.ok(ids(after).includes('kept-0005'));
      assert.equal(await index.search(request('state of punjab')), after);
    });

    it('keeps nothing without keepAnswers', async () => {
      const plain = new PostgresSearchIndex(database.db);
      const first = await plain.search(request('state of punjab'));
      assert.notEqual(await plain.search(request('state of punjab')), first);
      assert.deepEqual(ids(await plain.search(request('state of punjab'))), ids(first));
    });
  });
