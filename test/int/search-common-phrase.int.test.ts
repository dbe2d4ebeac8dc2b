/**
 * Keyword search on the PostgreSQL full-text index (PGlite and PostgreSQL) for a phrase so
 * common that only a bounded candidate set is scored: the first page must still be ordered
 * by relevance with the exact-phrase matches first, even when the newest matches hold the
 * words apart; every page must come from one order (no case twice, none lost); `total` is
 * exact up to the count bound and saturates there; a misspelt name still finds its cases
 * through the trigram arm when the words find almost nothing; a case with a party named
 * exactly as typed ("Ram Kumar") ranks above the many longer names holding it ("Ram Kumar
 * Sharma"), however old it is, and paging still returns every match once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex, TOTAL_COUNT_CAP } from '../../src/adapters/postgres/search-index.ts';
import type { SearchDocument, SearchRequest } from '../../src/ports/search-index.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { civilAppeal } from '../support/search-document.ts';

/** More than the count bound, so `total` saturates. */
const PHRASE_CASES = 1_100;
/** The words apart, more often than in the phrase cases ("India Cements v. Workers Union and Union Bank of India"), dated after every phrase case. */
const APART_CASES = 60;

function doc(i: number, parties: { petitioner: string; respondent: string }, date: string, text: string | null = null): SearchDocument {
  return civilAppeal(`case-${String(i).padStart(5, '0')}`, i, { ...parties, decisionDate: date, text });
}

function dateOf(daysAfter2000: number): string {
  return new Date(Date.UTC(2000, 0, 1) + daysAfter2000 * 86_400_000).toISOString().slice(0, 10);
}

const phraseCases = Array.from({ length: PHRASE_CASES }, (_, i) =>
  doc(
    i,
    { petitioner: `Petitioner ${String(i)}`, respondent: 'Union of India' },
    dateOf(i),
    // One case with the phrase all through its judgment: the most relevant of them all.
    i === PHRASE_CASES - 1 ? 'The Union of India appealed. '.repeat(40) : null,
  ),
);
const apartCases = Array.from({ length: APART_CASES }, (_, i) =>
  doc(
    PHRASE_CASES + i,
    { petitioner: 'India Cements Limited', respondent: 'Workers Union and Union Bank of India' },
    dateOf(PHRASE_CASES + i),
  ),
);
const unrelated = Array.from({ length: 40 }, (_, i) =>
  doc(PHRASE_CASES + APART_CASES + i, { petitioner: 'Ram Lal', respondent: 'State of Kerala' }, dateOf(i)),
);
const phraseIds = new Set(phraseCases.map((d) => d.caseId));
/** Longer names holding "Ram Kumar", more than are scored, all newer than the exact ones. */
const LONGER_NAMES = 400;
const longerNames = Array.from({ length: LONGER_NAMES }, (_, i) =>
  doc(
    5_000 + i,
    { petitioner: `Ram Kumar ${['Sharma', 'Gupta', 'Verma', 'Singh'][i % 4]!}`, respondent: 'State of Bihar' },
    dateOf(3_000 + i),
  ),
);
const exactNames = [
  doc(4_000, { petitioner: 'Shri Ram Kumar & Ors.', respondent: 'State of Bihar' }, dateOf(10)),
  doc(4_001, { petitioner: 'State of Bihar', respondent: 'RAM KUMAR' }, dateOf(11)),
];
const exactIds = new Set(exactNames.map((d) => d.caseId));

const request = (query: string, offset = 0, limit = 20): SearchRequest => ({ query, filters: {}, sort: 'relevance', offset, limit });

for (const factory of databases)
  describe(`keyword search for a common phrase, postgres adapter on ${factory.name}`, { timeout: 120_000 }, () => {
    let database: TestDatabase;
    let index: PostgresSearchIndex;

    before(async () => {
      database = await factory.open();
      index = new PostgresSearchIndex(database.db);
      await index.upsert([...phraseCases, ...apartCases, ...unrelated, ...longerNames, ...exactNames]);
    });

    after(async () => {
      await database.close();
    });

    it('puts the exact-phrase matches first, in relevance order, though the newest matches hold the words apart', async () => {
      const { hits } = await index.search(request('union of india'));
      assert.equal(hits.length, 20);
      assert.deepEqual(
        hits.filter((h) => !phraseIds.has(h.caseId)).map((h) => h.caseId),
        [],
        'every hit of the first page is an exact-phrase match',
      );
      assert.equal(hits[0]?.caseId, phraseCases.at(-1)?.caseId, 'the judgment full of the phrase ranks first');
      for (let i = 1; i < hits.length; i += 1) assert.ok(hits[i - 1]!.score >= hits[i]!.score, `scores fall at ${String(i)}`);
    });

    it('pages through one order: every match once, none lost', async () => {
      const seen: string[] = [];
      for (let offset = 0; offset < PHRASE_CASES + APART_CASES + 100; offset += 100) {
        const { hits } = await index.search(request('union of india', offset, 100));
        seen.push(...hits.map((h) => h.caseId));
      }
      assert.equal(new Set(seen).size, seen.length, 'no case on two pages');
      assert.equal(seen.length, PHRASE_CASES + APART_CASES);
    });

    it('counts exactly up to the bound, then says at least the bound, and at least one past a deeper page', async () => {
      assert.equal((await index.search(request('workers union'))).total, APART_CASES);
      assert.equal((await index.search(request('union of india'))).total, TOTAL_COUNT_CAP);
      assert.equal((await index.search(request('union of india', 1_000, 20))).total, 1_021);
    });

    it('still finds a misspelt name when the words find almost nothing', async () => {
      const { hits, total } = await index.search(request('unoin of india'));
      assert.ok(total > 0);
      assert.ok(phraseIds.has(hits[0]!.caseId), `top hit ${hits[0]!.caseId}`);
    });

    it('ranks the cases with exactly the party typed first, older than every scored match, and pages every match once', async () => {
      const { hits, total } = await index.search(request('Ram Kumar', 0, 5));
      assert.equal(total, LONGER_NAMES + exactNames.length);
      assert.deepEqual(new Set(hits.slice(0, 2).map((h) => h.caseId)), exactIds);
      const seen: string[] = [];
      for (let offset = 0; offset < total; offset += 50)
        seen.push(...(await index.search(request('ram kumar', offset, 50))).hits.map((h) => h.caseId));
      assert.equal(seen.length, total);
      assert.equal(new Set(seen).size, total, 'no case on two pages');
      assert.ok(seen.slice(0, 2).every((id) => exactIds.has(id)));
    });
  });
