/**
 * Unit tests of the reference data: the committed JSON validates, covers every High Court
 * and bench of the source dataset, resolves court names and case-type labels as search
 * needs, and is exactly what the generator produces from the shared data (so the files
 * cannot drift from scripts/build-reference.ts). Reads the shared datasets; writes nothing.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { defaultDataDir, OUTPUT_FILES, readSources } from '../../scripts/build-reference.ts';
import { buildReference, serialiseReference } from '../../src/reference/build.ts';
import { courtKey } from '../../src/reference/normalise.ts';
import {
  caseTypesReference,
  courtsReference,
  expandCaseType,
  resolveCourt,
  resolveCourtOrBench,
} from '../../src/reference/reference-data.ts';
import { CaseTypesReferenceSchema, CourtsReferenceSchema } from '../../src/reference/schemas.ts';

const dataDir = defaultDataDir();
const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(join(dataDir, path), 'utf8'));

describe('reference data files', () => {
  it('validate against the zod schemas', async () => {
    CourtsReferenceSchema.parse(JSON.parse(await readFile(OUTPUT_FILES.courts, 'utf8')));
    CaseTypesReferenceSchema.parse(JSON.parse(await readFile(OUTPUT_FILES.caseTypes, 'utf8')));
  });

  it('equal what the generator builds, and building twice gives identical bytes', async () => {
    const sources = await readSources(dataDir);
    const first = buildReference(sources);
    const second = buildReference(sources);
    assert.equal(serialiseReference(first.courts), serialiseReference(second.courts));
    assert.equal(serialiseReference(first.caseTypes), serialiseReference(second.caseTypes));
    assert.equal(await readFile(OUTPUT_FILES.courts, 'utf8'), serialiseReference(first.courts));
    assert.equal(await readFile(OUTPUT_FILES.caseTypes, 'utf8'), serialiseReference(first.caseTypes));
  });
});

describe('court hierarchy', () => {
  const courts = courtsReference().courts;

  it('has the Supreme Court, the district-courts node and 25 High Courts', async () => {
    const codes = z.record(z.string(), z.string()).parse(await readJson('hc-courts-reference/court-codes.json'));
    const high = courts.filter((c) => c.level === 'high');
    assert.equal(high.length, 25);
    assert.deepEqual(high.map((c) => c.codes?.judgmentsPortal).sort(), Object.keys(codes).sort());
    assert.equal(courts.filter((c) => c.level === 'supreme').length, 1);
    assert.equal(courts.filter((c) => c.level === 'district').length, 1);
  });

  it('lists every bench code of bench-codes.json under the right High Court', async () => {
    const benchCodes = z.record(z.string(), z.string()).parse(await readJson('hc-courts-reference/bench-codes.json'));
    for (const [bench, courtCode] of Object.entries(benchCodes)) {
      const court = courts.find((c) => c.benches.some((b) => b.codes?.openDataset === bench));
      assert.ok(court, `bench ${bench} missing`);
      assert.equal(court.codes?.openDataset, courtCode, `bench ${bench} under the wrong court`);
    }
    const listed = courts.flatMap((c) => c.benches.map((b) => b.codes?.openDataset)).filter((b) => b !== undefined);
    assert.equal(listed.length, Object.keys(benchCodes).length);
  });

  it('has every tribunal of tribunals.json with its benches', async () => {
    const tribunals = z
      .array(z.object({ abbreviation: z.string(), benches: z.array(z.unknown()) }))
      .parse(await readJson('tribunals/tribunals.json'));
    const ours = courts.filter((c) => c.level === 'tribunal');
    assert.equal(ours.length, tribunals.length);
    for (const t of tribunals) {
      const court = ours.find((c) => c.abbreviation === t.abbreviation);
      assert.ok(court, `tribunal ${t.abbreviation} missing`);
      assert.equal(court.benches.length, t.benches.length);
    }
  });

  it('gives every court and bench a unique id and every accepted name one owner', () => {
    const owners = new Map<string, string>();
    for (const court of courts) {
      const names: [string, string][] = [court.id, court.name, ...(court.abbreviation ? [court.abbreviation] : []), ...court.aliases].map(
        (n) => [n, court.id],
      );
      for (const bench of court.benches)
        names.push(...[bench.id, bench.fullName, ...bench.aliases].map((n): [string, string] => [n, bench.id]));
      for (const [name, owner] of names) {
        const previous = owners.get(courtKey(name));
        assert.ok(previous === undefined || previous === owner, `"${name}" names both ${previous} and ${owner}`);
        owners.set(courtKey(name), owner);
      }
    }
  });
});

describe('resolveCourt', () => {
  it('accepts names and aliases ignoring case, spacing and punctuation', () => {
    assert.equal(resolveCourt('Delhi High Court')?.id, 'delhi-hc');
    assert.equal(resolveCourt('  high court of delhi ')?.id, 'delhi-hc');
    assert.equal(resolveCourt('Punjab & Haryana High Court')?.id, 'punjab-haryana-hc');
    assert.equal(resolveCourt('Odisha High Court')?.id, 'orissa-hc');
    assert.equal(resolveCourt('High Court for State of Telangana')?.id, 'telangana-hc');
    assert.equal(resolveCourt('Supreme Court of India')?.id, 'supreme-court');
    assert.equal(resolveCourt('districtCourts')?.id, 'district-courts');
    assert.equal(resolveCourt('N.C.L.T.')?.id, 'nclt');
    assert.equal(resolveCourt('Securities Appellate Tribunal')?.id, 'sat');
  });

  it('resolves bench names to their court, and keeps the bench on request', () => {
    assert.equal(resolveCourt('Madurai Bench of Madras High Court')?.id, 'madras-hc');
    assert.equal(resolveCourt('Bench at Nagpur')?.id, 'bombay-hc');
    assert.equal(resolveCourtOrBench('Allahabad High Court Lucknow Bench')?.bench?.id, 'allahabad-hc-lucknow');
    assert.equal(resolveCourtOrBench('NCLT Mumbai')?.bench?.id, 'nclt-mumbai');
    assert.equal(resolveCourtOrBench('DRT Chennai-2')?.bench?.id, 'drt-chennai-2');
    assert.equal(resolveCourtOrBench('Delhi High Court')?.bench, undefined);
  });

  it('refuses unknown and ambiguous names', () => {
    assert.equal(resolveCourt('High Court of Atlantis'), undefined);
    assert.equal(resolveCourt(''), undefined);
    // Allahabad HC, CAT and AFT all have a Lucknow bench.
    assert.equal(resolveCourt('Lucknow Bench'), undefined);
    assert.equal(resolveCourt('Principal Bench'), undefined);
  });
});

describe('expandCaseType', () => {
  it('expands a label to all its codes, case-insensitively', () => {
    const codes = expandCaseType('writ petition (civil)');
    for (const code of ['WP(C)', 'W.P.(C)', 'WPC', 'CWP']) assert.ok(codes.includes(code), `missing ${code}`);
    assert.deepEqual(expandCaseType('Special Leave Petition (Civil)'), ['S.L.P.(C)...CC', 'SLP(C)']);
    assert.ok(expandCaseType('Criminal Appeal').includes('Crl.A.'));
    assert.ok(expandCaseType('Bail Application').includes('BA'));
    assert.ok(expandCaseType('Anticipatory Bail Application').includes('ABA'));
  });

  it('returns a known code as itself only, and [] for unknown text', () => {
    assert.deepEqual(expandCaseType('WP(C)'), ['WP(C)']);
    assert.deepEqual(expandCaseType(' SLP(C) '), ['SLP(C)']);
    assert.deepEqual(expandCaseType('slp(c)'), ['SLP(C)']);
    assert.deepEqual(expandCaseType('Not A Case Type'), []);
    assert.deepEqual(expandCaseType(''), []);
  });

  it('keeps every code of the sources: each SC prefix and HC code sits under some label', () => {
    const all = new Set(caseTypesReference().caseTypes.flatMap((t) => t.codes));
    for (const code of ['C.A.', 'Crl.A.', 'W.P.(Crl.)', 'CONMT.PET.(C)', 'MA', 'A227', 'PPIL', 'HCP']) {
      assert.ok(all.has(code), `code ${code} dropped`);
    }
    assert.ok(!all.has('9999'), 'the SC placeholder prefix is not a case type');
  });

  it('has unique labels', () => {
    const labels = caseTypesReference().caseTypes.map((t) => t.label.toLowerCase());
    assert.equal(new Set(labels).size, labels.length);
  });
});
