/**
 * Features and signals of real candidate cases (Supreme Court metadata parties, eCourts High
 * Court parties, Indian Kanoon judgment texts, all read at test time): the role and spans of
 * the matched party, relatives and places corroborating, entity-type consistency, names found
 * only in the text or the cause title, and identifiers. No record in the corpus carries a
 * PAN, GSTIN or CIN, so the identifier tests add one sentence naming a public test vector to
 * a real judgment text, and say so.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  type CandidateRecord,
  extractFeatures,
  FEATURE_NAMES,
  featureVector,
  type ScreeningQuery,
  type Signal,
} from '../../src/domain/screening/features.ts';
import { placesOf } from '../../src/domain/screening/address.ts';
import { corpusDir } from '../support/corpus.ts';

function jsonl(folder: string, file: string): Record<string, unknown>[] {
  return readFileSync(join(corpusDir, folder, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

interface ScRow {
  diary_no: string;
  case_no: string;
  pet: string | null;
  res: string | null;
  judgment_dates: string;
}

const sc = jsonl('sc-judgments-metadata', 'sc_judgments_metadata.jsonl') as unknown as ScRow[];
const ik50 = jsonl('sc-judgments-text-ik50', 'ik50_judgments.jsonl').map((r) => String(r.judgment));
const vectors = JSON.parse(readFileSync(join(corpusDir, 'identifier-test-vectors', 'identifiers.json'), 'utf8')) as {
  type: string;
  value: string;
  expected_valid: boolean;
}[];

function candidateOf(row: ScRow, text: string | null = null): CandidateRecord {
  return {
    caseId: row.diary_no,
    caseNumber: row.case_no,
    courtName: 'Supreme Court of India',
    title: null,
    petitioners: row.pet === null ? [] : [row.pet],
    respondents: row.res === null ? [] : [row.res],
    text,
    decisionDate: row.judgment_dates.split('-').reverse().join('-'),
    filingDate: null,
  };
}

function query(name: string, extra: Partial<ScreeningQuery> = {}): ScreeningQuery {
  return { name, aliases: [], entityType: 'person', identifiers: {}, knownPersons: [], ...extra };
}

/** Every span must be exactly the text it claims, at the offsets it claims. */
function assertSpansTrue(signals: readonly Signal[], c: CandidateRecord): void {
  for (const s of signals)
    for (const sp of s.spans) {
      const m = /^(petitioners|respondents)\[(\d+)\]$/.exec(sp.field);
      const source = m ? c[m[1] as 'petitioners' | 'respondents'][Number(m[2])] : sp.field === 'title' ? c.title : c.text;
      assert.equal(source?.slice(sp.start, sp.end), sp.text, `${s.kind} ${sp.field}`);
    }
}

const signalOf = (signals: readonly Signal[], kind: string): Signal | undefined => signals.find((s) => s.kind === kind);

