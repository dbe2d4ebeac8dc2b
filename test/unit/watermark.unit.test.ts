/**
 * The watermark on real Supreme Court judgment text: round trips for many account tags,
 * random 200-character extracts, extracts after whitespace normalisation and zero-width
 * stripping, unwatermarked text never naming an account, JSON safety, identifiers left
 * byte-identical, and the visible text unchanged once homoglyphs are folded back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { traceExtract, type BillingAccount } from '../../src/application/watermark/trace.ts';
import { foldHomoglyphs, stripZeroWidthMarks } from '../../src/domain/watermark/alphabet.ts';
import { embed, embedSteps, jsonPlanOf, markedJson, planSteps } from '../../src/domain/watermark/embed.ts';
import { finish } from '../../src/domain/steps.ts';
import { extract } from '../../src/domain/watermark/extract.ts';
import { TagMatcher } from '../../src/domain/watermark/match.ts';
import { tagFromBytes, type AccountTag } from '../../src/domain/watermark/tag.ts';
import { corpusDir } from '../support/corpus.ts';

function jsonl(path: string, field: string): string[] {
  return readFileSync(join(corpusDir, path), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as Record<string, string>)[field]!);
}

const texts = [
  ...jsonl('sc-judgments-text-ik50/ik50_judgments.jsonl', 'judgment').slice(0, 12),
  ...jsonl('sc-judgments-text-inabs-sample/in_abs_sample.jsonl', 'judgement').slice(0, 12),
];

/** Deterministic pseudo-random numbers so failures reproduce. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Distinct tags from a fixed generator (tests of the domain need no HMAC). */
function tagsFor(count: number, seed: number): AccountTag[] {
  const random = randomSource(seed);
  return Array.from({ length: count }, () => tagFromBytes(Uint8Array.from({ length: 8 }, () => Math.floor(random() * 256))));
}

const accounts: BillingAccount[] = Array.from({ length: 500 }, (_, i) => ({
  accountId: `acct_${i}`,
  kind: 'organization',
  name: `Firm ${i}`,
}));
const tags = tagsFor(accounts.length, 42);
const tagOf = (accountId: string) => tags[Number(accountId.slice(5))]!;
const marked = texts.map((text, i) => embed(text, tags[i % tags.length]!));

