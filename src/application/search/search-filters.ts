/**
 * Resolves the keyword search filters as callers send them (court names, years as numbers
 * or strings, case-type labels or codes, judge spellings, a date range) into what the
 * index filters on, plus the echo of what was applied (meta.filters). A value that
 * cannot be resolved (an unknown court or case type, a year outside 1947..this year, a
 * date range that ends before it starts) is a problem line naming the field, reported as
 * a validation error rather than silently widening or emptying the search. The body
 * limit is the only cap on these fields, so a court or case-type value longer than any a
 * caller types is refused as such before it is read.
 */
import { expandCaseType, resolveCourtOrBench } from '../../reference/reference-data.ts';
import type { SearchFilters } from '../../ports/search-index.ts';

export const FIRST_YEAR = 1947;
/** Well past a comma-separated list of every High Court's name. */
export const MAX_FILTER_TEXT_LENGTH = 1000;

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

/** The values short enough to read; each longer one is a problem line instead. */
function readable(field: string, values: readonly string[], problems: string[]): string[] {
  return values.filter((value) => {
    if (value.length <= MAX_FILTER_TEXT_LENGTH) return true;
    problems.push(`${field}: longer than ${MAX_FILTER_TEXT_LENGTH} characters`);
    return false;
  });
}

function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

export function resolveFilters(input: FilterInput, currentYear: number): FilterResolution {
  const problems: string[] = [];
  const filters: { -readonly [K in keyof ResolvedFilters['filters']]: ResolvedFilters['filters'][K] } = {};
  const applied: AppliedFilters = {};
  let courtIds: string[] | undefined;

  const courtNames = readable('court', list(input.court), problems)
    .flatMap((c) => c.split(','))
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (courtNames.length > 0) {
    const courts = courtNames.map((name) => {
      const match = resolveCourtOrBench(name);
      if (!match) problems.push(`court: unknown court "${name}"; see GET /reference/courts`);
      return match?.court;
    });
    const known = courts.filter((c) => c !== undefined);
    courtIds = distinct(known.map((c) => c.id));
    applied.court = distinct(known.map((c) => c.name));
  }

  const years = list(input.year).map((y) => {
    const year = typeof y === 'number' ? y : /^\d{4}$/.test(y.trim()) ? Number(y.trim()) : NaN;
    if (!Number.isInteger(year) || year < FIRST_YEAR || year > currentYear) {
      problems.push(`year: expected a four-digit year from ${FIRST_YEAR} to ${currentYear}, received ${JSON.stringify(y)}`);
    }
    return year;
  });
  if (years.length > 0) filters.years = applied.year = distinct(years).sort((a, b) => a - b);

  const caseTypes = readable('caseType', list(input.caseType), problems)
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (caseTypes.length > 0) {
    const codes = caseTypes.flatMap((t) => {
      const expanded = expandCaseType(t);
      if (expanded.length === 0) problems.push(`caseType: unknown label or code "${t}"; see GET /reference/case-types`);
      return expanded;
    });
    filters.caseTypes = applied.caseType = distinct(codes);
  }

  // The spec's aliases: the first of judgeName, judges, judge that is present wins.
  const judgeValue = input.judgeName ?? input.judges ?? input.judge;
  const judges = list(judgeValue).filter((j) => j.trim() !== '');
  if (judges.length > 0) filters.judges = applied.judgeName = distinct(judges);

  if (input.fromDate !== undefined) filters.fromDate = applied.fromDate = input.fromDate;
  if (input.toDate !== undefined) filters.toDate = applied.toDate = input.toDate;
  if (input.fromDate !== undefined && input.toDate !== undefined && input.fromDate > input.toDate) {
    problems.push(`toDate: ${input.toDate} is before fromDate ${input.fromDate}`);
  }

  const caseNumbers = list(input.caseNumber);
  if (caseNumbers.length > 0) applied.caseNumber = caseNumbers;

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, value: { ...(courtIds ? { courtIds } : {}), filters, applied } };
}