describe('real Supreme Court parties', () => {
  const related = sc.filter((r) => r.pet !== null && /^[A-Z]+ S\/O [A-Z]+ [A-Z]+$/.test(r.pet.trim())).slice(0, 20);

  it('a petitioner with S/O: matched as petitioner, the father corroborates as a relation', () => {
    assert.ok(related.length >= 5, `${String(related.length)} rows`);
    for (const row of related) {
      const [own = '', father = ''] = (row.pet ?? '').trim().split(' S/O ');
      const c = candidateOf(row);
      const plain = extractFeatures(query(own), c);
      assert.equal(plain.features.partyRole, 'petitioner');
      assert.ok(plain.features.nameSimilarity >= 0.95);
      assert.equal(plain.features.relationCorroborated, false);
      assert.deepEqual(plain.matchedParty, { field: 'petitioners[0]', text: row.pet });
      const withFather = extractFeatures(query(own, { knownPersons: [father] }), c);
      assert.equal(withFather.features.relationCorroborated, true, row.pet ?? '');
      assert.equal(signalOf(withFather.signals, 'relation')?.spans[0]?.text, father);
      assertSpansTrue(withFather.signals, c);
      // The father is a relative of the party, never the party: screening him finds no party.
      assert.ok(extractFeatures(query(father), c).features.nameSimilarity < 0.9, row.pet ?? '');
    }
  });

  it('a company respondent with its city: address corroborates, a person screen of it is inconsistent', () => {
    const rows = sc.filter((r) => r.res !== null && /^[A-Z ]+ (?:LTD|LIMITED)\.?, [A-Z]+$/.test(r.res.trim())).slice(0, 20);
    assert.ok(rows.length >= 5, `${String(rows.length)} rows`);
    for (const row of rows) {
      const [name = '', city = ''] = (row.res ?? '').trim().split(', ');
      const c = candidateOf(row);
      const company = extractFeatures(query(name, { entityType: 'company', address: { city } }), c);
      assert.equal(company.features.partyRole, 'respondent');
      assert.equal(company.features.nameSimilarity, 1);
      assert.equal(company.features.addressCorroborated, true, row.res ?? '');
      assert.equal(company.features.entityTypeConsistent, true);
      assert.equal(signalOf(company.signals, 'address')?.spans[0]?.text, city);
      assertSpansTrue(company.signals, c);
      const elsewhere = extractFeatures(query(name, { entityType: 'company', address: { city: 'Port Blair' } }), c);
      assert.equal(elsewhere.features.addressCorroborated, false);
      const asPerson = extractFeatures(query(name), c);
      assert.equal(asPerson.features.entityTypeConsistent, false);
      assert.ok(signalOf(asPerson.signals, 'entity_type_mismatch'));
    }
  });

  it('the other side of the case corroborates as a known person', () => {
    const row = sc.find(
      (r) => r.pet !== null && r.res !== null && /^[A-Z]+ [A-Z]+$/.test(r.pet.trim()) && /^[A-Z]+ [A-Z]+ [A-Z]+$/.test(r.res.trim()),
    );
    assert.ok(row);
    const c = candidateOf(row);
    const f = extractFeatures(query(row.pet ?? '', { knownPersons: [row.res ?? ''] }), c);
    assert.equal(f.features.knownPersonCorroborated, true);
    assert.equal(f.features.relationCorroborated, false);
    assert.equal(signalOf(f.signals, 'known_person')?.spans[0]?.field, 'respondents[0]');
    // The screened name listed as its own known person corroborates nothing.
    assert.equal(extractFeatures(query(row.pet ?? '', { knownPersons: [row.pet ?? ''] }), c).features.knownPersonCorroborated, false);
  });

  it('an "@" alias supplied as an alias is reported as matched through the alias', () => {
    const row = sc.find((r) => r.pet !== null && /^[A-Z]+ [A-Z]+ @ [A-Z]+$/.test(r.pet.trim()));
    assert.ok(row);
    const [, alias = ''] = (row.pet ?? '').split(' @ ');
    const f = extractFeatures(query('Someone Unrelated', { aliases: [alias.trim()] }), candidateOf(row));
    assert.equal(f.features.bestNameVariant, 'alias');
    assert.ok(f.features.nameSimilarity >= 0.95);
  });
});

