/**
 * Watermark figures on the real Supreme Court judgments (sc-judgments-text-ik50 and
 * sc-judgments-text-inabs-sample, judgments and summaries): how often the tracer names the
 * right account from random extracts of 200, 500, 1,000 and 2,000 characters of watermarked text
 * (cut from the watermarked string, so zero-width marks count towards the length), before
 * and after each normalisation a copier might apply; how often it names anyone from
 * unwatermarked extracts; how many characters the watermark changes or adds per 1,000;
 * and embed/extract throughput. The tracer chooses among 1,000 billing accounts whose
 * tags come from the real HMAC tagger, with its production threshold.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { watermarkTagger } from '../src/adapters/crypto/watermark-tag.ts';
import { traceExtract, TRACE_ALPHA, type BillingAccount } from '../src/application/watermark/trace.ts';
import { stripZeroWidthMarks } from '../src/domain/watermark/alphabet.ts';
import { embed } from '../src/domain/watermark/embed.ts';
import { extract } from '../src/domain/watermark/extract.ts';
import { median, table } from './stats.ts';

const LENGTHS = [200, 500, 1000, 2000] as const;
const EXTRACTS_PER_CELL = 400;
const ACCOUNTS = 1000;

const collapseWhitespace = (s: string) =>
  s
    .replace(/\u00a0/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

const NORMALISATIONS: readonly (readonly [string, (s: string) => string])[] = [
  ['as copied', (s) => s],
  ['whitespace collapsed', collapseWhitespace],
  ['zero-width stripped', (s) => s.replace(/[\u200b-\u200f\u2060-\u2064\ufeff]/g, '')],
  ['both', (s) => collapseWhitespace(s.replace(/[\u200b-\u200f\u2060-\u2064\ufeff]/g, ''))],
  ['NFKC', (s) => s.normalize('NFKC')],
];

function realTexts(): string[] {
  const dir = process.env.CORPUS_DIR ?? resolve('../shared/data');
  const rows = (path: string) =>
    readFileSync(join(dir, path), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, string | undefined>);
  const ik50 = rows('sc-judgments-text-ik50/ik50_judgments.jsonl');
  const inAbs = rows('sc-judgments-text-inabs-sample/in_abs_sample.jsonl');
  return [...ik50.flatMap((r) => [r.judgment, r.summary]), ...inAbs.flatMap((r) => [r.judgement, r.summary])].filter(
    (t): t is string => typeof t === 'string' && t.length >= 2500,
  );
}

/** Seeded, so every run cuts the same extracts. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function cut(text: string, length: number, random: () => number): string {
  const start = Math.floor(random() * (text.length - length));
  return text.slice(start, start + length);
}

export async function watermarkBench(): Promise<void> {
  const texts = realTexts();
  const tagOf = watermarkTagger('bench-watermark-secret-0123456789abcdef');
  const accounts: BillingAccount[] = Array.from({ length: ACCOUNTS }, (_, i) => ({
    accountId: `org_bench_${i}`,
    kind: 'organization',
    name: `Bench firm ${i}`,
  }));
  const tags = new Map(accounts.map((a) => [a.accountId, tagOf(a.accountId)]));
  const tagFor = (accountId: string) => tags.get(accountId)!;
  const owner = (doc: number) => accounts[(doc * 7919) % ACCOUNTS]!.accountId;

  const embedMs: number[] = [];
  let marked: string[] = [];
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    marked = texts.map((text, doc) => embed(text, tagFor(owner(doc))));
    embedMs.push(performance.now() - started);
  }
  const extractMs: number[] = [];
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    for (const text of marked) extract(text);
    extractMs.push(performance.now() - started);
  }
  const megabytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0) / 1e6;
  const characters = texts.reduce((sum, t) => sum + t.length, 0);

  let homoglyphs = 0;
  let marks = 0;
  let addedBytes = 0;
  marked.forEach((text, doc) => {
    const visible = stripZeroWidthMarks(text);
    const original = texts[doc]!;
    for (let i = 0; i < original.length; i += 1) if (visible.charCodeAt(i) !== original.charCodeAt(i)) homoglyphs += 1;
    marks += text.length - visible.length;
    addedBytes += Buffer.byteLength(text) - Buffer.byteLength(original);
  });

  console.log(
    `\nWatermark on ${texts.length} real judgment texts and summaries (${(characters / 1e6).toFixed(1)} M characters); tracer over ${ACCOUNTS} accounts, family-wise threshold ${TRACE_ALPHA}; ${EXTRACTS_PER_CELL} extracts per cell`,
  );
  const traceMs: number[] = [];
  const rows: (string | number)[][] = [['extract', ...NORMALISATIONS.map(([name]) => name), 'wrong account (all cells)']];
  for (const length of LENGTHS) {
    const row: (string | number)[] = [`${length} chars, detected %`];
    let wrong = 0;
    for (const [index, [, normalise]] of NORMALISATIONS.entries()) {
      const random = randomSource(length * 31 + index);
      let named = 0;
      for (let k = 0; k < EXTRACTS_PER_CELL; k += 1) {
        const doc = Math.floor(random() * marked.length);
        const piece = normalise(cut(marked[doc]!, length, random));
        const started = performance.now();
        const result = traceExtract(piece, accounts, tagFor);
        traceMs.push(performance.now() - started);
        if (result.found && result.account.accountId === owner(doc)) named += 1;
        else if (result.found) wrong += 1;
      }
      row.push((100 * named) / EXTRACTS_PER_CELL);
    }
    row.push(wrong);
    rows.push(row);
  }
  console.log(table(rows));

  const falsePositives = LENGTHS.map((length) => {
    const random = randomSource(length * 97);
    let named = 0;
    for (let k = 0; k < EXTRACTS_PER_CELL; k += 1) {
      if (traceExtract(cut(texts[Math.floor(random() * texts.length)]!, length, random), accounts, tagFor).found) named += 1;
    }
    return `${length} chars ${named}/${EXTRACTS_PER_CELL}`;
  });
  console.log(`Unwatermarked extracts naming any account (false positives): ${falsePositives.join(', ')}`);
  console.log(
    table([
      ['cost', 'per 1,000 characters'],
      ['letters swapped for homoglyphs', (1000 * homoglyphs) / characters],
      ['zero-width marks inserted', (1000 * marks) / characters],
      ['UTF-8 bytes added', (1000 * addedBytes) / characters],
    ]),
  );
  console.log(
    table([
      ['throughput (median of 3)', 'MB/s'],
      ['embed', megabytes / (median(embedMs) / 1000)],
      ['extract', megabytes / (median(extractMs) / 1000)],
    ]),
  );
  console.log(`Trace of one extract against ${ACCOUNTS} accounts: median ${median(traceMs).toFixed(2)} ms`);
}
