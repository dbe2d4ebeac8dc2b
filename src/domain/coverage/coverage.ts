/**
 * Corpus coverage: counts by court and by year, with every district court rolled into one
 * districtCourts row, and how many business days each court's newest decision trails
 * today. Pure: the aggregate rows and today's date come in as arguments.
 */
import type { CourtLevel } from '../case/case-record.ts';

export type { CourtLevel };

export interface CoverageAggregate {
  readonly courtCode: string;
  readonly courtName: string;
  readonly courtLevel: CourtLevel;
  readonly year: number | null;
  readonly total: number;
  readonly documentBearing: number;
  readonly latestDecisionDate: string | null;
}

export interface Counts {
  readonly total: number;
  readonly documentBearing: number;
  readonly statusOnly: number;
}

export interface CourtCoverage extends Counts {
  readonly court: string;
  readonly courtName: string;
  readonly level: CourtLevel;
  readonly latestDecisionDate: string | null;
  readonly businessDaysBehind: number | null;
}

export interface YearCoverage extends Counts {
  readonly year: number | null;
}

export interface CoverageSnapshot {
  readonly computedAt: string;
  readonly totals: Counts;
  readonly courts: CourtCoverage[];
  readonly years: YearCoverage[];
}

export const DISTRICT_COURTS_ROW = 'districtCourts';

/** A court whose newest decision is older than this has "no recent activity". */
export const RECENT_ACTIVITY_DAYS = 90;

const DAY_MS = 86_400_000;

function utcDay(iso: string): number {
  return Date.parse(`${iso.slice(0, 10)}T00:00:00Z`);
}

/** Weekdays after `from` up to and including `to`; court holidays are not modelled. */
export function businessDaysBetween(from: string, to: string): number {
  let count = 0;
  for (let t = utcDay(from) + DAY_MS; t <= utcDay(to); t += DAY_MS) {
    const weekday = new Date(t).getUTCDay();
    if (weekday !== 0 && weekday !== 6) count += 1;
  }
  return count;
}

export function businessDaysBehind(latest: string | null, today: string): number | null {
  if (latest === null) return null;
  const ageDays = (utcDay(today) - utcDay(latest)) / DAY_MS;
  if (ageDays > RECENT_ACTIVITY_DAYS) return null;
  return ageDays <= 0 ? 0 : businessDaysBetween(latest, today);
}

function add(a: Counts, total: number, documentBearing: number): Counts {
  const t = a.total + total;
  const d = a.documentBearing + documentBearing;
  return { total: t, documentBearing: d, statusOnly: t - d };
}

const ZERO: Counts = { total: 0, documentBearing: 0, statusOnly: 0 };

function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

export function buildCoverage(rows: readonly CoverageAggregate[], now: Date): CoverageSnapshot {
  const today = now.toISOString().slice(0, 10);
  const courts = new Map<string, { name: string; level: CourtLevel; counts: Counts; latest: string | null }>();
  const years = new Map<number | null, Counts>();
  courts.set(DISTRICT_COURTS_ROW, { name: 'District courts (all districts)', level: 'district', counts: ZERO, latest: null });
  let totals = ZERO;
  for (const row of rows) {
    const key = row.courtLevel === 'district' ? DISTRICT_COURTS_ROW : row.courtCode;
    const court = courts.get(key) ?? { name: row.courtName, level: row.courtLevel, counts: ZERO, latest: null };
    courts.set(key, {
      ...court,
      counts: add(court.counts, row.total, row.documentBearing),
      latest: later(court.latest, row.latestDecisionDate),
    });
    years.set(row.year, add(years.get(row.year) ?? ZERO, row.total, row.documentBearing));
    totals = add(totals, row.total, row.documentBearing);
  }
  return {
    computedAt: now.toISOString(),
    totals,
    courts: [...courts]
      .map(([court, c]) => ({
        court,
        courtName: c.name,
        level: c.level,
        ...c.counts,
        latestDecisionDate: c.latest,
        businessDaysBehind: businessDaysBehind(c.latest, today),
      }))
      .sort((a, b) => b.total - a.total || a.court.localeCompare(b.court)),
    years: [...years].map(([year, counts]) => ({ year, ...counts })).sort((a, b) => (a.year ?? -1) - (b.year ?? -1)),
  };
}
