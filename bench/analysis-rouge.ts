/**
 * Evaluates the local extractive analyser (`npx tsx bench/analysis-rouge.ts`): ROUGE-1,
 * ROUGE-2 and ROUGE-L F1 of its detailed summary against the human summaries of the 100
 * IN-Abs Supreme Court judgments, next to two lead baselines cut to the same number of
 * words (the judgment's first words, and the first words after the case line and counsel,
 * where the court's text begins), and the same against the printed headnotes of the ik50
 * judgments (whose header, holding that headnote, both sides leave out); the accuracy per rhetorical role on the labelled
 * sentences of sc-rhetorical-roles-50 (the 25 judgments the cues were read from, and the
 * 25 held out); practice-area agreement with that set's subject categories; and the
 * median time per judgment over every full text in the corpus. ROUGE here: lower-cased
 * alphanumeric tokens, no stemming, no stop-word removal; ROUGE-L is the longest common
 * subsequence over the whole summary. Data is read from CORPUS_DIR (else
 * ../shared/data beside the repository).
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyseJudgment } from '../src/domain/analysis/analyse-judgment.ts';
import { readJudgment } from '../src/domain/analysis/judgment.ts';
import { practiceAreasOf } from '../src/domain/analysis/practice-areas.ts';
import { classifyRoles, ROLES, type Role } from '../src/domain/analysis/rhetorical-roles.ts';
import { median, table } from './stats.ts';

const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(import.meta.dirname, '../../shared/data');

function jsonl<T>(relative: string): T[] {
  return readFileSync(join(CORPUS_DIR, relative), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

const tokens = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

function f1(overlap: number, candidate: number, reference: number): number {
  if (overlap === 0) return 0;
  const p = overlap / candidate;
  const r = overlap / reference;
  return (2 * p * r) / (p + r);
}

function rougeN(candidate: readonly string[], reference: readonly string[], n: number): number {
  const grams = (t: readonly string[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (let i = 0; i + n <= t.length; i++) {
      const g = t.slice(i, i + n).join(' ');
      m.set(g, (m.get(g) ?? 0) + 1);
    }
    return m;
  };
  const c = grams(candidate);
  const r = grams(reference);
  let hit = 0;
  for (const [g, count] of c) hit += Math.min(count, r.get(g) ?? 0);
  return f1(hit, Math.max(1, candidate.length - n + 1), Math.max(1, reference.length - n + 1));
}

function rougeL(candidate: readonly string[], reference: readonly string[]): number {
  let previous = new Uint32Array(reference.length + 1);
  let current = new Uint32Array(reference.length + 1);
  for (const word of candidate) {
    for (let j = 1; j <= reference.length; j++) {
      current[j] = word === reference[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return f1(previous[reference.length]!, candidate.length, reference.length);
}

interface Scores {
  r1: number[];
  r2: number[];
  rl: number[];
}
const scores = (): Scores => ({ r1: [], r2: [], rl: [] });
function add(into: Scores, candidate: string, reference: string): void {
  const c = tokens(candidate);
  const r = tokens(reference);
  into.r1.push(rougeN(c, r, 1));
  into.r2.push(rougeN(c, r, 2));
  into.rl.push(rougeL(c, r));
}
const mean = (v: readonly number[]): number => v.reduce((a, b) => a + b, 0) / v.length;
const firstWords = (text: string, n: number): string => text.split(/\s+/).filter(Boolean).slice(0, n).join(' ');

// ROUGE on IN-Abs.
const inAbs = jsonl<{ doc_id: string; judgement: string; summary: string }>('sc-judgments-text-inabs-sample/in_abs_sample.jsonl');
const ours = scores();
const ourShort = scores();
const lead = scores();
const leadBody = scores();
const lengths: number[] = [];
for (const doc of inAbs) {
  const analysis = analyseJudgment({ caseId: `sc-inabs-${doc.doc_id}`, courtName: 'Supreme Court of India', text: doc.judgement });
  const words = analysis.detailedSummary.split(/\s+/).filter(Boolean).length;
  lengths.push(words);
  add(ours, analysis.detailedSummary, doc.summary);
  add(ourShort, analysis.summary, doc.summary);
  add(lead, firstWords(doc.judgement, words), doc.summary);
  const read = readJudgment(doc.judgement);
  add(leadBody, firstWords(read.paragraphs.slice(read.bodyStart - 1).join(' '), words), doc.summary);
}
const fixed = (v: number): string => v.toFixed(3);
const row = (name: string, s: Scores): string[] => [
  name,
  fixed(median(s.r1)),
  fixed(mean(s.r1)),
  fixed(median(s.r2)),
  fixed(mean(s.r2)),
  fixed(median(s.rl)),
  fixed(mean(s.rl)),
];
console.log(
  `ROUGE F1 against the human summaries of ${String(inAbs.length)} IN-Abs judgments (median words per summary: ${String(median(lengths))})`,
);
console.log(
  table([
    ['summary', 'R-1 median', 'R-1 mean', 'R-2 median', 'R-2 mean', 'R-L median', 'R-L mean'],
    row('local-extractive-v1 detailedSummary', ours),
    row('lead-N (first N words of the text)', lead),
    row('lead-N of the body (after case line, counsel)', leadBody),
    row('local-extractive-v1 summary (short)', ourShort),
  ]),
);

// ROUGE on ik50, whose summaries are the printed headnotes. The text carries that headnote in its
// header, which the analysis leaves out (it reads the body only); the lead baseline here is the body's.
const ik50 = jsonl<{ doc_no: string; judgment: string; summary: string }>('sc-judgments-text-ik50/ik50_judgments.jsonl');
const ikOurs = scores();
const ikLead = scores();
for (const doc of ik50) {
  const analysis = analyseJudgment({ caseId: `sc-ik50-${doc.doc_no}`, courtName: 'Supreme Court of India', text: doc.judgment });
  const words = analysis.detailedSummary.split(/\s+/).filter(Boolean).length;
  add(ikOurs, analysis.detailedSummary, doc.summary);
  const read = readJudgment(doc.judgment);
  add(ikLead, firstWords(read.paragraphs.slice(read.bodyStart - 1).join(' '), words), doc.summary);
}
console.log(`\nROUGE F1 against the printed headnotes of the ${String(ik50.length)} ik50 judgments (header left out of both)`);
console.log(
  table([
    ['summary', 'R-1 median', 'R-1 mean', 'R-2 median', 'R-2 mean', 'R-L median', 'R-L mean'],
    row('local-extractive-v1 detailedSummary', ikOurs),
    row('lead-N of the body', ikLead),
  ]),
);

// Rhetorical roles on sc-rhetorical-roles-50.
const LABELS: Readonly<Record<string, Role>> = {
  Facts: 'facts',
  Argument: 'argument',
  'Ratio of the decision': 'ratio',
  Precedent: 'precedent',
  Statute: 'statute',
  'Ruling by Lower Court': 'lowerCourtRuling',
  'Ruling by Present Court': 'presentCourtRuling',
};
const rr = jsonl<{ doc_id: string; category: string; sentences: { text: string; label: string }[] }>('sc-rhetorical-roles-50/rr50.jsonl');
function roleTable(docs: typeof rr): (string | number)[][] {
  const confusion = new Map<string, number>();
  let right = 0;
  let all = 0;
  for (const doc of docs) {
    const last = Math.max(1, doc.sentences.length - 1);
    const predicted = classifyRoles(doc.sentences.map((s, i) => ({ text: s.text, position: i / last })));
    doc.sentences.forEach((s, i) => {
      const key = `${LABELS[s.label]!}>${predicted[i]!}`;
      confusion.set(key, (confusion.get(key) ?? 0) + 1);
      all += 1;
      if (LABELS[s.label] === predicted[i]) right += 1;
    });
  }
  const rows: (string | number)[][] = [['role', 'sentences', 'precision', 'recall', 'F1']];
  let macro = 0;
  for (const role of ROLES) {
    const tp = confusion.get(`${role}>${role}`) ?? 0;
    const gold = ROLES.reduce((n, p) => n + (confusion.get(`${role}>${p}`) ?? 0), 0);
    const said = ROLES.reduce((n, g) => n + (confusion.get(`${g}>${role}`) ?? 0), 0);
    const p = said === 0 ? 0 : tp / said;
    const r = gold === 0 ? 0 : tp / gold;
    const f = p + r === 0 ? 0 : (2 * p * r) / (p + r);
    macro += f;
    rows.push([role, String(gold), p, r, f]);
  }
  const majority = Math.max(...ROLES.map((g) => ROLES.reduce((n, p) => n + (confusion.get(`${g}>${p}`) ?? 0), 0))) / all;
  rows.push(['accuracy', String(all), right / all, '', '']);
  rows.push(['macro F1', '', '', '', macro / ROLES.length]);
  rows.push(['majority-class accuracy', '', majority, '', '']);
  return rows;
}
console.log('\nRhetorical roles, sentences of the 25 judgments the cues were read from (first 25 of rr50.jsonl)');
console.log(table(roleTable(rr.slice(0, 25))));
console.log('\nRhetorical roles, the 25 held-out judgments (last 25)');
console.log(table(roleTable(rr.slice(25))));

// Practice areas against the rr50 subject categories.
const CATEGORY_AREA: Readonly<Record<string, string>> = {
  'Land & Property': 'Property & Land',
  Constitutional: 'Constitutional',
  Criminal: 'Criminal',
  'Intellectual Property': 'Intellectual Property',
  'Labour & Industrial Law': 'Labour & Employment',
};
let first = 0;
let listed = 0;
for (const doc of rr) {
  const areas = practiceAreasOf(doc.sentences.map((s) => s.text).join('. '));
  if (areas[0] === CATEGORY_AREA[doc.category]) first += 1;
  if (areas.includes(CATEGORY_AREA[doc.category]!)) listed += 1;
}
console.log(
  `\nPractice areas vs rr50 categories: first area matches ${String(first)}/${String(rr.length)}, among those listed ${String(listed)}/${String(rr.length)}`,
);

// Speed over every full text.
const texts = [...inAbs.map((d) => d.judgement), ...ik50.map((d) => d.judgment)];
// Each judgment is timed three times and its fastest run kept: other processes on the machine only ever add time.
const times = texts.map((text, i) => {
  const runs = [0, 1, 2].map(() => {
    const start = performance.now();
    analyseJudgment({ caseId: String(i), courtName: 'Supreme Court of India', text });
    return performance.now() - start;
  });
  return Math.min(...runs);
});
const chars = texts.map((t) => t.length);
console.log(
  `\nAnalysis time over ${String(texts.length)} judgments (median ${String(Math.round(median(chars)))} characters, longest ${String(Math.max(...chars))}): median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (best of 3 runs each, ${String(cpus().length)} CPUs)`,
);
