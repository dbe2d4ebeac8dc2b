/**
 * Builds the reference files (court hierarchy and case-type taxonomy) from the text of the
 * source datasets plus the curated facts in curated.ts. No IO: the generator script reads
 * the files and the unit test calls the same function, so the committed JSON can be proven
 * to equal what the data and the curation produce. Output ordering is fully determined by
 * explicit sorts or curated order, so the same input always serialises to the same bytes.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  DESCRIPTION_SPELLING_FIXES,
  DISTRICT_COURTS,
  EXCLUDED_SC_PREFIXES,
  HC_PREFIX_REPAIRS,
  HIGH_COURTS,
  SC_PREFIX_LABELS,
  STANDARD_LABELS,
  SUPREME_COURT,
  TRIBUNAL_ALIASES,
  UNAMBIGUOUS_CODES,
  type CuratedCourt,
  type CuratedHighCourt,
} from './curated.ts';
import { courtKey, labelKey } from './normalise.ts';
import type { Bench, CaseType, CaseTypesReference, Court, CourtsReference } from './schemas.ts';

/** Raw text of every source file the reference is derived from. */
export interface ReferenceSources {
  /** hc-courts-reference/court-codes.json */
  readonly courtCodesJson: string;
  /** hc-courts-reference/bench-codes.json */
  readonly benchCodesJson: string;
  /** hc-courts-reference/high_courts.csv */
  readonly highCourtsCsv: string;
  /** hc-case-types/highcourt_case_type_dropdown_full.csv */
  readonly hcCaseTypesCsv: string;
  /** ecourts-hc-case-status-fixtures/courts.csv */
  readonly hcServicesCourtsCsv: string;
  /** ecourts-hc-case-status-fixtures/case_types.csv */
  readonly hcServicesCaseTypesCsv: string;
  /** sc-judgments-metadata/sc_judgments_metadata.jsonl */
  readonly scJudgmentsJsonl: string;
  /** tribunals/tribunals.json */
  readonly tribunalsJson: string;
}

/** Relative paths of the sources under the data directory, in ReferenceSources order. */
export const SOURCE_PATHS: Readonly<Record<keyof ReferenceSources, string>> = {
  courtCodesJson: 'hc-courts-reference/court-codes.json',
  benchCodesJson: 'hc-courts-reference/bench-codes.json',
  highCourtsCsv: 'hc-courts-reference/high_courts.csv',
  hcCaseTypesCsv: 'hc-case-types/highcourt_case_type_dropdown_full.csv',
  hcServicesCourtsCsv: 'ecourts-hc-case-status-fixtures/courts.csv',
  hcServicesCaseTypesCsv: 'ecourts-hc-case-status-fixtures/case_types.csv',
  scJudgmentsJsonl: 'sc-judgments-metadata/sc_judgments_metadata.jsonl',
  tribunalsJson: 'tribunals/tribunals.json',
};

export interface BuiltReference {
  readonly courts: CourtsReference;
  readonly caseTypes: CaseTypesReference;
}

const CodeMapSchema = z.record(z.string(), z.string());

const TribunalBenchSourceSchema = z.object({
  name: z.string(),
  city: z.string().nullable().optional(),
  type: z.string().optional(),
  jurisdiction: z.string().optional(),
  jurisdiction_over_drts: z.array(z.string()).optional(),
  appellate_tribunal: z.string().optional(),
  location_as_stated: z.string().optional(),
  note: z.string().optional(),
});

const TribunalSourceSchema = z.object({
  name: z.string(),
  abbreviation: z.string(),
  benches: z.array(TribunalBenchSourceSchema),
  benches_complete: z.boolean().optional(),
});

const ScRecordSchema = z.object({ case_no: z.string().nullable().optional() });

export function buildReference(sources: ReferenceSources): BuiltReference {
  const courts = buildCourts(sources);
  return { courts, caseTypes: buildCaseTypes(sources, courts) };
}

/** Pretty JSON with a final newline: the exact bytes of the committed files. */
export function serialiseReference(value: CourtsReference | CaseTypesReference): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------
// Courts

