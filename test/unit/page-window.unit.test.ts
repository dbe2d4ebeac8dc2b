/** The pure paging rules of search: the page window and its refusals, the next page, the pagination block. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextOffset, pageWindow, pagination, type PageRules } from '../../src/application/search/page-window.ts';
import { KEYWORD_PAGES, SEMANTIC_PAGES } from '../../src/application/search/search-pages.ts';
import { TIER_LIMITS } from '../../src/domain/access/tiers.ts';

const TIER = { maxPageSize: 50, paginationDepth: 1_000 };

describe('the page window', () => {
  it('defaults to page 1 at the default limit', () => {
    assert.deepEqual(pageWindow({}, KEYWORD_PAGES, TIER), { ok: true, value: { offset: 0, limit: 20, depth: 1_000 } });
  });

  it('turns a page into an offset', () => {
    assert.deepEqual(pageWindow({ page: 3, limit: 25 }, KEYWORD_PAGES, TIER), { ok: true, value: { offset: 50, limit: 25, depth: 1_000 } });
  });

  it('refuses a limit above the tier page size where the rules refuse, naming both', () => {
    assert.deepEqual(pageWindow({ limit: 51 }, KEYWORD_PAGES, TIER), {
      ok: false,
      refusal: { tag: 'PageTooLarge', limit: 51, maxPageSize: 50 },
    });
  });

  it('bounds the page size by the rules maximum as well as the tier', () => {
    assert.deepEqual(pageWindow({ limit: 101 }, KEYWORD_PAGES, { maxPageSize: 500, paginationDepth: 10_000 }), {
      ok: false,
      refusal: { tag: 'PageTooLarge', limit: 101, maxPageSize: 100 },
    });
  });

  it('caps a limit above the page size where the rules cap, and pages at the capped size', () => {
    assert.deepEqual(pageWindow({ limit: 80, page: 2 }, SEMANTIC_PAGES, TIER), {
      ok: true,
      value: { offset: 50, limit: 50, depth: 1_000 },
    });
  });

  it('takes the offset from a decoded cursor over the page', () => {
    assert.deepEqual(pageWindow({ page: 9, limit: 10, cursor: { offset: 40 } }, KEYWORD_PAGES, TIER), {
      ok: true,
      value: { offset: 40, limit: 10, depth: 1_000 },
    });
  });

  it('refuses a cursor that did not decode, after the page size', () => {
    assert.deepEqual(pageWindow({ limit: 10, cursor: null }, KEYWORD_PAGES, TIER), { ok: false, refusal: { tag: 'CursorInvalid' } });
    assert.deepEqual(pageWindow({ limit: 51, cursor: null }, KEYWORD_PAGES, TIER), {
      ok: false,
      refusal: { tag: 'PageTooLarge', limit: 51, maxPageSize: 50 },
    });
  });

  it('refuses a page reaching past the tier depth cap, and admits the last page within it', () => {
    assert.deepEqual(pageWindow({ page: 51, limit: 20 }, KEYWORD_PAGES, TIER), {
      ok: false,
      refusal: { tag: 'PageTooDeep', search: 'keyword', offset: 1_000, limit: 20, depth: 1_000 },
    });
    assert.deepEqual(pageWindow({ page: 50, limit: 20 }, KEYWORD_PAGES, TIER), {
      ok: true,
      value: { offset: 980, limit: 20, depth: 1_000 },
    });
  });

  it('checks a cursor position against the depth cap too', () => {
    assert.deepEqual(pageWindow({ limit: 20, cursor: { offset: 990 } }, KEYWORD_PAGES, TIER), {
      ok: false,
      refusal: { tag: 'PageTooDeep', search: 'keyword', offset: 990, limit: 20, depth: 1_000 },
    });
  });

  it('caps the depth at the index bound when it is below the tier cap, naming the search', () => {
    const rules: PageRules = { ...SEMANTIC_PAGES, indexDepth: 100 };
    assert.deepEqual(pageWindow({ page: 5, limit: 25 }, rules, TIER), {
      ok: false,
      refusal: { tag: 'PageTooDeep', search: 'semantic', offset: 100, limit: 25, depth: 100 },
    });
  });

  it('holds every tier to its own page size and depth', () => {
    for (const [tier, limits] of Object.entries(TIER_LIMITS)) {
      const deepest = pageWindow(
        { limit: limits.maxPageSize, cursor: { offset: limits.paginationDepth - limits.maxPageSize } },
        KEYWORD_PAGES,
        limits,
      );
      assert.equal(deepest.ok, true, tier);
      const past = pageWindow({ limit: limits.maxPageSize, cursor: { offset: limits.paginationDepth } }, KEYWORD_PAGES, limits);
      assert.equal(!past.ok && past.refusal.tag, 'PageTooDeep', tier);
    }
  });
});

describe('the next page and the pagination block', () => {
  const window = { offset: 40, limit: 20, depth: 100 };

  it('starts the next page after this one while there is more', () => {
    assert.equal(nextOffset(window, true), 60);
    assert.equal(nextOffset(window, false), null);
  });

  it('has no next page at the depth cap', () => {
    assert.equal(nextOffset({ offset: 80, limit: 20, depth: 100 }, true), null);
  });

  it('states the page the offset falls on and the pages in all', () => {
    assert.deepEqual(pagination(window, 101, true), { page: 3, limit: 20, offset: 40, total: 101, totalPages: 6, hasMore: true });
    assert.deepEqual(pagination({ offset: 30, limit: 20, depth: 100 }, 0, false), {
      page: 2,
      limit: 20,
      offset: 30,
      total: 0,
      totalPages: 0,
      hasMore: false,
    });
  });
});
