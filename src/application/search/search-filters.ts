/**
 * Resolves the keyword search filters as callers send them (court names, years as numbers
 * or strings, case-type labels or codes, judge spellings, a date range) into what the
 * index filters on, plus the echo of what was applied (meta.filters). A value that
 * cannot be resolved (an unknown court or case type, a year outside 1947..this year, a
 * date range that ends before it starts) is a problem line naming the field, reported as
 * a validation error rather than silently widening or emptying the search; a value it
 * quotes is cut to its first characters (`quoted`).
 *
 * Each filter takes a bounded number of values, each of bounded length (FILTER_LIMITS; the
 * route schemas state the same as maxItems and maxLength), checked before any value is
 * resolved: a court list is counted after it is split on commas, so "a,b,c,..." cannot turn
 * one string into thousands of look-ups and as many problem lines.
 */
import { quoted } from '../../domain/echo.ts';
import { expandCaseType, resolveCourtOrBench } from '../../reference/reference-data.ts';
import type { SearchFilters } from '../../ports/search-index.ts';

export const FIRST_YEAR = 1947;

/**
 * The most values each filter takes and the longest each value may be, in characters.
 * Courts: the 40 courts of /reference/courts, or a choice of their 184 High Court benches,
 * and 1000 characters holds a comma-separated list of all 25 High Courts' names (564). Case
 * types: the longest label is 37 characters. Judges: the stored spellings run well under
 * 200. Years: one value a year, twenty of them (a longer run is fromDate and toDate).
 * Case numbers: as long as a case id (GET /cases/:id).
 */
export const FILTER_LIMITS = {
  court: { values: 50, length: 1000 },
  caseType: { values: 50, length: 100 },
  judgeName: { values: 50, length: 200 },
  year: { values: 20, length: 16 },
  caseNumber: { values: 50, length: 300 },
} as const;

export type LimitedFilter = keyof typeof FILTER_LIMITS;

type OneOrMany<T> = T | readonly T[];

/** The filter fields of the request body, after schema parsing. */
export interface FilterInput {
  readonly court?: OneOrMany<string>;
  readonly year?: OneOrMany<number | string>;
  readonly caseType?: OneOrMany<string>;
  readonly judgeName?: OneOrMany<string>;
  readonly judges?: OneOrMany<string>;
  readonly judge?: OneOrMany<string>;
  readonly fromDate?: string;
  readonly toDate?: string;
  readonly caseNumber?: OneOrMany<string>;
}

/** meta.filters: exactly what was applied (caseNumber aside: echoed, never applied). */
export interface AppliedFilters {
  court?: string[];
  year?: number[];
  caseType?: string[];
  judgeName?: string[];
  fromDate?: string;
  toDate?: string;
  caseNumber?: string[];
}

/** Court filter values resolved to reference court ids; the caller maps them to stored codes. */
export interface ResolvedFilters {
  readonly courtIds?: readonly string[];
  readonly filters: Omit<SearchFilters, 'courtCodes'>;
  readonly applied: AppliedFilters;
}

export type FilterResolution = { ok: true; value: ResolvedFilters } | { ok: false; problems: string[] };

function list<T>(value: OneOrMany<T> | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

/**
 * The values of one filter when they are within its limits (`counted` splits a value into
 * the values it stands for); otherwise a problem line, and none of them is read.
 */
function withinLimits<T>(
  field: string,
  limit: LimitedFilter,
  values: readonly T[],
  problems: string[],
  counted: (value: T) => readonly T[] = (value) => [value],
): T[] {
  const { values: most, length } = FILTER_LIMITS[limit];
  const tooLong = values.findIndex((v) => typeof v === 'string' && v.length > length);
  if (tooLong >= 0) {
    problems.push(`${field}${values.length > 1 ? `.${tooLong}` : ''}: longer than ${length} characters`);
    return [];
  }
  const all = values.flatMap(counted);
  if (all.length > most) {
    problems.push(`${field}: more than ${most} values (${all.length} given)`);
    return [];
  }
  return all;
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

export function resolveFilters(input: FilterInput, currentYear: number): FilterResolution {
  const problems: string[] = [];
  const filters: { -readonly [K in keyof ResolvedFilters['filters']]: ResolvedFilters['filters'][K] } = {};
  const applied: AppliedFilters = {};
  let courtIds: string[] | undefined;

  const courtNames = withinLimits('court', 'court', list(input.court), problems, (c) =>
    c
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  );
  if (courtNames.length > 0) {
    const courts = courtNames.map((name) => {
      const match = resolveCourtOrBench(name);
      if (!match) problems.push(`court: unknown court ${quoted(name)}; see GET /reference/courts`);
      return match?.court;
    });
    const known = courts.filter((c) => c !== undefined);
    courtIds = distinct(known.map((c) => c.id));
    applied.court = distinct(known.map((c) => c.name));
  }

  const years = withinLimits('year', 'year', list(input.year), problems).map((y) => {
    const year = typeof y === 'number' ? y : /^\d{4}$/.test(y.trim()) ? Number(y.trim()) : NaN;
    if (!Number.isInteger(year) || year < FIRST_YEAR || year > currentYear) {
      problems.push(
        `year: expected a four-digit year from ${FIRST_YEAR} to ${currentYear}, received ${typeof y === 'number' ? String(y) : quoted(y)}`,
      );
    }
    return year;
  });
  if (years.length > 0) filters.years = applied.year = distinct(years).sort((a, b) => a - b);

  const caseTypes = withinLimits('caseType', 'caseType', list(input.caseType), problems)
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (caseTypes.length > 0) {
    const codes = caseTypes.flatMap((t) => {
      const expanded = expandCaseType(t);
      if (expanded.length === 0) problems.push(`caseType: unknown label or code ${quoted(t)}; see GET /reference/case-types`);
      return expanded;
    });
    filters.caseTypes = applied.caseType = distinct(codes);
  }

  // The spec's aliases: the first of judgeName, judges, judge that is present wins.
  const judgeField = input.judgeName !== undefined ? 'judgeName' : input.judges !== undefined ? 'judges' : 'judge';
  const judges = withinLimits(judgeField, 'judgeName', list(input[judgeField]), problems).filter((j) => j.trim() !== '');
  if (judges.length > 0) filters.judges = applied.judgeName = distinct(judges);

  if (input.fromDate !== undefined) filters.fromDate = applied.fromDate = input.fromDate;
  if (input.toDate !== undefined) filters.toDate = applied.toDate = input.toDate;
  if (input.fromDate !== undefined && input.toDate !== undefined && input.fromDate > input.toDate) {
    problems.push(`toDate: ${input.toDate} is before fromDate ${input.fromDate}`);
  }

  const caseNumbers = withinLimits('caseNumber', 'caseNumber', list(input.caseNumber), problems);
  if (caseNumbers.length > 0) applied.caseNumber = caseNumbers;

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { ...(courtIds ? { courtIds } : {}), filters, applied } };
}