export function buildCourts(sources: ReferenceSources): CourtsReference {
  const courtCodes = CodeMapSchema.parse(JSON.parse(sources.courtCodesJson));
  const benchCodes = CodeMapSchema.parse(JSON.parse(sources.benchCodesJson));
  const highCourtsCsv = csvRecords(sources.highCourtsCsv);
  const dropdown = csvRecords(sources.hcCaseTypesCsv);
  const hcServicesCourts = csvRecords(sources.hcServicesCourtsCsv);
  const tribunals = z.array(TribunalSourceSchema).parse(JSON.parse(sources.tribunalsJson));

  checkBenchCoverage(benchCodes);

  const drafts: CourtDraft[] = [
    simpleCourt(SUPREME_COURT, 'supreme'),
    ...[...HIGH_COURTS]
      .sort((a, b) => compare(a.name, b.name))
      .map((hc) => highCourt(hc, { courtCodes, benchCodes, highCourtsCsv, dropdown, hcServicesCourts })),
    simpleCourt(DISTRICT_COURTS, 'district'),
    ...tribunals.map(tribunal).sort((a, b) => compare(a.court.name, b.court.name)),
  ];
  const courts = resolveAliases(drafts);
  return { version: contentHash(courts), courts };
}

/** A court before alias de-duplication: each bench carries every candidate alias. */
interface CourtDraft {
  readonly court: Omit<Court, 'benches'>;
  readonly benches: readonly (Omit<Bench, 'aliases'> & { readonly candidates: readonly string[] })[];
}

interface HighCourtInputs {
  readonly courtCodes: Record<string, string>;
  readonly benchCodes: Record<string, string>;
  readonly highCourtsCsv: readonly Record<string, string>[];
  readonly dropdown: readonly Record<string, string>[];
  readonly hcServicesCourts: readonly Record<string, string>[];
}

function simpleCourt(curated: CuratedCourt, level: Court['level']): CourtDraft {
  return {
    court: {
      id: curated.id,
      name: curated.name,
      level,
      ...(curated.abbreviation === undefined ? {} : { abbreviation: curated.abbreviation }),
      aliases: [...curated.aliases],
    },
    benches: [],
  };
}

/** Every open-dataset bench must be curated, and every curated bench must exist there. */
function checkBenchCoverage(benchCodes: Record<string, string>): void {
  const curated = new Map(HIGH_COURTS.flatMap((hc) => hc.benches.map((b) => [b.openDataset, hc] as const)));
  for (const [bench, court] of Object.entries(benchCodes)) {
    const hc = curated.get(bench);
    if (hc === undefined) throw new Error(`bench-codes.json bench "${bench}" is not curated in HIGH_COURTS`);
    if (underscoreCode(hc.judgmentsPortal) !== court) {
      throw new Error(`bench "${bench}" belongs to ${court}, curated under ${hc.judgmentsPortal}`);
    }
  }
  for (const bench of curated.keys()) {
    if (!(bench in benchCodes)) throw new Error(`curated bench "${bench}" is missing from bench-codes.json`);
  }
}

function highCourt(hc: CuratedHighCourt, inputs: HighCourtInputs): CourtDraft {
  const datasetName = inputs.courtCodes[hc.judgmentsPortal];
  if (datasetName === undefined) throw new Error(`court-codes.json has no court ${hc.judgmentsPortal}`);
  const openDataset = underscoreCode(hc.judgmentsPortal);
  const rows = inputs.dropdown.filter((r) => r['repo_court_code'] === hc.judgmentsPortal);
  const state = single(
    rows.map((r) => field(r, 'portal_high_court_code')),
    `portal code of ${hc.id}`,
  );

  const datasetNames = [
    datasetName,
    ...inputs.highCourtsCsv.filter((r) => r['court_code'] === openDataset).map((r) => field(r, 'court_name')),
    ...rows.flatMap((r) => [field(r, 'repo_court_name'), field(r, 'portal_high_court_name')]),
  ].map(collapse);

  const benches = hc.benches.map((b) => {
    const portalNames = rows
      .filter((r) => r['portal_bench_code'] === b.hcServicesCourt)
      .map((r) => collapse(field(r, 'portal_bench_name')));
    if (portalNames.length === 0) throw new Error(`no dropdown rows for ${b.id} (portal bench ${b.hcServicesCourt})`);
    const hcServicesNames = inputs.hcServicesCourts
      .filter((r) => r['state_code'] === state && (r['court_code'] || '1') === b.hcServicesCourt)
      .map((r) => collapse(field(r, 'name')));
    const fullName = `${hc.name}, ${b.name}`;
    return {
      id: b.id,
      name: b.name,
      fullName,
      city: b.city,
      codes: { openDataset: b.openDataset, hcServicesCourt: b.hcServicesCourt },
      candidates: [
        b.name,
        ...(b.aliases ?? []),
        `${b.name} of ${hc.name}`,
        `${hc.name} ${b.name}`,
        ...hc.aliases.map((alias) => `${alias}, ${b.name}`),
        ...portalNames,
        ...portalNames.map((n) => `${hc.name} ${n}`),
        ...hcServicesNames,
      ],
    };
  });

  return {
    court: {
      id: hc.id,
      name: hc.name,
      level: 'high',
      aliases: [...hc.aliases, ...datasetNames],
      codes: { judgmentsPortal: hc.judgmentsPortal, openDataset, hcServicesState: state },
    },
    benches,
  };
}

