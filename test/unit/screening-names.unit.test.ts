/**
 * Name reading and similarity on real party names from ../shared/data (Supreme Court
 * metadata petitioners and respondents; eCourts High Court parties), read at test time:
 * "@" and "alias" names, S/o and "through" relatives, honorifics, company forms, word order,
 * initials, typos, and different people kept apart.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareTokens, nameSimilarity, parseScreenedName, spansOf } from '../../src/domain/screening/names.ts';
import { parseParty } from '../../src/domain/screening/party-parse.ts';
import { phoneticKey } from '../../src/domain/screening/phonetic.ts';
import { NAME_SIMILARITY_FLOOR } from '../../src/domain/screening/rules.ts';
import { damerauLevenshtein, jaroWinkler } from '../../src/domain/screening/string-distance.ts';
import { corpusDir } from '../support/corpus.ts';

function jsonl(folder: string, file: string): Record<string, unknown>[] {
  return readFileSync(join(corpusDir, folder, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const sc = jsonl('sc-judgments-metadata', 'sc_judgments_metadata.jsonl');
const scParties = sc.flatMap((r) => [r.pet, r.res]).filter((p): p is string => typeof p === 'string' && p.trim() !== '');
const hcParties = jsonl('ecourts-hc-case-status-fixtures', 'cases.jsonl').flatMap((r) =>
  [...(r.petitioners as { name: string }[]), ...(r.respondents as { name: string }[])].map((p) => p.name),
);
const words = (s: string): string[] => s.toUpperCase().match(/[A-Z]+/g) ?? [];

/** Plain person names: two to four words, letters only, no company or public-body words. */
const HONORIFIC_OR_JOINER =
  /\b(?:SHRI|SRI|SMT|SHRIMATI|SRIMATI|MUSAMMAT|MST|KUMARI|DR|LATE|MR|MRS|MS|MISS|AND|OF|ETC|ORS|ANR|OTHERS|ANOTHER|DECEASED|DEAD|BY|LRS|HIS|HER|ITS)\b/;
const plainPersons = [...new Set(scParties)].filter(
  (p) =>
    /^[A-Z]+(?: [A-Z]+){1,3}$/.test(p.trim()) &&
    !HONORIFIC_OR_JOINER.test(p) &&
    !parseParty(p).organisation &&
    words(p).every((w) => w.length >= 3),
);

describe('string distances', () => {
  it('Jaro-Winkler and Damerau-Levenshtein on textbook pairs', () => {
    assert.equal(jaroWinkler('MARTHA', 'MARTHA'), 1);
    assert.ok(Math.abs(jaroWinkler('MARTHA', 'MARHTA') - 0.9611) < 0.001);
    assert.ok(Math.abs(jaroWinkler('DIXON', 'DICKSONX') - 0.8133) < 0.001);
    assert.equal(damerauLevenshtein('SHARMA', 'SHRAMA'), 1);
    assert.equal(damerauLevenshtein('KITTEN', 'SITTING'), 3);
  });

  it('phonetic keys fold Indian romanisation variants and keep different names apart', () => {
    for (const [a, b] of [
      ['LAKSHMI', 'LAXMI'],
      ['KAMALA', 'KAMLA'],
      ['BHARATI', 'BHARTI'],
      ['PHOOLWATI', 'FULWATI'],
      ['CHOUDHURY', 'CHOWDHURY'],
      ['SANJAY', 'SANJAI'],
      ['AGGARWAL', 'AGARWAL'],
    ] as const)
      assert.equal(phoneticKey(a), phoneticKey(b), `${a} / ${b}`);
    for (const [a, b] of [
      ['RAMESH', 'SURESH'],
      ['SUNITA', 'SUNIL'],
      ['MOHAN', 'SOHAN'],
    ] as const)
      assert.notEqual(phoneticKey(a), phoneticKey(b), `${a} / ${b}`);
  });
});

