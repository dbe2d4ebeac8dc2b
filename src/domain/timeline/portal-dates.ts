/**
 * Dates as the eCourts portal prints them: DD-MM-YYYY on its pages, YYYY-MM-DD in the
 * fixtures' JSON, and its words for "none" ("Next Date is not given", "--", blank). Each
 * becomes ISO YYYY-MM-DD or null; anything else is null and reported, never guessed.
 */
import type { Quirk } from '../case/case-record.ts';
import { parseDayFirst, parseIso } from '../case/dates.ts';

const NO_DATE = /^(?:-*|next date is not given)$/i;

export function portalDate(field: string, printed: string | null, quirks: Quirk[]): string | null {
  if (printed === null || NO_DATE.test(printed.trim())) return null;
  const iso = parseIso(printed) ?? parseDayFirst(printed);
  if (iso === null) quirks.push({ field, issue: 'not a calendar date as DD-MM-YYYY or YYYY-MM-DD', value: printed });
  return iso;
}