function tribunal(source: z.infer<typeof TribunalSourceSchema>): CourtDraft {
  const abbr = source.abbreviation;
  const id = abbr.toLowerCase();
  const benches = source.benches.map((b) => {
    // APTEL and SAT list their single seat under the tribunal's own name.
    const name = b.name === source.name ? 'Principal Bench' : b.name;
    const local = name.startsWith(`${abbr} `) ? name.slice(abbr.length + 1) : name;
    const slug = slugify(local.replace(/\b(regional|benches|bench)\b/gi, ' ')) || 'principal';
    const city = b.city ?? undefined;
    const note = [
      b.type === undefined ? undefined : `${capitalise(b.type)} bench`,
      b.jurisdiction,
      b.note,
      b.appellate_tribunal === undefined ? undefined : `Appeals lie to ${b.appellate_tribunal}`,
      b.jurisdiction_over_drts === undefined ? undefined : `Hears appeals from ${b.jurisdiction_over_drts.join(', ')}`,
    ].filter((part): part is string => part !== undefined);
    return {
      id: `${id}-${slug}`,
      name,
      fullName: `${source.name}, ${local}`,
      ...(city === undefined ? {} : { city }),
      ...(b.location_as_stated === undefined ? {} : { location: b.location_as_stated }),
      ...(note.length === 0 ? {} : { note: note.join('; ') }),
      candidates: [
        name,
        `${abbr} ${local}`,
        `${abbr}, ${local}`,
        ...(city === undefined ? [] : [`${abbr} ${city}`, `${source.name} ${city}`, `${source.name}, ${city}`]),
      ],
    };
  });
  return {
    court: {
      id,
      name: source.name,
      level: 'tribunal',
      abbreviation: abbr,
      aliases: [...(TRIBUNAL_ALIASES[abbr] ?? [])],
      ...(source.benches_complete === false || source.benches.length === 0 ? { benchesComplete: false } : {}),
    },
    benches,
  };
}

/**
 * Makes every accepted name resolve to exactly one court or bench. Court names must be
 * unique (a clash is a curation error); a bench alias shared by two benches (e.g. "Principal
 * Bench") or equal to a court name is dropped, because it cannot identify one bench.
 */
function resolveAliases(drafts: readonly CourtDraft[]): Court[] {
  const owner = new Map<string, string>();
  const claim = (text: string, id: string, what: string): void => {
    const key = courtKey(text);
    const existing = owner.get(key);
    if (existing !== undefined && existing !== id) throw new Error(`${what} "${text}" of ${id} clashes with ${existing}`);
    owner.set(key, id);
  };
  for (const { court, benches } of drafts) {
    for (const text of [court.id, court.name, court.abbreviation ?? court.id, ...court.aliases]) claim(text, court.id, 'court name');
    for (const bench of benches) {
      claim(bench.id, bench.id, 'bench id');
      claim(bench.fullName, bench.id, 'bench full name');
    }
  }

  const benchClaims = new Map<string, Set<string>>();
  for (const { benches } of drafts) {
    for (const bench of benches) {
      for (const text of bench.candidates) {
        const key = courtKey(text);
        const set = benchClaims.get(key) ?? new Set<string>();
        set.add(bench.id);
        benchClaims.set(key, set);
      }
    }
  }

  return drafts.map(({ court, benches }) => {
    // Aliases may repeat the id in words ("Delhi HC" for delhi-hc) but not the name.
    const fixed = new Set([court.name, court.abbreviation ?? court.name].map(courtKey));
    return {
      ...court,
      aliases: uniqueByKey(court.aliases, fixed),
      benches: benches.map(({ candidates, ...bench }) => {
        const usable = candidates.filter((text) => {
          const key = courtKey(text);
          const owned = owner.get(key);
          return (owned === undefined || owned === bench.id) && benchClaims.get(key)?.size === 1;
        });
        return { ...bench, aliases: uniqueByKey(usable, new Set([courtKey(bench.fullName)])) };
      }),
    };
  });
}

