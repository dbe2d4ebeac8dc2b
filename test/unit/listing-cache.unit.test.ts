/**
 * Kept search listings: one is handed out only for the exact row version it was kept at,
 * so a caller that has just read a newer version (an edit, a restriction) always misses;
 * and the cache holds at most its bound, dropping the least recently used first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListingCache } from '../../src/application/cases/listing-cache.ts';

describe('ListingCache', () => {
  it('answers only for the version it kept', () => {
    const cache = new ListingCache<string>(10);
    cache.set('a', 7, 'title at 7');
    assert.equal(cache.get('a', 7), 'title at 7');
    assert.equal(cache.get('a', 8), undefined, 'a newer row version must miss');
    assert.equal(cache.get('a', 6), undefined);
    cache.set('a', 8, 'title at 8');
    assert.equal(cache.get('a', 8), 'title at 8');
    assert.equal(cache.get('a', 7), undefined, 'the replaced version is gone');
    assert.equal(cache.get('b', 7), undefined);
  });

  it('keeps at most its bound, the least recently used going first', () => {
    const cache = new ListingCache<number>(2);
    cache.set('a', 1, 1);
    cache.set('b', 1, 2);
    assert.equal(cache.get('a', 1), 1);
    cache.set('c', 1, 3);
    assert.equal(cache.get('b', 1), undefined, 'b was the least recently used');
    assert.equal(cache.get('a', 1), 1);
    assert.equal(cache.get('c', 1), 3);
  });
});
