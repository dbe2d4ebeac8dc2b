/**
 * Filters of semantic search: the caller's `filters` object (the only place filtering
 * works) merged over what the query text itself names: a court ("... in the Delhi High
 * Court"), a decision year ("... decided in 2019") or a case type ("special leave petition
 * (civil)"). The caller's value wins wherever both give one. Inference is deliberately
 * narrow: a year counts only after in/from/during/of the year, never a year inside an Act's
 * name ("Income Tax Act, 1961"), and only full court names and standard case-type labels
 * count, so a stray abbreviation never narrows a search by surprise.
 */
import { normaliseCaseNumber } from '../../domain/case/case-number.ts';
import { caseTypesReference, courtsReference } from '../../reference/reference-data.ts';
import { resolveFilters, type AppliedFilters, type ResolvedFilters } from './search-filters.ts';

type OneOrMany<T> = T | readonly T[];

export interface SemanticFilterInput {
  readonly court?: OneOrMany<string>;
  readonly caseType?: OneOrMany<string>;
  readonly judgeName?: OneOrMany<string>;
  readonly judges?: OneOrMany<string>;
  readonly judge?: OneOrMany<string>;
  readonly caseYear?: OneOrMany<number | string>;
  readonly caseNumber?: OneOrMany<string>;
  readonly decisionDate?: { readonly $gte?: string; readonly $lte?: string };
}

/** meta.appliedFilters: what was searched with, and which of it came from the query text. */
export interface SemanticAppliedFilters {
  court?: string[];
  caseType?: string[];
  judgeName?: string[];
  caseYear?: number[];
  caseNumber?: string[];
  decisionDate?: { $gte?: string; $lte?: string };
  inferredFromQuery: ('court' | 'caseType' | 'caseYear')[];
}

export interface ResolvedSemanticFilters {
  readonly resolved: ResolvedFilters;
  /** Normalised case-number keys. */
  readonly caseNumbers?: readonly string[];
  readonly applied: SemanticAppliedFilters;
}

export type SemanticFilterResolution = { ok: true; value: ResolvedSemanticFilters } | { ok: false; problems: string[] };

const MIN_NAME_LENGTH = 8;

function words(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
}

let courtNames: { phrase: string; name: string }[] | undefined;
let caseTypeLabels: { phrase: string; label: string }[] | undefined;

function courtPhrases(): { phrase: string; name: string }[] {
  courtNames ??= courtsReference()
    .courts.flatMap((c) => [c.name, ...c.aliases].map((n) => ({ phrase: words(n), name: c.name })))
    .filter((p) => p.phrase.trim().length >= MIN_NAME_LENGTH)
    .sort((a, b) => b.phrase.length - a.phrase.length);
  return courtNames;
}

function caseTypePhrases(): { phrase: string; label: string }[] {
  caseTypeLabels ??= caseTypesReference()
    .caseTypes.filter((t) => t.kind === 'standard')
    .map((t) => ({ phrase: words(t.label), label: t.label }))
    .filter((p) => p.phrase.trim().length >= MIN_NAME_LENGTH)
    .sort((a, b) => b.phrase.length - a.phrase.length);
  return caseTypeLabels;
}

/** What the query text names, longest phrases first, each part of the text used once. */
export function inferFilters(query: string, currentYear: number): { court?: string[]; caseType?: string[]; caseYear?: number[] } {
  let text = words(query);
  const take = (phrases: { phrase: string }[]) => {
    const found: number[] = [];
    phrases.forEach((p, i) => {
      if (text.includes(p.phrase)) {
        found.push(i);
        text = text.replace(p.phrase, ' ');
      }
    });
    return found;
  };
  const courts = [...new Set(take(courtPhrases()).map((i) => courtPhrases()[i]!.name))];
  const types = [...new Set(take(caseTypePhrases()).map((i) => caseTypePhrases()[i]!.label))];
  const years = [...query.matchAll(/\b(?:in|from|during|of the year|decided in|year)\s+(\d{4})\b/gi)]
    .map((m) => Number(m[1]))
    .filter((y) => y >= 1947 && y <= currentYear);
  return {
    ...(courts.length > 0 ? { court: courts } : {}),
    ...(types.length > 0 ? { caseType: types } : {}),
    ...(years.length > 0 ? { caseYear: [...new Set(years)] } : {}),
  };
}

/** The keyword filters' problem lines, named as the semantic `filters` fields. */
const FIELD_NAMES: Record<string, string> = { year: 'caseYear', toDate: 'decisionDate.$lte', fromDate: 'decisionDate.$gte' };
function asSemanticField(problem: string): string {
  return problem.replace(/^(\w+):/, (_m, field: string) => `filters.${FIELD_NAMES[field] ?? field}:`);
}

function list<T>(value: OneOrMany<T> | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

export function resolveSemanticFilters(query: string, input: SemanticFilterInput, currentYear: number): SemanticFilterResolution {
  const inferred = inferFilters(query, currentYear);
  const inferredFromQuery: SemanticAppliedFilters['inferredFromQuery'] = [];
  const pick = <K extends 'court' | 'caseType' | 'caseYear'>(key: K) => {
    if (input[key] !== undefined) return input[key];
    if (inferred[key] !== undefined) inferredFromQuery.push(key);
    return inferred[key];
  };
  const court = pick('court');
  const caseType = pick('caseType');
  const caseYear = pick('caseYear');
  const resolution = resolveFilters(
    {
      ...(court === undefined ? {} : { court }),
      ...(caseType === undefined ? {} : { caseType }),
      ...(caseYear === undefined ? {} : { year: caseYear }),
      ...(input.judgeName === undefined ? {} : { judgeName: input.judgeName }),
      ...(input.judges === undefined ? {} : { judges: input.judges }),
      ...(input.judge === undefined ? {} : { judge: input.judge }),
      ...(input.decisionDate?.$gte === undefined ? {} : { fromDate: input.decisionDate.$gte }),
      ...(input.decisionDate?.$lte === undefined ? {} : { toDate: input.decisionDate.$lte }),
      // Only to hold it to the filter limits before it is read; the case numbers are applied below.
      ...(input.caseNumber === undefined ? {} : { caseNumber: input.caseNumber }),
    },
    currentYear,
  );
  if (!resolution.ok) return { ok: false, problems: resolution.problems.map(asSemanticField) };
  const caseNumbers = list(input.caseNumber)
    .map((n) => ({ raw: n, key: normaliseCaseNumber(n) }))
    .filter((n) => n.key !== '');
  const a: AppliedFilters = resolution.value.applied;
  const applied: SemanticAppliedFilters = {
    ...(a.court ? { court: a.court } : {}),
    ...(a.caseType ? { caseType: a.caseType } : {}),
    ...(a.judgeName ? { judgeName: a.judgeName } : {}),
    ...(a.year ? { caseYear: a.year } : {}),
    ...(caseNumbers.length > 0 ? { caseNumber: caseNumbers.map((n) => n.raw) } : {}),
    ...(a.fromDate || a.toDate
      ? { decisionDate: { ...(a.fromDate ? { $gte: a.fromDate } : {}), ...(a.toDate ? { $lte: a.toDate } : {}) } }
      : {}),
    inferredFromQuery,
  };
  return {
    ok: true,
    value: {
      resolved: resolution.value,
      ...(caseNumbers.length > 0 ? { caseNumbers: [...new Set(caseNumbers.map((n) => n.key))] } : {}),
      applied,
    },
  };
}
