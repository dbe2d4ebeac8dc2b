/**
 * `npx tsx scripts/calibration/build-eval-set.ts [corpusDir]`: builds the labelled pairs from
 * the real party names in ../shared/data (see eval-set.ts for the method) and writes them to
 * data/calibration/ (gitignored) for fit.ts and report.ts. Deterministic: the same corpus
 * gives the same file.
 */
import { defaultCorpusDir, loadCorpus } from './corpus.ts';
import { calibrationDir, writeEvalSet } from './eval-files.ts';
import { buildEvalSet } from './eval-set.ts';

const started = Date.now();
const corpusDir = process.argv[2] ?? defaultCorpusDir();
const corpus = await loadCorpus(corpusDir);
const set = buildEvalSet(corpus);
const used = new Set(set.pairs.flatMap((p) => [p.candidateCaseId, p.seedCaseId]));
const records = new Map([...used].map((id) => [id, set.cases.get(id)!.record]));
const dir = calibrationDir();
writeEvalSet(dir, { pairs: set.pairs, records, stats: set.stats, builtAt: new Date().toISOString() });
const count = (f: (p: (typeof set.pairs)[number]) => boolean): number => set.pairs.filter(f).length;
console.log(`corpus: ${corpus.length} cases from ${corpusDir}`);
console.log(`seeds: ${set.stats.seeds.person} persons, ${set.stats.seeds.company} companies; ${set.stats.queries} queries`);
for (const split of ['fit', 'heldout'] as const) {
  for (const type of ['person', 'company'] as const) {
    const positives = count((p) => p.split === split && p.entityType === type && p.label === 1);
    const all = count((p) => p.split === split && p.entityType === type);
    console.log(`${split} ${type}: ${all} pairs, ${positives} positive`);
  }
}
console.log(`labels by reason: ${JSON.stringify(set.stats.byReason)}; excluded as ambiguous: ${set.stats.excludedAmbiguous}`);
console.log(`wrote ${set.pairs.length} pairs and ${records.size} records to ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
