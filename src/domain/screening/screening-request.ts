/**
 * The parts of a litigation-check request a schema cannot say: that `since` is a day that
 * exists on the calendar (2023-02-29 does not), that the name and its aliases stay within
 * eight names, and which candidates the `since` cutoff drops. The route validates with these
 * and the application filters with `keptBySince`, so both read the rule from one place. Pure.
 */
import type { CandidateRecord } from './features.ts';

/** Name plus aliases: at most eight names in one check (spec Limits). */
export const MAX_NAMES = 8;

export const MAX_ALIASES = MAX_NAMES - 1;

export const MAX_KNOWN_PERSONS = 10;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** YYYY-MM-DD naming a real day of the Gregorian calendar. */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

export function withinNameLimit(aliases: readonly string[]): boolean {
  return aliases.length + 1 <= MAX_NAMES;
}

/** The calendar day of a stored date or timestamp ("2019-03-04", "2019-03-04T00:00:00Z"). */
function dayOf(date: string | null): string | null {
  return date === null || date.length < 10 ? null : date.slice(0, 10);
}

/**
 * Whether a candidate survives the `since` cutoff. The spec drops a candidate only if its
 * decision or filing date is strictly before the cutoff and keeps candidates with neither;
 * we drop when every date the record has is before the cutoff, so a case filed earlier but
 * decided on or after the cutoff (litigation that was live after it) is kept.
 */
export function keptBySince(candidate: Pick<CandidateRecord, 'decisionDate' | 'filingDate'>, since: string): boolean {
  const days = [dayOf(candidate.decisionDate), dayOf(candidate.filingDate)].filter((d): d is string => d !== null);
  return days.length === 0 || days.some((d) => d >= since);
}
