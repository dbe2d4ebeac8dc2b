/**
 * How judgments are cut into the paragraphs every analysis refers to, on the corpus texts
 * (read at test time) in both of their layouts, plus a blank-line separated text: Indian
 * Kanoon page footers removed and the sentence they interrupted rejoined, the IN-Abs
 * sentence-a-line text kept a line a paragraph except where the source broke after an
 * abbreviation, the body found after "The Judgment of the Court was delivered by", and
 * what counts as analysable.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { readJudgment, splitSentences } from '../../src/domain/analysis/judgment.ts';
import { isAnalysable, paragraphsOf } from '../../src/domain/analysis/paragraphs.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../../shared/data');
const texts = (relative: string, field: string): string[] =>
  readFileSync(join(CORPUS_DIR, relative), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => String((JSON.parse(l) as Record<string, unknown>)[field]));
const IK = texts('sc-judgments-text-ik50/ik50_judgments.jsonl', 'judgment');
const INABS = texts('sc-judgments-text-inabs-sample/in_abs_sample.jsonl', 'judgement');

describe('paragraphs of an Indian Kanoon text (hard-wrapped, page footers)', () => {
  it('removes every page footer, leaving no site address in any paragraph', () => {
    for (const text of IK) {
      const paragraphs = paragraphsOf(text);
      assert.ok(paragraphs.length > 5);
      assert.ok(
        !paragraphs.some((p) => /indiankanoon\.org/.test(p)),
        paragraphs.find((p) => /indiankanoon/.test(p)),
      );
    }
  });

  it('rejoins the sentence a page break cut ("... an employee without" / "assigning reasons")', () => {
    const dtc = IK.find((t) => t.includes('delhi transport corporation vs d.t.c. mazdoor congress'))!;
    assert.ok(dtc.includes('withoutdelhi transport corporation'), 'the source glues the footer to the text');
    assert.ok(paragraphsOf(dtc).some((p) => p.includes('an employee without assigning reasons and holding enquiry')));
  });

  it('joins hard-wrapped lines into paragraphs rather than keeping a paragraph a line', () => {
    const text = IK[3]!;
    const lines = text.split('\n').filter((l) => l.trim() !== '').length;
    assert.ok(paragraphsOf(text).length < lines / 4, `${String(paragraphsOf(text).length)} paragraphs from ${String(lines)} lines`);
  });

  it('starts the body at "the judgment of the court was delivered by", after the header and headnote', () => {
    const text = IK.find((t) => t.includes('smt. santa sila devi and another vs dhirendra nath sen'))!;
    const read = readJudgment(text);
    const opening = read.paragraphs[read.bodyStart - 1]!;
    assert.match(opening, /the judgment of the court was delivered by ayyangar j/);
    assert.ok(read.paragraphs.slice(0, read.bodyStart - 1).some((p) => p.startsWith('headnote:')));
    assert.ok(read.sentences.every((s) => s.paragraph >= read.bodyStart));
    assert.ok(read.lowerCase);
  });

  it('never lets the printed headnote into the body of any of the 50 judgments', () => {
    for (const text of IK) {
      const read = readJudgment(text);
      const headnote = read.paragraphs.findIndex((p) => p === 'headnote:');
      assert.ok(headnote >= 0, 'every ik50 text has a headnote label');
      assert.ok(read.bodyStart > headnote + 1, `body starts at ${String(read.bodyStart)}, headnote label at ${String(headnote + 1)}`);
    }
  });
});

describe('paragraphs of an IN-Abs text (a sentence a line)', () => {
  it('keeps a line a paragraph: the first sentence of the judgment stands alone', () => {
    const text = INABS.find((t) => t.includes('The facts out of which this Crimi nal Appeal has arisen are not long.'))!;
    const paragraphs = paragraphsOf(text);
    assert.ok(paragraphs.includes('The facts out of which this Crimi nal Appeal has arisen are not long.'));
    const read = readJudgment(text);
    assert.match(read.paragraphs[read.bodyStart - 1]!, /^The Judgment of the Court was deliv ered by CHANDRASEKHARA AIYAR J\.$/);
    assert.equal(read.sentences[0]!.text, 'The facts out of which this Crimi nal Appeal has arisen are not long.');
    assert.equal(read.lowerCase, false);
  });

  it('rejoins a sentence the source broke after an abbreviation ("s.\\n19")', () => {
    const broken = INABS.map((t) => t.replace(/\r/g, '')).find((t) => /\bsec\.\n\d/.test(t));
    assert.ok(broken, 'the corpus has a sentence broken after "sec."');
    const at = /[^\n]*\bsec\.\n\d[^\n]*/.exec(broken)![0];
    assert.ok(paragraphsOf(broken).some((p) => p.includes(at.replace('\n', ' '))));
  });

  it('numbers the same text the same way every time', () => {
    for (const text of INABS.slice(0, 10)) assert.deepEqual(paragraphsOf(text), paragraphsOf(text));
  });
});

describe('other layouts and sentences', () => {
  it('splits blank-line separated paragraphs and squeezes their wrapping', () => {
    const text = 'First paragraph of the judgment\nwrapped here.\n\nSecond paragraph.\n\n\nThird one.';
    assert.deepEqual(paragraphsOf(text), ['First paragraph of the judgment wrapped here.', 'Second paragraph.', 'Third one.']);
  });

  it('does not end a sentence at "No.", "s.", initials or "v."', () => {
    assert.deepEqual(splitSentences('The appeal under s. 19 (2) in Appeal No. 5 was heard by A. K. Sen J. The order stands.'), [
      'The appeal under s. 19 (2) in Appeal No. 5 was heard by A. K. Sen J. The order stands.',
    ]);
    assert.deepEqual(splitSentences('The decision in Ram v. Shyam was followed. The appeal fails.'), [
      'The decision in Ram v. Shyam was followed.',
      'The appeal fails.',
    ]);
  });
});

describe('isAnalysable', () => {
  it('accepts every judgment text in the corpus', () => {
    for (const text of [...IK, ...INABS]) assert.ok(isAnalysable(text));
  });

  it('refuses text with no paragraph of prose', () => {
    assert.equal(isAnalysable(''), false);
    assert.equal(isAnalysable('   \n\n  '), false);
    assert.equal(isAnalysable('12\n13\n(1) ; , 21, 24.\n(2) ; , 213.'), false);
    assert.equal(isAnalysable('K. T. Desai, for the appellants.\nNovember 10.'), false);
  });
});
