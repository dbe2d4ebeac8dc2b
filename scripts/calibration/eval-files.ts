/**
 * Where the built evaluation set lives between the scripts: `data/calibration/` in the
 * repository, which .gitignore already keeps out of commits (`/data/`), or CALIBRATION_DIR.
 * Pairs are JSON lines; the candidate records they point to are written once beside them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CandidateRecord } from '../../src/domain/screening/features.ts';
import type { EvalPair, EvalSetStats } from './eval-set.ts';

export function calibrationDir(): string {
  return process.env.CALIBRATION_DIR ?? resolve(import.meta.dirname, '../../data/calibration');
}

export interface StoredEvalSet {
  pairs: EvalPair[];
  records: Map<string, CandidateRecord>;
  stats: EvalSetStats;
  builtAt: string;
}

export function writeEvalSet(dir: string, set: StoredEvalSet): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'pairs.jsonl'), set.pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
  writeFileSync(join(dir, 'records.jsonl'), [...set.records.values()].map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(join(dir, 'stats.json'), JSON.stringify({ builtAt: set.builtAt, ...set.stats }, null, 2) + '\n');
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

export function readEvalSet(dir: string): StoredEvalSet {
  const pairsPath = join(dir, 'pairs.jsonl');
  let pairLines: string[];
  try {
    pairLines = lines(pairsPath);
  } catch {
    throw new Error(`no evaluation set at ${pairsPath}: run \`npx tsx scripts/calibration/build-eval-set.ts\` first`);
  }
  const records = new Map<string, CandidateRecord>();
  for (const line of lines(join(dir, 'records.jsonl'))) {
    const record = JSON.parse(line) as CandidateRecord;
    records.set(record.caseId, record);
  }
  const { builtAt, ...stats } = JSON.parse(readFileSync(join(dir, 'stats.json'), 'utf8')) as EvalSetStats & { builtAt: string };
  return { pairs: pairLines.map((l) => JSON.parse(l) as EvalPair), records, stats, builtAt };
}