describe('reading real party strings', () => {
  it('finds persons in the Supreme Court metadata to test with', () => {
    assert.ok(plainPersons.length > 1000, `${String(plainPersons.length)} plain person names`);
  });

  it('"@" and ALIAS: every name of the party matches on its own (Supreme Court and High Court parties)', () => {
    const aliased = [...scParties, ...hcParties].filter((p) => /^[A-Z .]+ (?:@|ALIAS) [A-Z .]+$/.test(p.trim())).slice(0, 200);
    assert.ok(aliased.length >= 100, `${String(aliased.length)} aliased parties`);
    for (const party of aliased) {
      const [first, second] = party.split(/ @ | ALIAS /).map((s) => s.trim());
      for (const name of [first, second])
        if (name !== undefined && words(name).some((w) => w.length > 1))
          assert.ok(nameSimilarity(name, party, 'person') >= 0.95, `${name} in ${party}`);
      assert.ok(parseParty(party).personMarkers, party);
    }
  });

  it('S/O and SON OF: the relative is read as a relative, never as the party', () => {
    const related = scParties.filter(
      (p) => /\b(?:S\/O|D\/O|W\/O|SON OF)\b/.test(p) && !/[(),]/.test(p.split(/S\/O|D\/O|W\/O|SON OF/)[0] ?? ''),
    );
    assert.ok(related.length >= 50, `${String(related.length)} parties with relations`);
    for (const party of related) {
      const [own, rest] = party.split(/\s*(?:S\/O|D\/O|W\/O|SON OF)\s*/);
      const relative = (rest ?? '').split(/[,&@(]| AND | THROUGH | THR\.? | TH /)[0]?.trim() ?? '';
      const parsed = parseParty(party);
      const ownNames = parsed.names.flat().map((t) => t.canon);
      const relativeNames = parsed.relatives.flat().map((t) => t.canon);
      assert.ok(parsed.personMarkers, party);
      for (const w of words(relative).filter((x) => x.length > 2 && !words(own ?? '').includes(x) && !HONORIFIC_OR_JOINER.test(x)))
        assert.ok(!ownNames.includes(w) && relativeNames.some((r) => r === w || phoneticKey(r) === phoneticKey(w)), `${w} in ${party}`);
    }
  });

  it('TH (through): the eCourts detenu is the party, the one who brings the case a relative', () => {
    const through = hcParties.filter((p) => / TH /.test(p) && !p.startsWith('U T') && !p.startsWith('STATE') && !p.startsWith('UNION'));
    assert.ok(through.length >= 10, `${String(through.length)} "through" parties`);
    for (const party of through) {
      const [own, relative] = party.split(' TH ');
      assert.ok(nameSimilarity(own ?? '', party, 'person') >= 0.95, party);
      assert.ok(nameSimilarity(relative ?? '', party, 'person') < NAME_SIMILARITY_FLOOR, party);
    }
  });

  it('honorifics are dropped: SMT., SHRI, DR., KUMARI lead, but a trailing KUMARI is a name', () => {
    const led = scParties.filter((p) => /^(?:SMT|SHRI|DR|KUMARI)\.? +[A-Z]+ [A-Z]+$/.test(p.trim())).slice(0, 100);
    assert.ok(led.length >= 30, `${String(led.length)} honorific-led names`);
    for (const party of led) {
      const bare = party.trim().replace(/^(?:SMT|SHRI|DR|KUMARI)\.? +/, '');
      assert.equal(nameSimilarity(bare, party, 'person'), 1, party);
      assert.deepEqual(
        parseParty(party).names[0]?.map((t) => t.canon),
        words(bare),
      );
    }
    const trailing = scParties.find((p) => /^[A-Z]+ KUMARI\.?$/.test(p.trim()));
    assert.ok(trailing);
    assert.ok(parseParty(trailing).names[0]?.some((t) => t.canon === 'KUMARI'));
  });

  it('company forms: "PVT. LTD." and "Private Limited" name the same company, and the name is a company', () => {
    const companies = [...new Set(scParties)].filter((p) => /^[A-Z][A-Z ]+ PVT\. LTD\.$/.test(p.trim())).slice(0, 100);
    assert.ok(companies.length >= 30, `${String(companies.length)} private companies`);
    for (const party of companies) {
      const longForm = party.trim().replace(/ PVT\. LTD\.$/, ' Private Limited');
      assert.equal(nameSimilarity(longForm, party, 'company'), 1, party);
      assert.ok(parseParty(party).organisation, party);
    }
  });

  it('a party after a comma is given a place, not a longer name ("..., CHANDIGARH")', () => {
    const placed = scParties
      .filter((p) => /^[A-Z .]+ (?:LTD|LIMITED)\.?, [A-Z]+$/.test(p.trim()))
      .filter((p) => !words(p.split(',')[0] ?? '').includes(p.trim().split(', ').pop() ?? ''))
      .slice(0, 50);
    assert.ok(placed.length >= 10, `${String(placed.length)} companies with a place`);
    for (const party of placed) {
      const place = party.trim().split(', ').pop() ?? '';
      const parsed = parseParty(party);
      assert.deepEqual(
        parsed.tail.map((t) => t.canon),
        [place],
      );
      assert.ok(!parsed.names.flat().some((t) => t.canon === place), party);
    }
  });
});

describe('similarity on real person names', () => {
  const sample = plainPersons.slice(0, 400);

  it('word order does not matter', () => {
    for (const name of sample) assert.equal(nameSimilarity(words(name).reverse().join(' '), name, 'person'), 1, name);
  });

  it('initials for the given names still match, flagged as initials', () => {
    for (const name of sample.filter((n) => words(n).length === 3)) {
      const [a, b, last] = words(name);
      const initialled = `${(a ?? '').charAt(0)}.${(b ?? '').charAt(0)}. ${last ?? ''}`;
      const q = parseScreenedName(initialled, 'person')[0] ?? [];
      const match = compareTokens(q, parseParty(name).names[0] ?? [], 'person');
      assert.ok(match.similarity >= 0.75, `${initialled} / ${name}: ${match.similarity.toFixed(3)}`);
      assert.ok(match.pairs.some((p) => p.agreement === 'initial'));
    }
  });

  it('one swapped pair of letters in a long word is a typo: close, never exact', () => {
    let tried = 0;
    for (const name of sample) {
      const ws = words(name);
      const i = ws.findIndex((w) => w.length >= 7 && w.charAt(2) !== w.charAt(3));
      const w = ws[i];
      if (w === undefined) continue;
      ws[i] = w.slice(0, 2) + w.charAt(3) + w.charAt(2) + w.slice(4);
      const s = nameSimilarity(ws.join(' '), name, 'person');
      assert.ok(s >= 0.85 && s < 1, `${ws.join(' ')} / ${name}: ${s.toFixed(3)}`);
      tried++;
    }
    assert.ok(tried >= 20, `${String(tried)} typo cases`);
  });

  it('names with no word in common stay below the floor', () => {
    let pairs = 0;
    for (let i = 0; i + 1 < sample.length; i++) {
      const [a, b] = [sample[i] ?? '', sample[i + 1] ?? ''];
      const keys = new Set(words(a).map(phoneticKey));
      if (words(b).some((w) => keys.has(phoneticKey(w)) || words(a).some((x) => x.startsWith(w) || w.startsWith(x)))) continue;
      assert.ok(nameSimilarity(a, b, 'person') < NAME_SIMILARITY_FLOOR, `${a} / ${b}`);
      pairs++;
    }
    assert.ok(pairs >= 200, `${String(pairs)} unrelated pairs`);
  });

  it('spans point at the matched words of the party string', () => {
    const party = scParties.find((p) => /^SMT\. +[A-Z]+ [A-Z]+$/.test(p.trim())) ?? '';
    const bare = party.trim().replace(/^SMT\. +/, '');
    const q = parseScreenedName(bare, 'person')[0] ?? [];
    const match = compareTokens(q, parseParty(party).names[0] ?? [], 'person');
    const spans = spansOf(
      match.pairs.map((p) => p.candidate),
      party,
    );
    assert.deepEqual(
      spans.map((s) => party.slice(s.start, s.end)),
      [bare],
    );
  });
});

describe('company names', () => {
  it('acronyms of real company names match, different companies with a shared word do not', () => {
    const companies = [...new Set(scParties)].filter(
      (p) =>
        /^[A-Z]+ [A-Z]+ [A-Z]+ (?:LTD|LIMITED)\.?$/.test(p.trim()) &&
        !/\b(?:AND|OF|THE|CO|COMPANY|INDIA|MESSRS|M\/S)\b/.test(p) &&
        parseParty(p).organisation,
    );
    assert.ok(companies.length >= 20, `${String(companies.length)} three-word companies`);
    for (const party of companies.slice(0, 50)) {
      const acronym = words(party)
        .slice(0, 3)
        .map((w) => w.charAt(0))
        .join('');
      assert.ok(nameSimilarity(acronym, party, 'company') >= 0.8, `${acronym} / ${party}`);
    }
    assert.ok(nameSimilarity('Reliance Industries Limited', 'RELIANCE INFRASTRUCTURE LTD.', 'company') < NAME_SIMILARITY_FLOOR);
  });
});
