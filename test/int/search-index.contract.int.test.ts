/**
 * The one contract every SearchIndex adapter meets, run against each adapter present: the
 * Postgres adapter on PGlite and on PostgreSQL (TEST_DATABASE_URL), and Meilisearch (the
 * server at MEILI_URL, else a private one from the binary; skipped only with neither). The documents are real: a slice of
 * the corpus ingested and mapped as the projector maps it. Queries use the records' other
 * printed forms: case numbers as judgment headers and users write them, party names with
 * honorifics and typos, CNRs with separators. Party retrieval (the litigation check's
 * `searchParties`) is held to the same records, and to its completeness flag: `complete`
 * must mean the page holds every match. A date sort is held to a strict order over whole
 * result lists (undated cases last both ways, ties by caseId, the Postgres adapter's
 * order), on multi-word queries whose hits match the words differently, so an adapter that
 * only breaks ties of relevance by date fails.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MeilisearchSearchIndex } from '../../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import type {
  PartySearchIndex,
  PartySearchRequest,
  SearchDocument,
  SearchFilters,
  SearchIndex,
  SearchRequest,
  SearchSort,
} from '../../src/ports/search-index.ts';
import { databases } from '../support/databases.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../support/meilisearch.ts';
import { realSearchDocuments } from '../support/search-corpus.ts';

interface Subject {
  readonly name: string;
  readonly skip: string | false;
  open(): Promise<{ index: SearchIndex & PartySearchIndex; close(): Promise<void> }>;
}

const subjects: Subject[] = [
  ...databases.map((factory): Subject => ({
    name: `postgres adapter on ${factory.name}`,
    skip: false,
    open: async () => {
      const database = await factory.open();
      return { index: new PostgresSearchIndex(database.db), close: () => database.close() };
    },
  })),
  {
    name: 'meilisearch adapter',
    skip: meilisearchMissing,
    open: async () => {
      const meili = await meilisearchForSuite();
      const indexUid = `contract_${randomUUID().slice(0, 8)}`;
      const index = await MeilisearchSearchIndex.open({ url: meili.url, apiKey: meili.apiKey, indexUid });
      return {
        index,
        close: async () => {
          await dropIndexes(meili.url, meili.apiKey, indexUid);
          await meili.close();
        },
      };
    },
  },
];

// Real records of the slice (first rows of the SC metadata, the eCourts HC fixtures).
const NATIONAL_INSURANCE = 'sc-10169-2001-19020217'; // C.A. No.-004292-004292 - 2002, NATIONAL INSURANCE CO. LTD., CHANDIGARH v. NICOLLETTA ROHTAGI
const DANA_YADAV = 'sc-10567-2000-19020213'; // Crl.A. No.-001156-001157 - 2001, DANA YADAV @ DAHU v. STATE OF BIHAR
const GAUHATI_BAIL = 'hc-GAHC010225502018'; // AB/3142/2018
const JK_HABEAS = 'hc-JKHC020000152024'; // HCP/1/2024
const HAKAM_SHAH = 'hc-JKHC020091782015'; // HAKAM SHAH v. STATE TH.HOME DEPTT.AND ORS., JKHC, decided 2016-04-22
const MAMA_RIGAM = 'hc-GAHC040007922024'; // Mama Rigam v. The State of AP and Anr, GAHC, filed 2024-06-24, undecided
const DESARDA = 'sc-19885-2000-19020209'; // PADMA v. HIRALAL MOTILAL DESARDA

function request(query: string, over: Partial<SearchRequest> = {}): SearchRequest {
  return { query, filters: {}, sort: 'relevance', offset: 0, limit: 10, ...over };
}

/** Whether `a` must come before `b` under a date sort: dated before undated, then by date, then by caseId. */
function precedes(sort: 'recent' | 'oldest', a: SearchDocument, b: SearchDocument): boolean {
  if (a.decisionDate === b.decisionDate) return a.caseId < b.caseId;
  if (a.decisionDate === null || b.decisionDate === null) return b.decisionDate === null;
  return sort === 'recent' ? a.decisionDate > b.decisionDate : a.decisionDate < b.decisionDate;
}