const collapse = (s: string) =>
  s
    .replace(/\u00a0/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** Traces `count` random extracts of `length` characters, each normalised by `normalise`. */
function traceRate(length: number, count: number, normalise: (s: string) => string, seed: number) {
  const random = randomSource(seed);
  let named = 0;
  let wrong = 0;
  for (let k = 0; k < count; k += 1) {
    const doc = Math.floor(random() * marked.length);
    const text = marked[doc]!;
    const start = Math.floor(random() * (text.length - length));
    const result = traceExtract(normalise(text.slice(start, start + length)), accounts, tagOf);
    if (result.found && result.account.accountId === `acct_${doc % tags.length}`) named += 1;
    else if (result.found) wrong += 1;
  }
  return { rate: named / count, wrong };
}

describe('watermark', () => {
  it('names the right account from whole judgments, for many tags', () => {
    for (const [i, text] of marked.entries()) {
      const matcher = new TagMatcher(extract(text));
      const fits = tags.map((tag) => matcher.fit(tag));
      const own = fits[i % tags.length]!;
      assert.equal(own.score, own.maxScore, `document ${i}: every vote agrees with its own tag`);
      assert.ok(own.pValue < 1e-15, `document ${i}: p ${own.pValue}`);
      assert.ok(
        fits.every((fit, t) => t === i % tags.length || fit.score < own.score),
        `document ${i}: no other tag fits as well`,
      );
    }
  });

  it('names the account from random 200-character extracts', () => {
    const { rate, wrong } = traceRate(200, 300, (s) => s, 1);
    assert.equal(wrong, 0);
    assert.ok(rate >= 0.95, `detection ${rate}`);
  });

  it('survives whitespace normalisation of 200-character extracts', () => {
    const { rate, wrong } = traceRate(200, 300, collapse, 2);
    assert.equal(wrong, 0);
    assert.ok(rate >= 0.95, `detection ${rate}`);
  });

  it('survives zero-width stripping plus whitespace normalisation of 2,000-character extracts', () => {
    const { rate, wrong } = traceRate(2000, 200, (s) => collapse(stripZeroWidthMarks(s)), 3);
    assert.equal(wrong, 0);
    assert.ok(rate >= 0.95, `detection ${rate}`);
  });

  it('finds no watermark in unwatermarked text', () => {
    const random = randomSource(4);
    for (let k = 0; k < 300; k += 1) {
      const text = texts[Math.floor(random() * texts.length)]!;
      const start = Math.floor(random() * (text.length - 2000));
      const piece = text.slice(start, start + 200 + Math.floor(random() * 1800));
      const extraction = extract(piece);
      assert.equal(extraction.marks.onCarrier, 0);
      assert.equal(extraction.confidence, 0);
      assert.equal(traceExtract(piece, accounts, tagOf).found, false);
    }
  });

  it('names nobody from stray homoglyphs and zero-width characters', () => {
    const random = randomSource(5);
    for (let k = 0; k < 100; k += 1) {
      const text = texts[Math.floor(random() * texts.length)]!;
      const start = Math.floor(random() * (text.length - 1000));
      const stray = text.slice(start, start + 1000).replace(/./gs, (char) => {
        if (char === 'a' && random() < 0.3) return '\u0430';
        return random() < 0.1 ? `${char}\u200b` : char;
      });
      assert.equal(traceExtract(stray, accounts, tagOf).found, false);
      assert.ok(extract(stray).confidence < 0.5);
    }
  });

  it('reports its own marks as a watermark with high confidence', () => {
    const extraction = extract(marked[0]!.slice(5000, 5500));
    assert.ok(extraction.confidence > 0.999, `confidence ${extraction.confidence}`);
    assert.equal(extraction.marks.offCarrier, 0);
  });

  it('stays a valid JSON string and adds no control characters', () => {
    for (const [i, text] of marked.entries()) {
      assert.deepEqual(JSON.parse(JSON.stringify({ text })), { text });
      const controls = (s: string) => s.replace(/[^\u0000-\u001f\u007f-\u009f]/g, '');
      assert.equal(controls(text), controls(texts[i]!), `document ${i}`);
    }
  });

  it('shows the reader the same text once homoglyphs are folded back', () => {
    for (const [i, text] of marked.entries()) {
      assert.notEqual(text, texts[i]);
      assert.equal(foldHomoglyphs(stripZeroWidthMarks(text)), texts[i]);
    }
  });

  it('changes no digit and no word near one', () => {
    for (const [i, text] of marked.entries()) {
      const before = texts[i]!.split(/\s+/);
      const after = stripZeroWidthMarks(text).split(/\s+/);
      assert.equal(after.length, before.length);
      before.forEach((word, w) => {
        const nearDigits = before.slice(Math.max(0, w - 2), w + 3).some((near) => /\d/.test(near));
        if (nearDigits) assert.equal(after[w], word, `document ${i}, word ${w}`);
      });
      const raw = text.split(/\s+/);
      before.forEach((word, w) => {
        if (/\d/.test(word)) assert.equal(raw[w], word, `document ${i}: zero-width mark inside ${word}`);
      });
    }
  });

  it('leaves case numbers, citations and URLs byte-identical inside prose', () => {
    const prose = texts[13]!.slice(3000, 3600);
    const identifiers = [
      'Civil Appeal No. 1918 of 2015',
      'C.A. No.-001918-001918 - 2015',
      'W.P.(C) 5678/2019',
      '(2015) 3 SCC 123',
      '1991 air 101, 1990 scr supl. (1) 142',
      'http://indiankanoon.org/doc/1234567/',
    ];
    for (const [t, tag] of tagsFor(20, 7).entries()) {
      for (const identifier of identifiers) {
        const out = embed(`${prose} ${identifier} ${prose}`, tag);
        assert.ok(out.includes(identifier), `tag ${t}: ${identifier}`);
      }
    }
  });

  it('changes few characters: under 40 homoglyphs per 1,000', () => {
    let changed = 0;
    let total = 0;
    for (const [i, text] of marked.entries()) {
      const visible = stripZeroWidthMarks(text);
      const original = texts[i]!;
      for (let k = 0; k < original.length; k += 1) if (visible[k] !== original[k]) changed += 1;
      total += original.length;
    }
    const perThousand = (changed / total) * 1000;
    assert.ok(perThousand > 5 && perThousand < 40, `${perThousand} per 1,000`);
  });

  it('marks a text in steps exactly as in one piece, pausing once per step', () => {
    for (const [i, text] of texts.entries()) {
      const steps = embedSteps(text, tags[i % tags.length]!, 1000);
      let pauses = 0;
      let step = steps.next();
      for (; !step.done; step = steps.next()) pauses += 1;
      assert.equal(step.value, marked[i]);
      assert.equal(pauses, Math.ceil(text.length / 1000) - 1);
    }
  });

  it('writes the marked text as JSON string bytes from a plan made once per text, for every account', () => {
    const decoder = new TextDecoder();
    const awkward =
      'He said "appeal" \\ then\n\tleft\u0001; a \u200bmarked\u200c word, an emoji \ud83d\ude00 here and a lone \ud800 there, across enough words for marks to land';
    for (const [i, text] of [...texts, awkward].entries()) {
      const json = jsonPlanOf(finish(planSteps(text)));
      for (const tag of [tags[i % tags.length]!, tags[(i + 7) % tags.length]!]) {
        const bytes = markedJson(json, tag);
        assert.equal(decoder.decode(bytes), JSON.stringify(embed(text, tag)));
      }
    }
  });
});
