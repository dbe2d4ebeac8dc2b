/**
 * Regenerates src/reference/data/courts.json and case-types.json from the shared datasets
 * (CORPUS_DIR, default ../shared/data) and the curated facts in src/reference/curated.ts.
 * Run: npx tsx scripts/build-reference.ts. The output is byte-stable, and a unit test checks
 * the committed files still equal what this produces.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildReference, serialiseReference, SOURCE_PATHS, type ReferenceSources } from '../src/reference/build.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const OUTPUT_FILES = {
  courts: join(repoRoot, 'src/reference/data/courts.json'),
  caseTypes: join(repoRoot, 'src/reference/data/case-types.json'),
} as const;

export function defaultDataDir(): string {
  return resolve(repoRoot, process.env['CORPUS_DIR'] ?? '../shared/data');
}

export async function readSources(dataDir: string): Promise<ReferenceSources> {
  const entries = await Promise.all(
    Object.entries(SOURCE_PATHS).map(async ([key, path]) => [key, await readFile(join(dataDir, path), 'utf8')] as const),
  );
  const texts = Object.fromEntries(entries);
  const read = (key: keyof ReferenceSources): string => {
    const text = texts[key];
    if (text === undefined) throw new Error(`source ${key} was not read`);
    return text;
  };
  return {
    courtCodesJson: read('courtCodesJson'),
    benchCodesJson: read('benchCodesJson'),
    highCourtsCsv: read('highCourtsCsv'),
    hcCaseTypesCsv: read('hcCaseTypesCsv'),
    hcServicesCourtsCsv: read('hcServicesCourtsCsv'),
    hcServicesCaseTypesCsv: read('hcServicesCaseTypesCsv'),
    scJudgmentsJsonl: read('scJudgmentsJsonl'),
    tribunalsJson: read('tribunalsJson'),
  };
}

async function main(): Promise<void> {
  const dataDir = defaultDataDir();
  const built = buildReference(await readSources(dataDir));
  await mkdir(dirname(OUTPUT_FILES.courts), { recursive: true });
  await writeFile(OUTPUT_FILES.courts, serialiseReference(built.courts));
  await writeFile(OUTPUT_FILES.caseTypes, serialiseReference(built.caseTypes));
  const benches = built.courts.courts.reduce((n, c) => n + c.benches.length, 0);
  const codes = built.caseTypes.caseTypes.reduce((n, t) => n + t.codes.length, 0);
  process.stdout.write(
    `reference built from ${dataDir}: ${built.courts.courts.length} courts, ${benches} benches, ` +
      `${built.caseTypes.caseTypes.length} case-type labels, ${codes} codes\n`,
  );
}

// Only run when executed directly, so the unit test can import readSources.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
