/**
 * Date normalisation for the corpus sources, which use DD-MM-YYYY (SC app API),
 * DD/MM/YYYY (Indian Kanoon headers), "4 september, 1990" / "March 24, 1964" (titles and
 * judgment lines) and ISO (eCourts). Every parser returns ISO YYYY-MM-DD or null; it
 * checks the calendar (no 31 February) but never "corrects" an implausible year: that
 * is reported as a quirk by the caller and the date is kept as the source gives it.
 */

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** ISO string for a real calendar date, else null. */
export function isoDate(year: number, month: number, day: number): string | null {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return null;
  if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (day > days) return null;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** `17-02-1902`, `04/09/1990`, `4.9.1990` (day first, four-digit year). */
export function parseDayFirst(raw: string | null | undefined): string | null {
  const m = /^\s*(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})\s*$/.exec(raw ?? '');
  if (!m) return null;
  return isoDate(Number(m[3]), Number(m[2]), Number(m[1]));
}

/** `2018-10-03` (eCourts fixtures); validates the calendar. */
export function parseIso(raw: string | null | undefined): string | null {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})\s*$/.exec(raw ?? '');
  if (!m) return null;
  return isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

function monthIndex(name: string): number {
  return MONTHS.indexOf(name.toLowerCase() as (typeof MONTHS)[number]) + 1;
}

/** `4 september, 1990` or `March 24, 1964` (any case). */
export function parseMonthName(raw: string | null | undefined): string | null {
  const s = (raw ?? '').trim();
  const dayFirst = /^(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(s);
  if (dayFirst) return isoDate(Number(dayFirst[3]), monthIndex(dayFirst[2] ?? ''), Number(dayFirst[1]));
  const monthFirst = /^([a-z]+)\s+(\d{1,2}),?\s+(\d{4})$/i.exec(s);
  if (monthFirst) return isoDate(Number(monthFirst[3]), monthIndex(monthFirst[1] ?? ''), Number(monthFirst[2]));
  return null;
}

export function yearOf(iso: string | null): number | null {
  return iso === null ? null : Number(iso.slice(0, 4));
}
