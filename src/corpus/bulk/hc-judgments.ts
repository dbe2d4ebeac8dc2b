/**
 * High Court judgments from the bulk dataset (vanga/indian-high-court-judgments, ~17M
 * judgments of 25 High Courts from judgments.ecourts.gov.in). One row per judgment PDF:
 * the parquet columns `court_code, title, description, judge, pdf_link, cnr,
 * date_of_registration, decision_date, disposal_nature, court_name` (older files: `court`),
 * or a raw JSON file `{court_code, pdf_link, raw_html}` whose card holds the same fields
 * (process_metadata.py and src/utils/html_utils.py in that repository).
 *
 * The case id comes from the PDF's file name (`<CNR>_<n>_<date>.pdf`: one per judgment,
 * where the CNR alone repeats for every order of a case). The portal prints the title as
 * `CASE_NUMBER of PETITIONER Vs RESPONDENT`; without a case number there the CNR stands
 * in (flagged). The court is the partition's `court=`, named from court-codes.json.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCaseRecord, rejected, titleFromParties, type MapResult, type Party, type Quirk } from '../../domain/case/case-record.ts';
import { yearOf } from '../../domain/case/dates.ts';
import { cleanName, splitScBench, stripJudgeTitle } from '../source-text.ts';
import { isObject } from '../sources/source.ts';
import { dateValue, idSegment, oversizedField, splitParties, text, trailingYear, type Row } from './fields.ts';
import type { Partition } from './layout.ts';
import { readResultCard } from './result-card.ts';

export const HC_BULK_SOURCE = 'hc-judgments-bulk';

/** Columns read from the parquet layer (raw_html is left out: the columns already hold its fields). */
export const HC_PARQUET_COLUMNS = [
  'court_code',
  'title',
  'description',
  'judge',
  'pdf_link',
  'cnr',
  'date_of_registration',
  'decision_date',
  'disposal_nature',
  'court_name',
  'court',
] as const;

export interface HcReference {
  /** `STATE~COURT` → High Court name (court-codes.json). */
  courtNames: ReadonlyMap<string, string>;
  /** Bench id → `STATE_COURT` (bench-codes.json). */
  benchCourts: ReadonlyMap<string, string>;
}

