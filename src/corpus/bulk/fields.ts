/**
 * Field readers shared by the two bulk mappers: a row is untrusted input from a file
 * (a parquet column can be of any type, a JSON value anything), so every read says what
 * it got. Pure.
 */
import { isoDate, parseDayFirst, parseIso } from '../../domain/case/dates.ts';

/** A metadata field longer than this is not metadata; the row is rejected rather than stored. */
const MAX_FIELD_CHARS = 100_000;

export type Row = Readonly<Record<string, unknown>>;

/** Trimmed string value, '' when absent, null, or not a string. */
export function text(row: Row, key: string): string {
  const v = row[key];
  return typeof v === 'string' ? v.trim() : '';
}

/** The first field over MAX_FIELD_CHARS, for a rejection reason. */
export function oversizedField(row: Row, keys: readonly string[]): string | null {
  for (const key of keys) {
    const v = row[key];
    if (typeof v === 'string' && v.length > MAX_FIELD_CHARS) return `${key} is ${v.length} characters (at most ${MAX_FIELD_CHARS})`;
  }
  return null;
}

/**
 * A calendar date from a parquet DATE (hyparquet gives a Date at UTC midnight), an ISO
 * string or a day-first `DD-MM-YYYY` string as the portals print it.
 */
export function dateValue(v: unknown): { iso: string | null; asGiven: string | null } {
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return { iso: null, asGiven: 'Invalid Date' };
    return { iso: isoDate(v.getUTCFullYear(), v.getUTCMonth() + 1, v.getUTCDate()), asGiven: v.toISOString().slice(0, 10) };
  }
  if (typeof v !== 'string' || v.trim() === '') return { iso: null, asGiven: null };
  return { iso: parseIso(v) ?? parseDayFirst(v), asGiven: v.trim() };
}

/** `A vs B` / `A Vs. B` / `A V/S B` / `A versus B`, split at the first such word. */
export function splitParties(s: string): { petitioner: string; respondent: string } | null {
  // A card with no respondent still prints the separator (`A Vs`): pad so it is found.
  const flat = `${s.replace(/\s+/g, ' ').trim()} `;
  const lower = flat.toLowerCase();
  for (const sep of [' versus ', ' vs. ', ' vs ', ' v/s ', ' v. ']) {
    const at = lower.indexOf(sep);
    if (at > 0) return { petitioner: flat.slice(0, at).trim(), respondent: flat.slice(at + sep.length).trim() };
  }
  return null;
}

/** A case id segment from a source identifier: letters, digits and single dashes. */
export function idSegment(raw: string): string {
  return raw
    .replace(/[^0-9A-Za-z]+/g, '-')
    .replace(/^-+/, '')
    .replace(/(?<!-)-+$/, '');
}

/** The year a case number ends with (`.../2015`, `... of 2015`), for the date check. */
export function trailingYear(caseNumber: string): number | null {
  const tail = caseNumber.slice(-4);
  return /^\d{4}$/.test(tail) ? Number(tail) : null;
}