describe('names outside the party lists (Indian Kanoon judgment texts)', () => {
  const withHeader = ik50
    .map((text) => ({ text, petitioner: /petitioner:\n([a-z .]+)\n/.exec(text)?.[1]?.trim() ?? '' }))
    // One plain name of two content words at least: a one-word name in free text is too common to count.
    .filter((j) => !/\b(?:alias|ors|anr|and)\b|@/.test(j.petitioner))
    .filter(
      (j) =>
        j.petitioner.split(/[ .]+/).filter((w) => w.length > 1 && !/^(?:messrs|ltd|limited|company|co|the|of|and|pvt|private)$/.test(w))
          .length >= 2,
    )
    .slice(0, 10);

  it('a name found only in the text counts, discounted, with role other', () => {
    assert.ok(withHeader.length >= 5, `${String(withHeader.length)} judgments`);
    for (const { text, petitioner } of withHeader) {
      const c: CandidateRecord = { ...candidateOf(sc[0] as ScRow, text), petitioners: [], respondents: [] };
      const f = extractFeatures(query(petitioner, { entityType: 'company' }), c);
      assert.equal(f.features.partyRole, 'other');
      assert.ok(f.features.nameSimilarity > 0.8 && f.features.nameSimilarity <= 0.9, `${petitioner}: ${String(f.features.nameSimilarity)}`);
      assert.ok(signalOf(f.signals, 'name_in_text'));
      assert.equal(f.matchedParty, null);
      assertSpansTrue(f.signals, c);
    }
  });

  it('with no party lists, the cause title is split into its two sides', () => {
    const { text } = withHeader[0] ?? { text: '' };
    const title = text.split('\n')[1] ?? '';
    const [petitioner = ''] = title.split(' vs ');
    const c: CandidateRecord = { ...candidateOf(sc[0] as ScRow), title, petitioners: [], respondents: [] };
    const f = extractFeatures(query(petitioner, { entityType: 'company' }), c);
    assert.equal(f.features.partyRole, 'petitioner');
    assert.equal(f.features.nameSimilarity, 1);
    assert.equal(signalOf(f.signals, 'name')?.spans[0]?.field, 'title');
    assertSpansTrue(f.signals, c);
  });
});

describe('identifiers (a test sentence added to a real judgment text)', () => {
  const gstin = vectors.find((v) => v.type === 'GSTIN' && v.expected_valid)?.value ?? '';
  const cins = vectors.filter((v) => v.type === 'CIN' && v.expected_valid).map((v) => v.value);
  const row = sc.find((r) => r.res !== null && /LTD/.test(r.res)) as ScRow;
  const text = `${ik50[0] ?? ''}\nThe respondent is registered under GSTIN ${gstin} and CIN ${cins[0] ?? ''}.`;
  const c = candidateOf(row, text);
  const company = (identifiers: ScreeningQuery['identifiers']): ScreeningQuery =>
    query(row.res ?? '', { entityType: 'company', identifiers });

  it('the PAN inside a GSTIN in the record is an identifier match, with its span', () => {
    const f = extractFeatures(company({ pan: gstin.slice(2, 12) }), c);
    assert.equal(f.features.identifierMatch, true);
    assert.equal(f.features.identifierConflict, false);
    assert.equal(signalOf(f.signals, 'identifier_match')?.spans[0]?.text, gstin);
    assertSpansTrue(f.signals, c);
  });

  it('a different CIN in the record is a conflict; no identifier supplied is neither', () => {
    const f = extractFeatures(company({ cin: cins[1] ?? '' }), c);
    assert.equal(f.features.identifierConflict, true);
    assert.equal(f.features.identifierMatch, false);
    const none = extractFeatures(company({}), c);
    assert.equal(none.features.identifierMatch || none.features.identifierConflict, false);
  });
});

describe('featureVector', () => {
  it('has one number per documented input, each in [0,1], in the documented order', () => {
    const row = sc.find((r) => r.pet !== null) as ScRow;
    const { features } = extractFeatures(query(row.pet ?? ''), candidateOf(row));
    const v = featureVector(features);
    assert.equal(v.length, FEATURE_NAMES.length);
    for (const x of v) assert.ok(x >= 0 && x <= 1);
    assert.equal(v[FEATURE_NAMES.indexOf('nameSimilarity')], features.nameSimilarity);
    assert.equal(v[FEATURE_NAMES.indexOf('partyRolePetitioner')], 1);
  });
});

describe('address places', () => {
  it('reads GST and two-letter state codes and both names of a renamed city', () => {
    assert.deepEqual(placesOf({ stateCode: '27' }).states, ['MAHARASHTRA']);
    assert.deepEqual(placesOf({ stateCode: 'mh' }).states, ['MAHARASHTRA']);
    assert.deepEqual(placesOf({ city: 'Bombay' }).cities, ['MUMBAI', 'BOMBAY']);
    assert.deepEqual(placesOf({ state: 'Orissa', city: 'New Delhi' }), { cities: ['NEW DELHI'], states: ['ODISHA', 'ORISSA'] });
    assert.deepEqual(placesOf(undefined), { cities: [], states: [] });
  });
});
