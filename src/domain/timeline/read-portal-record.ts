/**
 * Reads a case-status record from parsed JSON whose keys are the names the eCourts client
 * library (captn3m0/ecourts) gives the portal's fields: the keys of the fixtures'
 * case_details.jsonl (cnr_number, case_type, ..., hearings[{srno, cause_list_type,
 * court_no, judge, date, next_date, purpose, details}], orders[{date, judge, filename,
 * judgement}], objections[...]) plus `order_no`, the portal's order number, when the
 * sender has it. Both the live portal adapter and the stored-record mapper read rows this
 * way, so the two timelines cannot drift apart. Tolerant: a missing field is null, a field
 * of the wrong type is null and reported, an unreadable row is left out and reported; only
 * a record without a valid CNR is refused. The session `token` is not kept.
 */
import type { Quirk } from '../case/case-record.ts';
import { normaliseCnr } from './cnr.ts';
import type {
  PortalCaseRecord,
  PortalFir,
  PortalHearing,
  PortalHearingDetails,
  PortalObjection,
  PortalOrder,
  PortalParty,
} from './portal-record.ts';

type Fields = Readonly<Record<string, unknown>>;

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Typed reads of one JSON object; wrong types become null and a quirk under `path`. */
export class FieldReader {
  constructor(
    private readonly fields: Fields,
    private readonly path: string,
    private readonly quirks: Quirk[],
  ) {}

  private wrong(key: string, expected: string): null {
    this.quirks.push({ field: `${this.path}${key}`, issue: `not ${expected}`, value: JSON.stringify(this.fields[key]) });
    return null;
  }

  /** Trimmed text; numbers are read as their digits (the FIR year is one); blank is null. */
  text(key: string): string | null {
    const value = this.fields[key];
    if (value === undefined || value === null) return null;
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string') return this.wrong(key, 'text');
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }

  integer(key: string): number | null {
    const value = this.fields[key];
    if (value === undefined || value === null) return null;
    const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    return typeof n === 'number' && Number.isInteger(n) ? n : this.wrong(key, 'a whole number');
  }

  flag(key: string): boolean | null {
    const value = this.fields[key];
    if (value === undefined || value === null) return null;
    return typeof value === 'boolean' ? value : this.wrong(key, 'true or false');
  }

  list(key: string): readonly unknown[] {
    const value = this.fields[key];
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    this.wrong(key, 'a list');
    return [];
  }

  raw(key: string): unknown {
    return this.fields[key];
  }
}

/** Each readable row of a list; a row that is not an object is reported and left out. */
function rows<T>(list: readonly unknown[], path: string, quirks: Quirk[], read: (r: FieldReader, index: number) => T): T[] {
  return list.flatMap((row, index) => {
    if (isFields(row)) return [read(new FieldReader(row, `${path}[${index}].`, quirks), index)];
    quirks.push({ field: `${path}[${index}]`, issue: 'not an object; row left out', value: JSON.stringify(row) });
    return [];
  });
}

/** The business popup of a hearing row (the fixtures' hearings.jsonl holds one). */
export function readHearingDetails(value: unknown, path: string, quirks: Quirk[]): PortalHearingDetails | null {
  if (value === undefined || value === null) return null;
  if (!isFields(value)) {
    quirks.push({ field: path, issue: 'not an object', value: JSON.stringify(value) });
    return null;
  }
  const r = new FieldReader(value, `${path}.`, quirks);
  return { nextHearingDate: r.text('Next Hearing Date'), nextPurpose: r.text('Next Purpose'), shortOrder: r.text('Short Order') };
}

export function readHearings(list: readonly unknown[], quirks: Quirk[]): PortalHearing[] {
  return rows(list, 'hearings', quirks, (r, index) => ({
    serialNumber: r.integer('srno'),
    causeListType: r.text('cause_list_type'),
    courtNumber: r.text('court_no'),
    judge: r.text('judge'),
    businessDate: r.text('date'),
    hearingDate: r.text('next_date'),
    purpose: r.text('purpose'),
    details: readHearingDetails(r.raw('details'), `hearings[${index}].details`, quirks),
  }));
}

export function readOrders(list: readonly unknown[], quirks: Quirk[]): PortalOrder[] {
  return rows(list, 'orders', quirks, (r, index) => ({
    orderNumber: r.integer('order_no') ?? index + 1,
    orderDate: r.text('date'),
    judge: r.text('judge'),
    documentId: r.text('filename'),
    isJudgment: r.flag('judgement'),
  }));
}

export function readObjections(list: readonly unknown[], quirks: Quirk[]): PortalObjection[] {
  return rows(list, 'objections', quirks, (r) => ({
    scrutinyDate: r.text('scrutiny_date'),
    objection: r.text('objection'),
    complianceDate: r.text('compliance_date'),
    receiptDate: r.text('receipt_date'),
  }));
}

export function readFir(value: unknown, quirks: Quirk[]): PortalFir | null {
  if (value === undefined || value === null) return null;
  if (!isFields(value)) {
    quirks.push({ field: 'fir', issue: 'not an object', value: JSON.stringify(value) });
    return null;
  }
  const r = new FieldReader(value, 'fir.', quirks);
  return {
    state: r.text('state'),
    district: r.text('district'),
    policeStation: r.text('police_station'),
    number: r.text('number'),
    year: r.text('year'),
  };
}

function parties(list: readonly unknown[], path: string, quirks: Quirk[]): PortalParty[] {
  return rows(list, path, quirks, (r) => ({ name: r.text('name'), advocate: r.text('advocate') }));
}

export type PortalRecordRead = { readonly record: PortalCaseRecord } | { readonly invalid: string };

export function readPortalRecord(value: unknown): PortalRecordRead {
  if (!isFields(value)) return { invalid: 'not a JSON object' };
  const quirks: Quirk[] = [];
  const r = new FieldReader(value, '', quirks);
  const printed = r.text('cnr_number');
  const cnr = printed === null ? null : normaliseCnr(printed);
  if (cnr === null) return { invalid: `no valid CNR in cnr_number (${JSON.stringify(value.cnr_number ?? null)})` };
  return {
    record: {
      cnr,
      caseType: r.text('case_type'),
      registrationNumber: r.text('registration_number'),
      internalCaseNumber: r.text('case_number'),
      filingNumber: r.text('filing_number'),
      filingDate: r.text('filing_date'),
      registrationDate: r.text('registration_date'),
      firstHearingDate: r.text('first_hearing_date'),
      decisionDate: r.text('decision_date'),
      stage: r.text('case_status'),
      natureOfDisposal: r.text('nature_of_disposal'),
      category: r.text('category'),
      subCategory: r.text('sub_category'),
      section: r.text('judicial'),
      benchType: r.text('bench'),
      coram: r.text('coram'),
      state: r.text('state'),
      district: r.text('district'),
      notBeforeMe: r.text('not_before_me'),
      fir: readFir(r.raw('fir'), quirks),
      petitioners: parties(r.list('petitioners'), 'petitioners', quirks),
      respondents: parties(r.list('respondents'), 'respondents', quirks),
      hearings: readHearings(r.list('hearings'), quirks),
      orders: readOrders(r.list('orders'), quirks),
      objections: readObjections(r.list('objections'), quirks),
      quirks,
    },
  };
}
