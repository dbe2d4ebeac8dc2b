/**
 * Party names as users type them, on every search adapter: a name the record abbreviates
 * asked for spelled out ("Delhi Manufacturing Corporation" for "DELHI MFG. CORPN."), first
 * names as initials ("R. K. Sharma" for "RAMESH KUMAR SHARMA") and a slip in a short word
 * ("govt of bihr"). The abbreviations are not given to the adapters: they learn them from
 * the other party names indexed beside the targets, which write the same words both ways.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MeilisearchSearchIndex } from '../../src/adapters/meilisearch/search-index.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import type { PartySearchIndex, SearchDocument, SearchIndex } from '../../src/ports/search-index.ts';
import { databases } from '../support/databases.ts';
import { dropIndexes, meilisearchForSuite, meilisearchMissing } from '../support/meilisearch.ts';

function doc(caseId: string, petitioner: string, respondent: string): SearchDocument {
  return {
    caseId,
    caseNumber: `C.A. No. ${caseId}`,
    caseNumberNormalised: `CA ${caseId}`,
    cnr: null,
    courtCode: 'SC',
    courtName: 'Supreme Court of India',
    caseType: 'C.A.',
    title: `${petitioner} v. ${respondent}`,
    petitioners: [petitioner],
    respondents: [respondent],
    judges: [],
    decisionDate: '2001-01-01',
    decisionYear: 2001,
    summary: null,
    text: null,
    withheld: false,
  };
}

const PLACES = ['BOMBAY', 'MADRAS', 'KERALA', 'ASSAM', 'GOA'];
/** The corpus around the targets: each abbreviation dotted three times after the words its expansion follows. */
const TEACHERS: SearchDocument[] = PLACES.flatMap((place, i) => [
  doc(`teach-${String(i)}-a`, `${place} MANUFACTURING WORKS`, `${place} TEXTILE CORPORATION`),
  ...(i < 3 ? [doc(`teach-${String(i)}-b`, `${place} MFG. WORKS`, `${place} TEXTILE CORPN.`)] : []),
]);
/** Other Sharmas and other Bihar cases, so a match on the surname alone is not enough. */
const OTHERS: SearchDocument[] = [
  ...['SURESH SHARMA', 'ANIL SHARMA', 'VIJAY SHARMA', 'MOHAN LAL SHARMA', 'PREM SHARMA'].map((name, i) =>
    doc(`sharma-${String(i)}`, name, 'UNION OF INDIA'),
  ),
  doc('bihar-other', 'STATE OF BIHAR', 'KAMLESH PRASAD'),
];
const TARGETS = {
  suffix: doc('target-suffix', 'DELHI MFG. CORPN.', 'INDUSTRIAL TRIBUNAL'),
  initials: doc('target-initials', 'RAMESH KUMAR SHARMA', 'STATE OF RAJASTHAN'),
  typo: doc('target-typo', 'GOVERNMENT OF BIHAR', 'HIRALAL MOTILAL DESARDA'),
};
const QUERIES = { suffix: 'Delhi Manufacturing Corporation', initials: 'R. K. Sharma', typo: 'govt of bihr' } as const;

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
      const indexUid = `as_typed_${randomUUID().slice(0, 8)}`;
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

for (const subject of subjects)
  describe(`party names as users type them: ${subject.name}`, { skip: subject.skip, timeout: 120_000 }, () => {
    let index: SearchIndex & PartySearchIndex;
    let close: () => Promise<void>;

    before(async () => {
      ({ index, close } = await subject.open());
      await index.upsert([...TEACHERS, ...OTHERS, ...Object.values(TARGETS)]);
    });
    after(async () => close());

    for (const kind of ['suffix', 'initials', 'typo'] as const)
      it(`keyword search finds the ${kind} query's case first: "${QUERIES[kind]}"`, async () => {
        const { hits } = await index.search({ query: QUERIES[kind], filters: {}, sort: 'relevance', offset: 0, limit: 10 });
        assert.equal(hits[0]?.caseId, TARGETS[kind].caseId, JSON.stringify(hits));
      });

    it('party retrieval finds the name written out for the abbreviated record', async () => {
      const { hits } = await index.searchParties({ name: QUERIES.suffix, filters: {}, limit: 10 });
      assert.equal(hits[0]?.caseId, TARGETS.suffix.caseId, JSON.stringify(hits));
    });
  });