// ---------------------------------------------------------------------------------------
// Case types

interface CodeUse {
  readonly code: string;
  readonly courtId: string;
  /** Upper-cased, punctuation-free portal description; empty when it tells nothing. */
  readonly described: string;
  readonly rawDescription: string;
  /** Label fixed by curation (Supreme Court prefixes). */
  readonly fixedLabel?: string;
}

export function buildCaseTypes(sources: ReferenceSources, courtsRef: CourtsReference): CaseTypesReference {
  const uses = [...highCourtUses(sources, courtsRef), ...supremeCourtUses(sources)];
  const standard = new Map(STANDARD_LABELS.map((s) => [s.label, s]));
  for (const label of [...Object.values(SC_PREFIX_LABELS), ...Object.values(UNAMBIGUOUS_CODES)]) {
    if (!standard.has(label)) throw new Error(`curated label "${label}" is not a standard label`);
  }

  const labelOf = new Map<CodeUse, string>();
  for (const use of uses) {
    // With no usable description, a self-describing code ("Bail Application") still matches.
    const label =
      use.fixedLabel ??
      UNAMBIGUOUS_CODES[groupKey(use.code)] ??
      matchStandard(use.described === '' ? describeKey(use.code) : use.described);
    if (label !== undefined) labelOf.set(use, label);
  }
  // A code with no usable description takes the label its other uses agree on, if they do.
  const labelsByCode = new Map<string, Set<string>>();
  for (const [use, label] of labelOf) {
    const set = labelsByCode.get(groupKey(use.code)) ?? new Set<string>();
    set.add(label);
    labelsByCode.set(groupKey(use.code), set);
  }
  for (const use of uses) {
    if (labelOf.has(use) || use.described !== '') continue;
    const agreed = labelsByCode.get(groupKey(use.code));
    if (agreed?.size === 1) labelOf.set(use, [...agreed][0] ?? '');
  }

  const standardEntries = new Map<string, CodeUse[]>();
  const ownEntries = new Map<string, CodeUse[]>();
  for (const use of uses) {
    const label = labelOf.get(use);
    const target = label === undefined ? ownEntries : standardEntries;
    const key = label ?? groupKey(use.code);
    const list = target.get(key) ?? [];
    list.push(use);
    target.set(key, list);
  }

  const caseTypes: CaseType[] = [
    ...[...standardEntries].map(([label, list]) => caseType(label, 'standard', list, standard.get(label)?.description)),
    ...[...ownEntries.values()].map((list) => {
      const label = mostCommon(list.map((u) => u.code));
      const described = list.filter((u) => u.described !== '').map((u) => u.rawDescription);
      return caseType(label, 'court-specific', list, described.length === 0 ? undefined : mostCommon(described));
    }),
  ].sort((a, b) => compare(a.kind, b.kind) || compare(labelKey(a.label), labelKey(b.label)) || compare(a.label, b.label));

  const seen = new Set<string>();
  for (const entry of caseTypes) {
    const key = labelKey(entry.label);
    if (seen.has(key)) throw new Error(`case-type label "${entry.label}" occurs twice`);
    seen.add(key);
  }
  return { version: contentHash(caseTypes), caseTypes };
}

function caseType(label: string, kind: CaseType['kind'], uses: readonly CodeUse[], description: string | undefined): CaseType {
  return {
    label,
    kind,
    codes: [...new Set(uses.map((u) => u.code))].sort(compare),
    courts: [...new Set(uses.map((u) => u.courtId))].sort(compare),
    ...(description === undefined ? {} : { description }),
  };
}

