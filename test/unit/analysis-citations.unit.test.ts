/**
 * Citation parsing and treatment, on citations and sentences read from the shared corpus
 * at test time (CORPUS_DIR, else ../shared/data beside the repo): the Indian Kanoon
 * equivalent-citation lines, the IN-Abs law-report text and the Indlaw/SCC citations of
 * the rhetorical-role set. The formats the corpus lacks (SCALE and JT in their current
 * print, neutral citations) are checked on the spec's own format examples.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { Citation } from '../../src/domain/analysis/case-analysis.ts';
import { citationKey, findCitations } from '../../src/domain/analysis/citations.ts';
import { treatmentIn } from '../../src/domain/analysis/citation-treatment.ts';
import { citedCasesIn } from '../../src/domain/analysis/cited-cases.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
const texts = (relative: string, field: string): string[] =>
  readFileSync(join(CORPUS_DIR, relative), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const row = JSON.parse(l) as Record<string, unknown>;
      return field === 'sentences' ? (row.sentences as { text: string }[]).map((s) => s.text).join('\n') : String(row[field]);
    });
const IK = texts('sc-judgments-text-ik50/ik50_judgments.jsonl', 'judgment');
const INABS = texts('sc-judgments-text-inabs-sample/in_abs_sample.jsonl', 'judgement');
const RR = texts('sc-rhetorical-roles-50/rr50.jsonl', 'sentences');

/** The line or sentence of the corpus holding `needle`, whitespace squeezed. */
function corpusSentence(corpus: readonly string[], needle: string): string {
  for (const text of corpus) {
    const flat = text.replace(/\s+/g, ' ');
    const at = flat.indexOf(needle);
    if (at >= 0) {
      const start = Math.max(flat.lastIndexOf('. ', at) + 2, 0);
      const end = flat.indexOf('. ', at + needle.length);
      return flat.slice(start, end < 0 ? undefined : end + 1);
    }
  }
  assert.fail(`the corpus no longer contains "${needle}"`);
}

function parts(c: Citation | undefined): Record<string, unknown> {
  assert.ok(c, 'no citation found');
  const { printed: _printed, ...rest } = c;
  return rest;
}

describe('citations printed in the corpus', () => {
  it('reads the Indian Kanoon equivalent citations of Delhi Transport Corporation (AIR, SCR Supp, SCC Supp, JT, SCALE)', () => {
    const header = IK.find((t) => t.includes('delhi transport corporation vs d.t.c. mazdoor congress'));
    assert.ok(header);
    const found = findCitations(header.slice(0, 2000)).map((m) => m.citation);
    const printed = found.map((c) => c.printed);
    assert.ok(printed.includes('1991 air 101'), printed.join(' | '));
    assert.deepEqual(parts(found.find((c) => c.printed === '1991 air 101')), {
      kind: 'report',
      reporter: 'AIR',
      year: 1991,
      volume: null,
      court: null,
      page: 101,
    });
    assert.deepEqual(parts(found.find((c) => c.printed === '1990 scr supl. (1) 142')), {
      kind: 'report',
      reporter: 'SCR',
      year: 1990,
      volume: 'Supp (1)',
      court: null,
      page: 142,
    });
    assert.deepEqual(parts(found.find((c) => c.kind === 'report' && c.reporter === 'SCC')), {
      kind: 'report',
      reporter: 'SCC',
      year: 1991,
      volume: 'Supp (1)',
      court: null,
      page: 600,
    });
    assert.deepEqual(parts(found.find((c) => c.kind === 'report' && c.reporter === 'JT')), {
      kind: 'report',
      reporter: 'JT',
      year: 1990,
      volume: '3',
      court: null,
      page: 725,
    });
    assert.deepEqual(parts(found.find((c) => c.kind === 'report' && c.reporter === 'SCALE')), {
      kind: 'report',
      reporter: 'SCALE',
      year: 1990,
      volume: '2',
      court: null,
      page: 1,
    });
  });

  it('reads dotted AIR and bracketed SCR citations in the IN-Abs law-report text', () => {
    const air = findCitations(corpusSentence(INABS, 'A.I.R. 1950 Calcutta 230')).map((m) => m.citation);
    assert.ok(
      air.some((c) => c.kind === 'report' && c.reporter === 'AIR' && c.year === 1950 && c.court === 'Calcutta' && c.page === 230),
      JSON.stringify(air),
    );
    const scr = findCitations(corpusSentence(INABS, '[1972] 2 S.C.R. 353')).map((m) => m.citation);
    assert.ok(scr.some((c) => c.kind === 'report' && c.reporter === 'SCR' && c.year === 1972 && c.volume === '2' && c.page === 353));
  });

  it('reads SCC and Indlaw citations side by side in the rhetorical-role set', () => {
    const found = findCitations(corpusSentence(RR, '(1997) 5 SCC 86')).map((m) => m.citation);
    assert.ok(found.some((c) => c.kind === 'report' && c.reporter === 'SCC' && c.year === 1997 && c.volume === '5' && c.page === 86));
    assert.ok(found.some((c) => c.kind === 'report' && c.reporter === 'Indlaw' && c.court === 'SC'));
  });

  it('reads English reports the older judgments cite', () => {
    const found = findCitations(corpusSentence(IK, '(1853) 138 e. r. 1284')).map((m) => m.citation);
    assert.ok(found.some((c) => c.kind === 'report' && c.reporter === 'ER' && c.year === 1853 && c.volume === '138' && c.page === 1284));
  });
});