function assertDateOrder(sort: 'recent' | 'oldest', hits: readonly SearchDocument[], label: string): void {
  for (let i = 1; i < hits.length; i += 1) {
    const [a, b] = [hits[i - 1]!, hits[i]!];
    assert.ok(precedes(sort, a, b), `${label}: ${a.caseId} (${String(a.decisionDate)}) before ${b.caseId} (${String(b.decisionDate)})`);
  }
}

/** Multi-word queries with filters, each matching more than one page of cases decided on many dates. */
const DATE_SORTED: readonly [string, SearchFilters][] = [
  ['land acquisition', {}],
  ['state of bihar', {}],
  ['state of bihar', { courtCodes: ['SC'], fromDate: '1958-01-01', toDate: '1964-12-31' }],
  // A typo: matched through typo tolerance on Meilisearch, through party-name trigrams on PostgreSQL.
  ['state of madars', {}],
];
const PAGE = 10;

for (const subject of subjects)
  describe(`SearchIndex contract: ${subject.name}`, { skip: subject.skip, timeout: 300_000 }, () => {
    let docs: SearchDocument[];
    let byId: Map<string, SearchDocument>;
    let index: SearchIndex & PartySearchIndex;
    let close: () => Promise<void>;
    const ids = async (query: string, over: Partial<SearchRequest> = {}) =>
      (await index.search(request(query, over))).hits.map((h) => h.caseId);
    const doc = (caseId: string): SearchDocument => {
      const found = byId.get(caseId);
      assert.ok(found, `${caseId} is in the slice`);
      return found;
    };

    before(async () => {
      docs = await realSearchDocuments();
      byId = new Map(docs.map((d) => [d.caseId, d]));
      ({ index, close } = await subject.open());
      await index.upsert(docs);
    });
    after(async () => close());

    it('answers ping', async () => {
      await index.ping();
    });

    it('finds judgment text by its words, every hit holding them', async () => {
      const result = await index.search(request('land acquisition'));
      assert.ok(result.total > 0);
      assert.ok(result.hits.length > 0);
      for (const hit of result.hits) {
        const d = doc(hit.caseId);
        const all = [d.title, d.summary, d.text, ...d.petitioners, ...d.respondents].join(' ').toLowerCase();
        assert.match(all, /acqui/, hit.caseId);
        assert.match(all, /\bland/, hit.caseId);
      }
    });

    it('finds a case number in its other printed forms', async () => {
      assert.equal((await ids('Civil Appeal No. 4292 of 2002'))[0], NATIONAL_INSURANCE);
      assert.equal((await ids('CA 4292/2002'))[0], NATIONAL_INSURANCE);
      assert.equal((await ids('criminal appeal nos. 1156-1157 of 2001'))[0], DANA_YADAV);
      assert.equal((await ids('AB 3142/2018'))[0], GAUHATI_BAIL);
      assert.equal((await ids('HCP 1/2024'))[0], JK_HABEAS);
      assert.ok((await ids('bail in Crl. Appeal No. 1156-1157 of 2001')).includes(DANA_YADAV));
      for (const sort of ['recent', 'oldest'] as const) {
        assert.deepEqual(await ids('CA 4292/2002', { sort }), [NATIONAL_INSURANCE], sort);
        assert.ok((await ids('bail in Crl. Appeal No. 1156-1157 of 2001', { sort })).includes(DANA_YADAV), sort);
      }
    });

    it('finds a case number whose type is misspelt or left out, by its number and year', async () => {
      assert.equal((await ids('Civl Apeal No. 4292 of 2002'))[0], NATIONAL_INSURANCE);
      assert.equal((await ids('4292/2002'))[0], NATIONAL_INSURANCE);
    });

    it('finds a case by its CNR, with or without separators', async () => {
      assert.equal((await ids('GAHC010225502018'))[0], GAUHATI_BAIL);
      assert.equal((await ids('gahc01-022550-2018'))[0], GAUHATI_BAIL);
    });

    it('finds party names written with honorifics, company forms and typos', async () => {
      assert.ok((await ids('M/s. National Insurance Co. Pvt. Ltd., Chandigarh')).includes(NATIONAL_INSURANCE));
      assert.equal((await ids('Nicoletta Rohatgi'))[0], NATIONAL_INSURANCE);
      assert.ok((await ids('Shri Dana Yadav')).includes(DANA_YADAV));
      assert.ok((await ids('Anurag Tankah')).includes(GAUHATI_BAIL));
    });

    it('returns nothing for words no record holds, nor for punctuation alone', async () => {
      assert.deepEqual(await index.search(request('zzqxv')), { hits: [], total: 0, withheld: false });
      for (const sort of ['relevance', 'recent'] as const)
        assert.deepEqual(await index.search(request('?!', { sort })), { hits: [], total: 0, withheld: false }, sort);
    });

    const filterCases: [string, SearchFilters, (d: SearchDocument) => boolean][] = [
      ['courtCodes', { courtCodes: ['JKHC'] }, (d) => d.courtCode === 'JKHC'],
      ['years', { years: [1962] }, (d) => d.decisionYear === 1962],
      ['caseTypes', { caseTypes: ['Crl.A.'] }, (d) => d.caseType === 'Crl.A.'],
      [
        'fromDate and toDate',
        { fromDate: '1961-03-01', toDate: '1961-06-30' },
        (d) => d.decisionDate !== null && d.decisionDate >= '1961-03-01' && d.decisionDate <= '1961-06-30',
      ],
    ];
    for (const [name, filters, holds] of filterCases) {
      it(`filters by ${name}: every hit satisfies it, and it removes some matches`, async () => {
        const all = await index.search(request('state', { limit: 100 }));
        const filtered = await index.search(request('state', { filters, limit: 100 }));
        assert.ok(filtered.hits.length > 0, 'some hits remain');
        assert.ok(filtered.total < all.total, 'the filter removed matches');
        for (const hit of filtered.hits) assert.ok(holds(doc(hit.caseId)), hit.caseId);
      });
    }

    it('filters by case type and court, matching the stored spelling exactly', async () => {
      // Both spellings are stored case types of the slice.
      for (const caseType of ['Writ Petition', 'writ petition']) {
        const hits = await ids('petition', { filters: { caseTypes: [caseType] }, limit: 100 });
        assert.ok(hits.length > 0, caseType);
        for (const id of hits) assert.equal(doc(id).caseType, caseType, id);
      }
      assert.deepEqual(await ids('state', { filters: { courtCodes: ['jkhc'] } }), []);
      assert.deepEqual(await ids('state', { filters: { caseTypes: ['CRL.A.'] } }), []);
    });

    it('filters by judge, matching the stored spelling exactly', async () => {
      const judge = doc(GAUHATI_BAIL).judges[0] ?? '';
      assert.ok((await ids('Anurag Tankha')).includes(GAUHATI_BAIL));
      const hits = await ids('Anurag Tankha', { filters: { judges: [judge] } });
      assert.ok(hits.includes(GAUHATI_BAIL));
      for (const id of hits) assert.ok(doc(id).judges.includes(judge), id);
      assert.deepEqual(await ids('Anurag Tankha', { filters: { judges: [judge.toLowerCase()] } }), []);
      assert.deepEqual(await ids('Anurag Tankha', { filters: { judges: ['MIR ALFAZ'] } }), []);
    });

    const dated = (sort: SearchSort) => index.search(request('state', { sort, limit: 50, filters: { years: [1961, 1962] } }));
    it('sorts recent first, ties by caseId', async () => {
      const hits = (await dated('recent')).hits.map((h) => doc(h.caseId));
      assert.ok(hits.length > 10);
      assertDateOrder('recent', hits, 'recent');
    });

    it('sorts oldest first, ties by caseId', async () => {
      const hits = (await dated('oldest')).hits.map((h) => doc(h.caseId));
      assert.ok(hits.length > 10);
      assertDateOrder('oldest', hits, 'oldest');
    });

    for (const [query, filters] of DATE_SORTED)
      it(`sorts "${query}"${Object.keys(filters).length ? ' (filtered)' : ''} by date over whole pages and across pages, not by relevance`, async () => {
        const relevance = await index.search(request(query, { filters, limit: 3 * PAGE }));
        const scores = new Set(relevance.hits.map((h) => h.score));
        assert.ok(scores.size > 1, 'the hits match the words differently, so relevance alone does not order them by date');
        for (const sort of ['recent', 'oldest'] as const) {
          const whole = await index.search(request(query, { filters, sort, limit: 3 * PAGE }));
          const wholeIds = whole.hits.map((h) => h.caseId);
          assert.ok(whole.hits.length > PAGE, `${sort}: more than one page (${String(whole.hits.length)})`);
          assert.equal(whole.total, relevance.total, `${sort}: a sort reorders the matches, never changes them`);
          if (whole.total <= 3 * PAGE)
            assert.deepEqual([...wholeIds].sort(), relevance.hits.map((h) => h.caseId).sort(), `${sort}: the same cases as by relevance`);
          assertDateOrder(sort, wholeIds.map(doc), sort);
          const dates = new Set(wholeIds.map((id) => doc(id).decisionDate));
          assert.ok(dates.size > PAGE / 2, `${sort}: decided on many dates (${String(dates.size)})`);
          const paged: string[] = [];
          for (let offset = 0; offset < 3 * PAGE; offset += PAGE) paged.push(...(await ids(query, { filters, sort, limit: PAGE, offset })));
          assert.deepEqual(paged, wholeIds, `${sort}: pages join into the whole list`);
          assert.notDeepEqual(
            wholeIds.slice(0, PAGE),
            relevance.hits.slice(0, PAGE).map((h) => h.caseId),
            `${sort}: not the relevance page`,
          );
        }
      });

    it('puts undated cases after every dated one under either date sort, undated ties by caseId', async () => {
      for (const sort of ['recent', 'oldest'] as const) {
        const hits = (await ids('home deptt', { sort, filters: { courtCodes: ['JKHC'] }, limit: 100 })).map(doc);
        assert.ok(hits.filter((d) => d.decisionDate !== null).length >= 2, `${sort}: dated cases match`);
        assert.ok(
          hits.some((d) => d.decisionDate === null),
          `${sort}: undated cases match`,
        );
        assert.notEqual(hits[0]?.decisionDate, null, `${sort}: a dated case first`);
        assertDateOrder(sort, hits, sort);
      }
    });

    it('sorts by relevance: scores never increase down the page', async () => {
      const hits = (await index.search(request('Dana Yadav', { limit: 20 }))).hits;
      assert.equal(hits[0]?.caseId, DANA_YADAV);
      for (let i = 1; i < hits.length; i += 1) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
    });

    it('pages without gaps or repeats, deterministically', async () => {
      for (const sort of ['relevance', 'recent', 'oldest'] as const) {
        const whole = await ids('state', { sort, limit: 20 });
        const first = await ids('state', { sort, limit: 10 });
        const second = await ids('state', { sort, limit: 10, offset: 10 });
        assert.equal(whole.length, 20);
        assert.deepEqual([...first, ...second], whole, sort);
        assert.deepEqual(await ids('state', { sort, limit: 20 }), whole, `${sort} is repeatable`);
      }
    });

    it('ranks a case with exactly the party typed above longer names holding it, and pages each match once', async () => {
      // Synthetic: real party names and a real case's other fields, recombined.
      const names = docs.flatMap((d) => [...d.petitioners, ...d.respondents]).filter((n) => /^[A-Z][a-z]+ [A-Z][a-z]+$/.test(n));
      const name = names[0];
      assert.ok(name !== undefined, 'the slice has a two-word personal name');
      const surnames = [...new Set(names.map((n) => n.split(' ')[1]!))].filter((w) => !name.includes(w)).slice(0, 4);
      const base = docs[0]!;
      const longer = Array.from({ length: 24 }, (_, i) => ({
        ...base,
        caseId: `synthetic-longer-${String(i).padStart(2, '0')}`,
        petitioners: [`${name} ${surnames[i % surnames.length]!}`],
        respondents: ['State of Bihar'],
        decisionDate: `1902-01-${String(i + 1).padStart(2, '0')}`,
        decisionYear: 1902,
      }));
      const exact = {
        ...base,
        caseId: 'synthetic-exact',
        petitioners: ['State of Bihar'],
        respondents: [`Shri ${name}`],
        decisionDate: '1901-05-01',
        decisionYear: 1901,
      };
      await index.upsert([...longer, exact]);
      try {
        const synthetic = (query: string, over: Partial<SearchRequest> = {}) => ids(query, { filters: { years: [1901, 1902] }, ...over });
        assert.equal((await synthetic(name))[0], exact.caseId);
        const seen = [
          ...(await synthetic(name, { limit: 10 })),
          ...(await synthetic(name, { limit: 10, offset: 10 })),
          ...(await synthetic(name, { limit: 10, offset: 20 })),
        ];
        const ours = seen.filter((id) => id.startsWith('synthetic-'));
        assert.equal(new Set(ours).size, ours.length, 'no case on two pages');
        assert.equal(ours.length, longer.length + 1);
      } finally {
        await index.remove([...longer, exact].map((d) => d.caseId));
      }
    });

    it('never returns a withheld document, only says one matched', async () => {
      const target = doc(DANA_YADAV);
      const before = await index.search(request('Dana Yadav'));
      assert.equal(before.withheld, false);
      await index.upsert([{ ...target, withheld: true }]);
      const after = await index.search(request('Dana Yadav'));
      assert.ok(!after.hits.some((h) => h.caseId === DANA_YADAV));
      assert.equal(after.withheld, true);
      assert.equal(after.total, before.total - 1);
      assert.equal((await index.search(request('Crl.A. No.-001156-001157 - 2001'))).withheld, true);
      assert.equal((await index.search(request('Nicoletta Rohatgi'))).withheld, false);
      assert.equal((await index.search(request('Dana Yadav', { filters: { years: [1999] } }))).withheld, false);
      await index.upsert([target]);
      assert.ok((await ids('Dana Yadav')).includes(DANA_YADAV));
    });

    it('replaces a document on upsert by caseId', async () => {
      const target = doc(NATIONAL_INSURANCE);
      const other = doc(DANA_YADAV);
      await index.upsert([{ ...target, petitioners: other.petitioners, respondents: other.respondents, title: other.title }]);
      assert.ok(!(await ids('Nicoletta Rohatgi')).includes(NATIONAL_INSURANCE));
      assert.ok((await ids('Dana Yadav')).includes(NATIONAL_INSURANCE));
      await index.upsert([target]);
      assert.equal((await ids('Nicoletta Rohatgi'))[0], NATIONAL_INSURANCE);
    });

    const parties = (name: string, over: Partial<PartySearchRequest> = {}) =>
      index.searchParties({ name, filters: {}, limit: 20, ...over });
    const partyIds = async (name: string, over: Partial<PartySearchRequest> = {}) => (await parties(name, over)).hits.map((h) => h.caseId);

    it('searchParties: finds a party written with typos, honorifics, company forms and another word order', async () => {
      assert.ok((await partyIds('Nicoletta Rohatgi')).includes(NATIONAL_INSURANCE));
      assert.ok((await partyIds('Shri Dana Yadav')).includes(DANA_YADAV));
      assert.ok((await partyIds('Yadav Dana')).includes(DANA_YADAV));
      assert.ok((await partyIds('M/s. National Insurance Co. Pvt. Ltd., Chandigarh')).includes(NATIONAL_INSURANCE));
      assert.ok((await partyIds('Hiralal Motilal Desarda')).includes(DESARDA));
    });

    it('searchParties: an initial and a surname find the full name', async () => {
      assert.ok((await partyIds('N. Rohtagi')).includes(NATIONAL_INSURANCE));
    });

    it('searchParties: matches party names only, never judgment text', async () => {
      const partyText = (id: string) => [...doc(id).petitioners, ...doc(id).respondents].join(' ').toUpperCase();
      const inText = (await ids('land acquisition', { limit: 100 })).filter((id) => !partyText(id).includes('ACQUI'));
      assert.ok(inText.length > 0, 'keyword search finds the words outside party names');
      const hits = await partyIds('Land Acquisition', { limit: 100 });
      assert.ok(hits.length > 0);
      for (const id of hits) assert.match(partyText(id), /ACQU/, id);
      assert.deepEqual(await parties('Zzqxv Pqrstu'), { hits: [], complete: true, withheld: false });
    });

    it('searchParties: complete means the page holds every match, and the page is cut at the limit', async () => {
      const all = await parties('Hakam Shah', { limit: 100 });
      assert.ok(all.complete);
      assert.ok(all.hits.some((h) => h.caseId === HAKAM_SHAH));
      const n = all.hits.length;
      const exact = await parties('Hakam Shah', { limit: n });
      assert.equal(exact.complete, true);
      assert.deepEqual(
        exact.hits.map((h) => h.caseId),
        all.hits.map((h) => h.caseId),
      );
      if (n > 1) {
        const cut = await parties('Hakam Shah', { limit: n - 1 });
        assert.equal(cut.complete, false);
        assert.equal(cut.hits.length, n - 1);
      }
      const common = await parties('State of Bihar', { limit: 5 });
      assert.equal(common.complete, false);
      assert.equal(common.hits.length, 5);
    });

    it('searchParties: best first, and the same call gives the same page', async () => {
      const first = await parties('Dana Yadav');
      assert.equal(first.hits[0]?.caseId, DANA_YADAV);
      for (let i = 1; i < first.hits.length; i += 1) assert.ok(first.hits[i - 1]!.score >= first.hits[i]!.score);
      assert.deepEqual(await parties('Dana Yadav'), first);
    });

    it('searchParties: filters by court', async () => {
      assert.ok((await partyIds('Hakam Shah', { filters: { courtCodes: ['JKHC'] } })).includes(HAKAM_SHAH));
      for (const id of await partyIds('Hakam Shah', { filters: { courtCodes: ['JKHC'] } })) assert.equal(doc(id).courtCode, 'JKHC');
      assert.ok(!(await partyIds('Hakam Shah', { filters: { courtCodes: ['SC'] } })).includes(HAKAM_SHAH));
    });

    it('searchParties: decidedOnOrAfter drops earlier decisions and keeps undated cases', async () => {
      assert.ok((await partyIds('Hakam Shah', { filters: { decidedOnOrAfter: '2016-04-22' } })).includes(HAKAM_SHAH));
      assert.ok(!(await partyIds('Hakam Shah', { filters: { decidedOnOrAfter: '2016-04-23' } })).includes(HAKAM_SHAH));
      assert.equal(doc(MAMA_RIGAM).decisionDate, null);
      assert.ok((await partyIds('Mama Rigam', { filters: { decidedOnOrAfter: '2030-01-01' } })).includes(MAMA_RIGAM));
      for (const id of await partyIds('State of Bihar', { filters: { decidedOnOrAfter: '2000-01-01' }, limit: 50 })) {
        const decided = doc(id).decisionDate;
        assert.ok(decided === null || decided >= '2000-01-01', id);
      }
    });

    it('searchParties: never returns a withheld case, only says one matched', async () => {
      const target = doc(DESARDA);
      assert.equal((await parties('Hiralal Motilal Desarda')).withheld, false);
      await index.upsert([{ ...target, withheld: true }]);
      const after = await parties('Hiralal Motilal Desarda');
      assert.ok(!after.hits.some((h) => h.caseId === DESARDA));
      assert.equal(after.withheld, true);
      assert.equal((await parties('Hiralal Motilal Desarda', { filters: { courtCodes: ['JKHC'] } })).withheld, false);
      await index.upsert([target]);
      assert.ok((await partyIds('Hiralal Motilal Desarda')).includes(DESARDA));
    });

    it('removes documents and ignores unknown ids', async () => {
      const target = doc(GAUHATI_BAIL);
      await index.remove([GAUHATI_BAIL, 'no-such-case']);
      const gone = await index.search(request('GAHC010225502018'));
      assert.ok(!gone.hits.some((h) => h.caseId === GAUHATI_BAIL));
      assert.equal(gone.withheld, false);
      await index.upsert([target]);
      assert.equal((await ids('GAHC010225502018'))[0], GAUHATI_BAIL);
    });
  });