function highCourtUses(sources: ReferenceSources, courtsRef: CourtsReference): CodeUse[] {
  const byPortal = new Map<string, string>();
  const byState = new Map<string, string>();
  for (const court of courtsRef.courts) {
    if (court.codes?.judgmentsPortal !== undefined) byPortal.set(court.codes.judgmentsPortal, court.id);
    if (court.codes?.hcServicesState !== undefined) byState.set(court.codes.hcServicesState, court.id);
  }
  const uses: CodeUse[] = [];
  for (const row of csvRecords(sources.hcCaseTypesCsv)) {
    const courtId = lookup(byPortal, field(row, 'repo_court_code'));
    const candidate = field(row, 'title_prefix_candidate').trim();
    const code = collapse(HC_PREFIX_REPAIRS[candidate] ?? candidate);
    if (code === '') continue;
    uses.push(codeUse(code, courtId, field(row, 'case_type_description_candidate')));
  }
  for (const row of csvRecords(sources.hcServicesCaseTypesCsv)) {
    const courtId = lookup(byState, field(row, 'state_code'));
    const label = field(row, 'option_label');
    const split = label.indexOf(' - ');
    const code = collapse(split < 0 ? label : label.slice(0, split));
    if (code === '') continue;
    uses.push(codeUse(code, courtId, split < 0 ? '' : label.slice(split + 3)));
  }
  return uses;
}

function codeUse(code: string, courtId: string, rawDescription: string): CodeUse {
  const described = describeKey(rawDescription);
  // "NULL", empty, or the code repeated ("MFA (GST)(MFA (GST))") say nothing about meaning.
  const informative = described !== '' && described !== 'NULL' && described !== describeKey(code);
  return { code, courtId, described: informative ? described : '', rawDescription: collapse(rawDescription) };
}

function supremeCourtUses(sources: ReferenceSources): CodeUse[] {
  const prefixes = new Set<string>();
  for (const line of sources.scJudgmentsJsonl.split('\n')) {
    if (line.trim() === '') continue;
    const caseNo = ScRecordSchema.parse(JSON.parse(line)).case_no ?? '';
    // "C.A. No.-001918-001918 - 2015"; a few old records read "MA-001529 - 2018".
    const prefix = /^(\S.*?) No\./.exec(caseNo)?.[1] ?? /^([A-Za-z][A-Za-z.() ]*?)-\d/.exec(caseNo)?.[1];
    if (prefix !== undefined && !EXCLUDED_SC_PREFIXES.includes(prefix.trim())) prefixes.add(collapse(prefix));
  }
  return [...prefixes].sort(compare).map((code) => {
    const label = SC_PREFIX_LABELS[code];
    return {
      code,
      courtId: SUPREME_COURT.id,
      described: '',
      rawDescription: '',
      ...(label === undefined ? {} : { fixedLabel: label }),
    };
  });
}

function matchStandard(described: string): string | undefined {
  return STANDARD_LABELS.find((s) => s.match !== undefined && s.match.test(described) && !(s.unless?.test(described) ?? false))?.label;
}

/** Upper case, every run of non-alphanumerics as one space, portal misspellings fixed. */
function describeKey(text: string): string {
  let key = text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();
  for (const [pattern, replacement] of DESCRIPTION_SPELLING_FIXES) key = key.replace(pattern, replacement);
  return key;
}

/** Groups code spellings that differ only in punctuation, spacing or case: WP(C), W.P.(C), wpc. */
function groupKey(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

// ---------------------------------------------------------------------------------------
// Helpers

/** Minimal RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF line ends. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (header === undefined) return [];
  return rows.filter((r) => r.some((cell) => cell !== '')).map((r) => Object.fromEntries(header.map((name, i) => [name, r[i] ?? ''])));
}

function field(row: Record<string, string>, name: string): string {
  const value = row[name];
  if (value === undefined) throw new Error(`CSV column "${name}" is missing`);
  return value;
}

function lookup(map: ReadonlyMap<string, string>, key: string): string {
  const value = map.get(key);
  if (value === undefined) throw new Error(`no court for source code "${key}"`);
  return value;
}

function single(values: readonly string[], what: string): string {
  const distinct = [...new Set(values)];
  if (distinct.length !== 1 || distinct[0] === undefined) throw new Error(`expected one ${what}, found ${distinct.join(', ')}`);
  return distinct[0];
}

function uniqueByKey(texts: readonly string[], exclude: ReadonlySet<string>): string[] {
  const seen = new Set(exclude);
  const out: string[] = [];
  for (const text of texts) {
    const key = courtKey(text);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
  }
  return out;
}

/** Most frequent value; ties go to the first in code-unit order so the result is stable. */
function mostCommon(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]));
  const top = ranked[0];
  if (top === undefined) throw new Error('mostCommon of nothing');
  return top[0];
}

/** Locale-independent ordering, so output never depends on the machine's ICU data. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function underscoreCode(judgmentsPortal: string): string {
  return judgmentsPortal.replace('~', '_');
}

function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|(?<!-)-+$/g, '');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function contentHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}