describe('citation formats named in the spec', () => {
  const cases: readonly [string, Record<string, unknown>][] = [
    ['AIR 1973 SC 1461', { kind: 'report', reporter: 'AIR', year: 1973, volume: null, court: 'SC', page: 1461 }],
    ['(1973) 4 SCC 225', { kind: 'report', reporter: 'SCC', year: 1973, volume: '4', court: null, page: 225 }],
    ['[1973] Supp. SCR 1', { kind: 'report', reporter: 'SCR', year: 1973, volume: 'Supp', court: null, page: 1 }],
    ['1950 SCR 519', { kind: 'report', reporter: 'SCR', year: 1950, volume: null, court: null, page: 519 }],
    ['2004 (6) SCALE 123', { kind: 'report', reporter: 'SCALE', year: 2004, volume: '6', court: null, page: 123 }],
    ['JT 2003 (5) SC 1', { kind: 'report', reporter: 'JT', year: 2003, volume: '5', court: 'SC', page: 1 }],
    ['2023 INSC 1', { kind: 'neutral', year: 2023, court: 'INSC', number: 1 }],
    ['2019:DHC:1234', { kind: 'neutral', year: 2019, court: 'DHC', number: 1234 }],
  ];
  for (const [printed, expected] of cases) {
    it(printed, () => {
      const found = findCitations(`as held in the case reported in ${printed}, the appeal`);
      assert.equal(found.length, 1);
      assert.equal(found[0]!.citation.printed, printed);
      assert.deepEqual(parts(found[0]!.citation), expected);
    });
  }

  it('finds no citation in section numbers, years and the word "scale"', () => {
    assert.deepEqual(findCitations(corpusSentence(INABS, 'drawn to scale and incorporated in the lease')), []);
    assert.deepEqual(findCitations('under section 12 of Act XXXI of 1950 the Custodian may cancel a lease'), []);
  });

  it('gives the same key to one report however it is printed', () => {
    const [a] = findCitations('[1981] 2 scr 516');
    const [b] = findCitations('[1981] 2 S.C.R. 516');
    assert.ok(a && b);
    assert.equal(citationKey(a.citation), citationKey(b.citation));
    const [c] = findCitations('[1981] 3 S.C.R. 516');
    assert.notEqual(citationKey(a.citation), citationKey(c!.citation));
  });
});

describe('treatment of a cited case, read from corpus sentences', () => {
  it('overruled: "does not lay down good law and is overruled"', () => {
    assert.equal(treatmentIn(corpusSentence(INABS, 'does not lay down good law and is overruled')), 'overruled');
  });

  it('distinguished: "on which the learned Attorney General relies, is distinguishable"', () => {
    assert.equal(treatmentIn(corpusSentence(INABS, 'on which the learned Attorney General relies, is distinguishable')), 'distinguished');
  });

  it('distinguished: "was distinguished on the ground that"', () => {
    assert.equal(treatmentIn(corpusSentence(INABS, 'Sher Singh vs Union of India, ; was distinguished')), 'distinguished');
  });

  it('followed: "considered and followed" in an Indian Kanoon headnote', () => {
    assert.equal(treatmentIn(corpusSentence(IK, 'con- sidered and followed').replace('con- sidered', 'considered')), 'followed');
  });

  it('referred, not followed, when counsel is the one relying on the case', () => {
    assert.equal(treatmentIn(corpusSentence(INABS, 'The learned counsel for the State relied on Mamand vs Emperor')), 'referred');
  });

  it('overruling an objection is not overruling a case', () => {
    assert.equal(treatmentIn('We, therefore, overrule the preliminary objection raised in reliance on AIR 1954 SC 1.'), 'referred');
  });
});

describe('cited cases of a judgment', () => {
  it('groups parallel citations printed with "=" into one case, named from the words before it', () => {
    const sentence = corpusSentence(IK, '[1981] 2 scr 516 = air 1981 sc 746, referred to');
    const cited = citedCasesIn([{ text: sentence, paragraph: 4 }], 'doc', true);
    const all = [...cited.followed, ...cited.distinguished, ...cited.overruled, ...cited.referred];
    const mullen = all.find((c) => c.citations.some((x) => x.printed === '[1981] 2 scr 516'));
    assert.ok(mullen, JSON.stringify(all));
    assert.deepEqual(
      mullen.citations.map((c) => c.printed),
      ['[1981] 2 scr 516', 'air 1981 sc 746'],
    );
    assert.deepEqual(mullen.paragraphs, [4]);
    assert.equal(mullen.caseId, 'doc');
  });

  it('names a case cited without a citation and files it by its treatment', () => {
    const sentence = corpusSentence(INABS, 'on which the learned Attorney General relies, is distinguishable');
    const cited = citedCasesIn([{ text: sentence, paragraph: 9 }], 'doc', false);
    assert.deepEqual(
      cited.distinguished.map((c) => c.caseName),
      ['Baijnath Kedia vs State of Bihar & Ors.'],
    );
    assert.deepEqual(cited.followed, []);
  });
});
