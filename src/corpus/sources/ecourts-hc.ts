/**
 * eCourts High Court case-status records (captn3m0/ecourts fixtures): `case_details.jsonl`
 * (4 full records with hearings and orders) and `cases.jsonl` (127 case-search results,
 * mostly J&K habeas-corpus list rows with only CNR, number and party names). These are
 * registry records, not judgments: no order text or PDF is held, so they are statusOnly.
 * The CNR is the case id. The High Court is read from the CNR's establishment prefix and
 * named from hc-courts-reference/court-codes.json.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  buildCaseRecord,
  rejected,
  titleFromParties,
  type Court,
  type JsonValue,
  type MapResult,
  type Party,
  type Quirk,
} from '../../domain/case/case-record.ts';
import { parseIso } from '../../domain/case/dates.ts';
import { cleanName, splitAdvocates, stripJudgeTitle } from '../source-text.ts';
import { describeIssues, isObject, readJsonl, type CorpusSource } from './source.ts';

export const ECOURTS_HC_SOURCE = 'ecourts-hc-case-status';
/** Details first: if a CNR ever appears in both files the fuller record is the one kept. */
const FILES = ['case_details.jsonl', 'cases.jsonl'] as const;
const COURT_CODES_FILE = join('hc-courts-reference', 'court-codes.json');

/**
 * CNR prefix → judgments-portal court code (`STATE~COURT` key of court-codes.json).
 * Only prefixes the fixtures show are listed (GAHC: records in Assam and Arunachal
 * Pradesh; JKHC: J&K lists; KAHC: a Bengaluru record); others are rejected, not guessed.
 */
const CNR_PREFIX_TO_PORTAL_CODE: Readonly<Record<string, string>> = {
  GAHC: '18~6',
  JKHC: '1~12',
  KAHC: '29~3',
};

/** Seat by CNR establishment, only where a raw showRecords response in the fixtures names it. */
const CNR_ESTABLISHMENT_TO_BENCH: Readonly<Record<string, string>> = {
  GAHC01: 'Principal Seat at Guwahati',
  JKHC02: 'Jammu Wing',
};

const PartyRow = z.object({ name: z.string().nullable().optional(), advocate: z.string().nullable().optional() });
const OrderRow = z.object({
  date: z.string().nullable().optional(),
  judge: z.string().nullable().optional(),
  filename: z.string().nullable().optional(),
});
const opt = z.string().nullable().optional();
const HcRow = z.object({
  cnr_number: z.string(),
  case_type: opt,
  registration_number: opt,
  case_number: opt,
  filing_number: opt,
  filing_date: opt,
  registration_date: opt,
  first_hearing_date: opt,
  decision_date: opt,
  case_status: opt,
  nature_of_disposal: opt,
  category: opt,
  sub_category: opt,
  judicial: opt,
  bench: opt,
  coram: opt,
  state: opt,
  district: opt,
  fir: z.unknown().optional(),
  petitioners: z.array(PartyRow).nullable().optional(),
  respondents: z.array(PartyRow).nullable().optional(),
  hearings: z.array(z.unknown()).nullable().optional(),
  orders: z.array(OrderRow).nullable().optional(),
  objections: z.array(z.unknown()).nullable().optional(),
  not_before_me: opt,
});
type HcRow = z.infer<typeof HcRow>;

export type CourtNames = Readonly<Record<string, string>>;

