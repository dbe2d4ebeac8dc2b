/**
 * Chunking on real judgment texts (Indian Kanoon 50: lower-cased, hard-wrapped at about
 * 60 characters; IN-Abs: one sentence a line): chunks stay within the size, start and end
 * at paragraph or sentence ends, overlap the chunk before, cover the judgment from its
 * first words to its last, and every chunk carries the case heading.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { caseHeading, chunkCase, chunkText, paragraphs, USE_LITE_CHUNKING } from '../../src/domain/semantic/chunking.ts';
import { corpusDir } from '../support/corpus.ts';

function rows(folder: string, file: string): Record<string, string>[] {
  return readFileSync(join(corpusDir, folder, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, string>);
}

const ik50 = rows('sc-judgments-text-ik50', 'ik50_judgments.jsonl').map((r) => r.judgment ?? '');
const inAbs = rows('sc-judgments-text-inabs-sample', 'in_abs_sample.jsonl');
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

describe('chunkText on real judgments', () => {
  for (const [name, texts] of [
    ['Indian Kanoon 50', ik50.slice(0, 10)],
    ['IN-Abs', inAbs.slice(0, 10).map((r) => r.judgement ?? '')],
  ] as const)
    it(`${name}: sized, overlapping, and covering the whole text`, () => {
      for (const text of texts) {
        const chunks = chunkText(text, USE_LITE_CHUNKING);
        assert.ok(chunks.length >= Math.floor(squash(text).length / USE_LITE_CHUNKING.maxChars));
        for (const c of chunks) assert.ok(c.length <= USE_LITE_CHUNKING.maxChars, `chunk of ${String(c.length)} characters`);
        for (let i = 1; i < chunks.length; i++) {
          const previous = chunks[i - 1] ?? '';
          const current = chunks[i] ?? '';
          const shared = Array.from({ length: USE_LITE_CHUNKING.overlapChars }, (_, k) => k + 1).filter((k) =>
            previous.endsWith(current.slice(0, k)),
          );
          assert.ok((shared.at(-1) ?? 0) >= 3, `chunk ${String(i)} does not overlap the one before`);
        }
        const words = squash(text).split(' ');
        assert.ok(chunks[0]?.startsWith(words.slice(0, 3).join(' ').replace(/-$/, '')));
        assert.ok(chunks.at(-1)?.endsWith(words.slice(-1)[0] ?? ''));
      }
    });

  it('joins words hyphenated across wrapped lines and keeps numbered paragraphs apart', () => {
    const text = ik50[0] ?? '';
    assert.match(text, /appoint-\nment/);
    const paras = paragraphs(text);
    assert.ok(paras.some((p) => p.includes('appointment and service')));
    assert.ok(paras.length > 100, `${String(paras.length)} paragraphs`);
  });

  it('IN-Abs: a chunk ends at a sentence end', () => {
    const chunks = chunkText(inAbs[1]?.judgement ?? '', USE_LITE_CHUNKING);
    assert.ok(chunks.length > 2);
    const ended = chunks.slice(0, -1).filter((c) => /[.?!:]["')\]]?$/.test(c)).length;
    assert.ok(ended >= chunks.length - 2, `${String(ended)} of ${String(chunks.length - 1)} chunks end a sentence`);
  });
});

describe('chunkCase', () => {
  const row = inAbs[0] ?? {};
  const text = {
    caseNumber: 'Criminal Appeal No. 8 of 1951',
    title: null,
    petitioners: [],
    respondents: [],
    summary: row.summary ?? null,
    text: row.judgement ?? null,
  };

  it('puts the summary first, under the heading, within the chunk budget', () => {
    const chunks = chunkCase(text, { ...USE_LITE_CHUNKING, maxChunks: 6 });
    assert.equal(chunks.length, 6);
    assert.ok(chunks.every((c, i) => c.chunkNo === i && c.content.startsWith('Criminal Appeal No. 8 of 1951\n')));
    assert.ok(chunks[0]?.content.includes(squash(row.summary ?? '').slice(0, 60)));
    assert.ok(chunks.at(-1)?.content.endsWith(squash(row.judgement ?? '').slice(-30)), 'the last text chunk is kept');
  });

  it('names the case by title, else by its parties', () => {
    assert.equal(
      caseHeading({ ...text, petitioners: ['W.H. King'], respondents: ['Republic of India'] }),
      'W.H. King v. Republic of India (Criminal Appeal No. 8 of 1951)',
    );
    assert.equal(caseHeading({ ...text, title: 'King v. Republic' }), 'King v. Republic (Criminal Appeal No. 8 of 1951)');
  });

  it('gives nothing to embed without summary or text', () => {
    assert.deepEqual(chunkCase({ ...text, summary: null, text: null }), []);
  });
});