async function stringMap(path: string): Promise<Map<string, string>> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as unknown;
  if (!isObject(raw)) throw new Error(`${path} is not a JSON object`);
  return new Map(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** Reads court-codes.json and bench-codes.json from the hc-courts-reference folder. */
export async function loadHcReference(referenceDir: string): Promise<HcReference> {
  return {
    courtNames: await stringMap(join(referenceDir, 'court-codes.json')),
    benchCourts: await stringMap(join(referenceDir, 'bench-codes.json')),
  };
}

/** A raw JSON record's card, read into the parquet layer's column names. */
export function hcRowFromJson(json: unknown): { row: Row } | { error: string } {
  if (!isObject(json)) return { error: 'not a JSON object' };
  const html = json.raw_html;
  if (typeof html !== 'string' || html.trim() === '') return { error: 'no raw_html card' };
  const card = readResultCard(html);
  if (card === null) return { error: `raw_html is not a result card (${html.length} characters)` };
  const heading = card.heading.indexOf(':');
  return {
    row: {
      court_code: json.court_code,
      pdf_link: json.pdf_link,
      title: card.title,
      description: card.description,
      judge: heading >= 0 ? card.heading.slice(heading + 1) : card.heading,
      cnr: card.details.cnr,
      date_of_registration: card.details['date of registration'],
      decision_date: card.details['decision date'],
      disposal_nature: card.details['disposal nature'],
      court_name: card.details.court,
    },
  };
}

function judges(raw: string): string[] {
  const split = /JUSTICE/i.test(raw) ? splitScBench(raw) : raw.split(',').map(stripJudgeTitle);
  return [...new Set((split ?? [raw]).map((j) => j.trim()).filter((j) => j !== ''))];
}

function side(name: string): Party[] {
  const n = cleanName(name);
  return n === '' ? [] : [{ name: n, advocates: [] }];
}

/** `WP/123/2020 of A Vs B` → number and parties; a number of only zeros (`- 0`) is none. */
function readTitle(title: string): { caseNumber: string | null; parties: string } {
  const flat = title.replace(/\s+/g, ' ').trim();
  const at = flat.toLowerCase().indexOf(' of ');
  if (at > 0 && /[1-9]/.test(flat.slice(0, at))) return { caseNumber: flat.slice(0, at), parties: flat.slice(at + 4) };
  return { caseNumber: null, parties: flat };
}

export function mapHcBulkRow(ref: string, row: Row, partition: Partition, reference: HcReference, layer: 'parquet' | 'json'): MapResult {
  const oversized = oversizedField(row, HC_PARQUET_COLUMNS);
  if (oversized !== null) return rejected(ref, `unreadable row: ${oversized}`);
  const quirks: Quirk[] = [];
  const datasetCourt = partition.court ?? '';
  const courtName = reference.courtNames.get(datasetCourt.replace('_', '~'));
  if (courtName === undefined) return rejected(ref, `unknown High Court code "${datasetCourt}" (not in court-codes.json)`);
  if (partition.bench !== null && reference.benchCourts.get(partition.bench) !== datasetCourt) {
    quirks.push({ field: 'bench', issue: `bench not listed for court ${datasetCourt} in bench-codes.json`, value: partition.bench });
  }
  const rowCourt = text(row, 'court_code');
  if (rowCourt !== '' && rowCourt.replace('~', '_') !== datasetCourt) {
    quirks.push({ field: 'court', issue: `row court_code differs from the partition's court ${datasetCourt}`, value: rowCourt });
  }

  const cnrRaw = text(row, 'cnr').toUpperCase();
  const cnr = /^[A-Z]{4}\d{12}$/.test(cnrRaw) ? cnrRaw : null;
  if (cnr === null && cnrRaw !== '') quirks.push({ field: 'cnr', issue: 'not a CNR (4 letters + 12 digits)', value: cnrRaw });
  const decided = dateValue(row.decision_date);
  if (decided.iso === null && decided.asGiven !== null) {
    quirks.push({ field: 'decisionDate', issue: 'not a calendar date', value: decided.asGiven });
  }
  if (decided.iso !== null && yearOf(decided.iso) !== partition.year) {
    quirks.push({ field: 'decisionDate', issue: `outside the dataset's year partition ${partition.year}`, value: decided.iso });
  }

  const pdfLink = text(row, 'pdf_link');
  const stem = idSegment((pdfLink.split('/').pop() ?? '').replace(/\.pdf$/i, ''));
  let caseId: string;
  if (stem !== '') caseId = `hcj-${stem}`;
  else if (cnr !== null && decided.iso !== null) caseId = `hcj-${cnr}-${decided.iso.replaceAll('-', '')}`;
  else return rejected(ref, 'no pdf_link, and no CNR with a decision date, to identify the judgment');

  const title = readTitle(text(row, 'title'));
  let caseNumber = title.caseNumber;
  if (caseNumber === null) {
    if (cnr === null)
      return rejected(ref, `missing case number: title "${text(row, 'title').slice(0, 200)}" names none and there is no CNR`);
    caseNumber = cnr;
    quirks.push({ field: 'caseNumber', issue: 'title gives no case number; CNR used', value: text(row, 'title') || null });
  }
  const parties = splitParties(title.parties);
  const petitioners = side(parties?.petitioner ?? title.parties);
  const respondents = side(parties?.respondent ?? '');
  const slash = caseNumber.indexOf('/');

  return buildCaseRecord({
    caseId,
    source: HC_BULK_SOURCE,
    sourceRef: ref,
    caseNumber,
    caseNumberYear: title.caseNumber === null ? null : trailingYear(caseNumber),
    court: { code: cnr?.slice(0, 4) ?? `HC${datasetCourt}`, name: courtName, level: 'high' },
    bench: partition.bench,
    caseType: title.caseNumber !== null && slash > 0 ? caseNumber.slice(0, slash) : null,
    title: titleFromParties(petitioners, respondents),
    parties: { petitioners, respondents },
    judges: judges(text(row, 'judge')),
    decisionDate: decided.iso,
    filingDate: null,
    citations: [],
    text: null,
    summary: null,
    // The row indexes a judgment PDF kept in the dataset's data/ layer.
    documentBearing: pdfLink !== '',
    quirks,
    extra: {
      layer,
      cnr: cnr ?? (cnrRaw || null),
      pdfLink: pdfLink || null,
      excerpt: text(row, 'description') || null,
      disposalNature: text(row, 'disposal_nature') || null,
      registrationDate: dateValue(row.date_of_registration).asGiven,
      courtNameAsGiven: text(row, 'court_name') || text(row, 'court') || null,
      datasetYear: partition.year,
      datasetCourt,
    },
  });
}
