/**
 * Abbreviations learnt from party names as the corpus writes them, the PostgreSQL tsquery
 * text built from them, and the initials form of a name. Names are real spellings from the
 * Supreme Court metadata.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandedTsQuery, keywordTsQuery } from '../../src/adapters/postgres/party-tsquery.ts';
import { deriveAbbreviations, expandWords, initialsForm, mergeSynonyms, PartyTokenTally } from '../../src/domain/search/party-synonyms.ts';

/** A small corpus: each abbreviation written with its dot after the same words its expansion follows. */
function tallyOf(names: readonly string[]): PartyTokenTally {
  const tally = new PartyTokenTally();
  tally.add(names);
  return tally;
}

const CORPUS = [
  ...['NATIONAL INSURANCE CO. LTD.', 'ORIENTAL INSURANCE CO. LTD.', 'UNITED INSURANCE CO.', 'BIRLA JUTE MFG. CO. LTD.'],
  ...['NATIONAL INSURANCE COMPANY LIMITED', 'ORIENTAL INSURANCE COMPANY', 'UNITED INSURANCE COMPANY', 'NEW INDIA INSURANCE COMPANY'],
  'HINDUSTAN INSURANCE COMPANY',
  ...['BAR ASSOCN. OF INDIA', 'TEACHERS ASSOCN. DELHI', 'BAR ASSOCN. DELHI'],
  ...['BAR ASSOCIATION OF INDIA', 'TEACHERS ASSOCIATION', 'BAR ASSOCIATION', 'BAR ASSOCIATION KOTA', 'TEACHERS ASSOCIATION AGRA'],
  // Real words that end names with a dot now and then: never abbreviations.
  ...['RAM KUMAR', 'RAM KUMAR SHARMA', 'RAM PRASAD', 'RAMAN LAL', 'RAMAN NAIR', 'RAMAN PILLAI', 'RAMAN RAO', 'RAMAN GUPTA', 'SITA RAM.'],
];

describe('deriveAbbreviations', () => {
  const synonyms = deriveAbbreviations(tallyOf(CORPUS));

  it('pairs a dotted abbreviation with the word that follows the same words, both ways', () => {
    assert.deepEqual(synonyms.get('co'), ['company']);
    assert.deepEqual(synonyms.get('company'), ['co']);
    assert.deepEqual(synonyms.get('assocn'), ['association']);
    assert.deepEqual(synonyms.get('association'), ['assocn']);
  });

  it('leaves alone words the corpus seldom dots, however much they look like a prefix', () => {
    assert.equal(synonyms.get('ram'), undefined);
    assert.equal(synonyms.get('raman'), undefined);
  });

  it('needs the shared context: a dotted token after other words than the candidate expansion is not paired', () => {
    const alone = deriveAbbreviations(
      tallyOf(['X CO.', 'Y CO.', 'Z CO.', ...Array.from({ length: 6 }, (_, i) => `FIRM${String(i)} COMPANY`)]),
    );
    assert.equal(alone.get('co'), undefined);
  });

  it('needs enough occurrences: one dotted spelling teaches nothing', () => {
    assert.equal(deriveAbbreviations(tallyOf(['INSURANCE CO.', ...Array.from({ length: 6 }, () => 'INSURANCE COMPANY')])).size, 0);
  });

  it('reads names as indexed: honorifics, list endings and company forms do not count as words', () => {
    const tally = tallyOf(['M/S. ACME PVT. LTD. & ORS.']);
    assert.deepEqual(
      [...tally.entries()].map(([t]) => t),
      ['ACME'],
    );
  });
});

describe('expandWords and mergeSynonyms', () => {
  it('gives each word its variants, the word first', () => {
    const synonyms = new Map([['co', ['company']]]);
    assert.deepEqual(expandWords(['insurance', 'co'], synonyms), [['insurance'], ['co', 'company']]);
  });
  it('merges groups without repeats', () => {
    const merged = mergeSynonyms(new Map([['co', ['company']]]), new Map([['co', ['company', 'corporation']]]));
    assert.deepEqual(merged.get('co'), ['company', 'corporation']);
  });
});

describe('initialsForm', () => {
  it('cuts every first name to its initial', () => {
    assert.equal(initialsForm('RAM KUMAR SHARMA'), 'R K SHARMA');
    assert.equal(initialsForm('KAMLA DEVI'), 'K DEVI');
  });
  it('has none for one word or a name already in initials', () => {
    assert.equal(initialsForm('PADMA'), null);
    assert.equal(initialsForm('R K SHARMA'), null);
  });
});

describe('PostgreSQL tsquery text', () => {
  const synonyms = new Map([
    ['co', ['company']],
    ['company', ['co']],
  ]);
  it('ORs each word with its variants and reads a single letter as an initial of a party-name word', () => {
    assert.equal(keywordTsQuery('r k insurance co', synonyms), 'r:*A & k:*A & insurance & (co | company)');
  });
  it('limits whole words to the party names for party retrieval', () => {
    assert.equal(expandedTsQuery(['insurance', 'co', 'co'], synonyms, ':A'), 'insurance:A & (co:A | company:A)');
  });
  it('leaves web-search syntax to websearch_to_tsquery', () => {
    assert.equal(keywordTsQuery('"insurance co"', synonyms), null);
    assert.equal(keywordTsQuery('insurance -co', synonyms), null);
    assert.equal(keywordTsQuery('insurance or co', synonyms), null);
    assert.equal(keywordTsQuery('', synonyms), null);
  });
});
