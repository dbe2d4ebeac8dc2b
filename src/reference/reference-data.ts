/**
 * Read access to the court hierarchy and the case-type taxonomy behind GET /reference/courts,
 * GET /reference/case-types and the court and caseType filters of search. Pure: the only
 * input is the two generated JSON files, imported as modules (Node 20 + tsx and Deno both
 * support import attributes) and validated once, on first use, against the zod schemas.
 */
import caseTypesJson from './data/case-types.json' with { type: 'json' };
import courtsJson from './data/courts.json' with { type: 'json' };
import { codeKey, courtKey, labelKey } from './normalise.ts';
import {
  CaseTypesReferenceSchema,
  CourtsReferenceSchema,
  type Bench,
  type CaseType,
  type CaseTypesReference,
  type Court,
  type CourtsReference,
} from './schemas.ts';

export type { Bench, CaseType, CaseTypesReference, Court, CourtsReference } from './schemas.ts';

/** A resolved court filter value: the court, and the bench when a bench name was given. */
export interface CourtMatch {
  readonly court: Court;
  readonly bench?: Bench;
}

interface Indexes {
  readonly courts: CourtsReference;
  readonly caseTypes: CaseTypesReference;
  readonly byCourtName: ReadonlyMap<string, CourtMatch>;
  readonly byLabel: ReadonlyMap<string, CaseType>;
  readonly byCode: ReadonlyMap<string, readonly string[]>;
}

let cached: Indexes | undefined;

function indexes(): Indexes {
  cached ??= buildIndexes(CourtsReferenceSchema.parse(courtsJson), CaseTypesReferenceSchema.parse(caseTypesJson));
  return cached;
}

function buildIndexes(courts: CourtsReference, caseTypes: CaseTypesReference): Indexes {
  const byCourtName = new Map<string, CourtMatch>();
  for (const court of courts.courts) {
    const names = [court.id, court.name, ...(court.abbreviation === undefined ? [] : [court.abbreviation]), ...court.aliases];
    for (const name of names) byCourtName.set(courtKey(name), { court });
  }
  // Benches second, so a name shared with a court (the generator prevents it) still means the court.
  for (const court of courts.courts) {
    for (const bench of court.benches) {
      for (const name of [bench.id, bench.fullName, ...bench.aliases]) {
        const key = courtKey(name);
        if (!byCourtName.has(key)) byCourtName.set(key, { court, bench });
      }
    }
  }

  const byLabel = new Map(caseTypes.caseTypes.map((t) => [labelKey(t.label), t] as const));
  const byCode = new Map<string, string[]>();
  for (const type of caseTypes.caseTypes) {
    for (const code of type.codes) {
      const spellings = byCode.get(codeKey(code)) ?? [];
      if (!spellings.includes(code)) spellings.push(code);
      byCode.set(codeKey(code), spellings);
    }
  }
  for (const spellings of byCode.values()) spellings.sort();
  return { courts, caseTypes, byCourtName, byLabel, byCode };
}

/** The court hierarchy: Supreme Court, 25 High Courts with benches, district courts, tribunals. */
export function courtsReference(): CourtsReference {
  return indexes().courts;
}

/** The case-type taxonomy: labels and the codes each expands to. */
export function caseTypesReference(): CaseTypesReference {
  return indexes().caseTypes;
}

/**
 * Court for a name, alias, abbreviation, id or bench name ("Delhi High Court", "High Court of
 * Delhi", "nclt", "Lucknow Bench of Allahabad High Court"). Ignores case, punctuation and
 * spacing. A bench name resolves to its court; use resolveCourtOrBench to keep the bench.
 */
export function resolveCourt(nameOrAlias: string): Court | undefined {
  return resolveCourtOrBench(nameOrAlias)?.court;
}

/** Like resolveCourt, but also says which bench was named, if any. */
export function resolveCourtOrBench(nameOrAlias: string): CourtMatch | undefined {
  const key = courtKey(nameOrAlias);
  return key === '' ? undefined : indexes().byCourtName.get(key);
}

/**
 * Codes a caseType filter value stands for. A label ("Writ Petition (Civil)", any case)
 * expands to all its codes; a known code ("wp(c)") gives its own spelling(s) as the courts
 * write it, ignoring case and spacing; anything else gives [].
 */
export function expandCaseType(labelOrCode: string): string[] {
  const { byLabel, byCode } = indexes();
  const type = byLabel.get(labelKey(labelOrCode));
  if (type !== undefined) return [...type.codes];
  const trimmed = labelOrCode.trim();
  const spellings = byCode.get(codeKey(trimmed)) ?? [];
  // An exact spelling stands for itself alone; otherwise every spelling differing only in case or spacing.
  return spellings.includes(trimmed) ? [trimmed] : [...spellings];
}
