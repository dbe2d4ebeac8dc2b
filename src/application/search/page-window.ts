/**
 * The pure paging rules of both search routes: which results a page asks for (its size
 * against the tier's page size, its offset from `page` or a decoded searchAfter cursor,
 * and the depth cap), where the next page starts, and the pagination block of the answer.
 * A window that cannot be served is a tagged refusal, decided before any work or charge.
 */
import type { TierLimits } from '../../domain/access/tiers.ts';
import type { CursorPosition } from '../../ports/search-cursors.ts';
import type { RefusalOf } from '../admission/decision.ts';

export interface PageRules {
  readonly search: 'keyword' | 'semantic';
  readonly defaultLimit: number;
  readonly maxLimit: number;
  /** A limit above the page size: refused (PageTooLarge), or cut down to it. */
  readonly oversize: 'refuse' | 'cap';
  /** How deep the index itself can page, under the tier's cap. */
  readonly indexDepth: number;
}

export interface PageAsk {
  readonly limit?: number;
  readonly page?: number;
  /** The searchAfter cursor decoded: absent when none was sent, null when it did not decode. */
  readonly cursor?: CursorPosition | null;
}

export interface PageWindow {
  readonly offset: number;
  readonly limit: number;
  /** Results a page may reach: the tier's cap or the index's, whichever is lower. */
  readonly depth: number;
}

export type PageRefusal = RefusalOf<'PageTooLarge' | 'CursorInvalid' | 'PageTooDeep'>;

export type PageWindowDecision = { readonly ok: true; readonly value: PageWindow } | { readonly ok: false; readonly refusal: PageRefusal };

export interface Pagination {
  /** The 1-based page the offset falls on. */
  readonly page: number;
  readonly limit: number;
  readonly offset: number;
  readonly total: number;
  readonly totalPages: number;
  readonly hasMore: boolean;
}

export function pageWindow(
  ask: PageAsk,
  rules: PageRules,
  limits: Pick<TierLimits, 'maxPageSize' | 'paginationDepth'>,
): PageWindowDecision {
  const maxPageSize = Math.min(rules.maxLimit, limits.maxPageSize);
  const asked = ask.limit ?? rules.defaultLimit;
  if (asked > maxPageSize && rules.oversize === 'refuse') return { ok: false, refusal: { tag: 'PageTooLarge', limit: asked, maxPageSize } };
  const limit = Math.min(asked, maxPageSize);
  if (ask.cursor === null) return { ok: false, refusal: { tag: 'CursorInvalid' } };
  const offset = ask.cursor === undefined ? ((ask.page ?? 1) - 1) * limit : ask.cursor.offset;
  const depth = Math.min(limits.paginationDepth, rules.indexDepth);
  if (offset + limit > depth) return { ok: false, refusal: { tag: 'PageTooDeep', search: rules.search, offset, limit, depth } };
  return { ok: true, value: { offset, limit, depth } };
}

/** Where the page after this one starts: null at the end of the results or at the depth cap. */
export function nextOffset(window: PageWindow, hasMore: boolean): number | null {
  const next = window.offset + window.limit;
  return hasMore && next < window.depth ? next : null;
}

export function pagination(window: PageWindow, total: number, hasMore: boolean): Pagination {
  const { offset, limit } = window;
  return { page: Math.floor(offset / limit) + 1, limit, offset, total, totalPages: Math.ceil(total / limit), hasMore };
}