export async function loadCourtNames(corpusDir: string): Promise<CourtNames> {
  const raw = JSON.parse(await readFile(join(corpusDir, COURT_CODES_FILE), 'utf8')) as unknown;
  if (!isObject(raw)) throw new Error(`${COURT_CODES_FILE} is not a JSON object`);
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function parties(rows: HcRow['petitioners']): Party[] {
  return (rows ?? []).map((p) => ({ name: cleanName(p.name), advocates: splitAdvocates(p.advocate) })).filter((p) => p.name !== '');
}

/** `1762HONOURABLE MR. JUSTICE X` → `X` (the digits are the court-room number). */
function judgeName(raw: string | null | undefined): string {
  return stripJudgeTitle((raw ?? '').replace(/^\d+/, ''));
}

/** JSON-safe copy of an arbitrary parsed value (drops undefined). */
function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

function date(field: string, raw: string | null | undefined, quirks: Quirk[]): string | null {
  if (raw == null || raw === '') return null;
  const iso = parseIso(raw);
  if (iso === null) quirks.push({ field, issue: 'not an ISO calendar date', value: raw });
  return iso;
}

export function mapHcRow(ref: string, input: unknown, courtNames: CourtNames): MapResult {
  const parsed = HcRow.safeParse(input);
  if (!parsed.success) return rejected(ref, `unparseable row: ${describeIssues(parsed.error.issues)}`);
  const row = parsed.data;
  const quirks: Quirk[] = [];

  const cnr = row.cnr_number.trim().toUpperCase();
  const cnrMatch = /^([A-Z]{4})(\d{2})\d{6}(\d{4})$/.exec(cnr);
  if (!cnrMatch || !cnrMatch[1]) return rejected(ref, `invalid CNR "${row.cnr_number}" (expected 4 letters + 12 digits)`);
  const prefix = cnrMatch[1];
  const portalCode = CNR_PREFIX_TO_PORTAL_CODE[prefix];
  const courtName = portalCode === undefined ? undefined : courtNames[portalCode];
  if (portalCode === undefined || courtName === undefined) {
    return rejected(ref, `unknown High Court for CNR prefix ${prefix}`);
  }
  const court: Court = { code: prefix, name: courtName, level: 'high' };

  const registration = /^\s*(\d+)\s*\/\s*(\d{4})\s*$/.exec(row.registration_number ?? '');
  const caseType = row.case_type?.trim() ?? '';
  if (!registration || !registration[1] || !registration[2]) {
    return rejected(ref, `missing case number: registration number "${row.registration_number ?? ''}" is not N/YYYY`);
  }
  if (caseType === '') return rejected(ref, 'missing case number: no case type');
  const registrationYear = Number(registration[2]);
  const cnrYear = Number(cnrMatch[3]);
  if (registrationYear < cnrYear) {
    quirks.push({
      field: 'caseNumber',
      issue: `registered (${registrationYear}) before the CNR filing year ${cnrYear}`,
      value: row.registration_number ?? null,
    });
  }

  const petitioners = parties(row.petitioners);
  const respondents = parties(row.respondents);
  const judges = [...new Set([row.coram, ...(row.orders ?? []).map((o) => o.judge)].map(judgeName).filter((j) => j !== ''))];

  return buildCaseRecord({
    caseId: `hc-${cnr}`,
    source: ECOURTS_HC_SOURCE,
    sourceRef: ref,
    // eCourts prints case numbers as TYPE/NUMBER/YEAR (see the raw showRecords responses).
    caseNumber: `${caseType}/${registration[1]}/${registration[2]}`,
    caseNumberYear: registrationYear,
    court,
    bench: CNR_ESTABLISHMENT_TO_BENCH[`${prefix}${cnrMatch[2] ?? ''}`] ?? null,
    caseType,
    title: titleFromParties(petitioners, respondents),
    parties: { petitioners, respondents },
    judges,
    decisionDate: date('decisionDate', row.decision_date, quirks),
    filingDate: date('filingDate', row.filing_date, quirks),
    citations: [],
    text: null,
    summary: null,
    documentBearing: false,
    quirks,
    extra: {
      cnr,
      portalCourtCode: portalCode,
      internalCaseNumber: row.case_number ?? null,
      filingNumber: row.filing_number ?? null,
      registrationDate: row.registration_date ?? null,
      firstHearingDate: row.first_hearing_date ?? null,
      caseStatus: row.case_status ?? null,
      natureOfDisposal: row.nature_of_disposal ?? null,
      category: row.category ?? null,
      subCategory: row.sub_category ?? null,
      section: row.judicial ?? null,
      benchType: row.bench ?? null,
      coram: row.coram ?? null,
      state: row.state ?? null,
      district: row.district ?? null,
      fir: json(row.fir),
      hearings: json(row.hearings ?? []),
      orders: json(row.orders ?? []),
      objections: json(row.objections ?? []),
      notBeforeMe: row.not_before_me ?? null,
    },
  });
}

export const ecourtsHcSource: CorpusSource = {
  name: ECOURTS_HC_SOURCE,
  folder: 'ecourts-hc-case-status-fixtures',
  rowFiles: FILES,
  async *read({ folderPath, corpusDir }) {
    const courtNames = await loadCourtNames(corpusDir);
    for (const file of FILES) {
      for await (const line of readJsonl(join(folderPath, file), file)) {
        yield 'error' in line.value
          ? rejected(line.ref, `unparseable JSON: ${line.value.error}`)
          : mapHcRow(line.ref, line.value.json, courtNames);
      }
    }
  },
};
