/**
 * Kept search listings: one is handed out only for the exact row version it was kept at,
 * so a caller that has just read a newer version (an edit, a restriction) always misses;
 * and the cache holds at most its bound, dropping the least recently used first; weighed
 * values (judgment texts by characters) against a budget likewise.
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

  it('weighs values against a budget: a heavy one pushes out several, one heavier than the budget is not kept', () => {
    const cache = new ListingCache<string>(10, (text) => text.length);
    cache.set('a', 1, 'aaaa');
    cache.set('b', 1, 'bbbb');
    assert.equal(cache.versionOf('a'), 1);
    cache.set('c', 1, 'cccccccc');
    assert.equal(cache.get('a', 1), undefined);
    assert.equal(cache.get('b', 1), undefined);
    assert.equal(cache.get('c', 1), 'cccccccc');
    cache.set('c', 2, 'cc');
    cache.set('d', 1, 'dddddddd');
    assert.equal(cache.get('c', 2), 'cc', 'the replaced value no longer weighs');
    cache.set('e', 1, 'e'.repeat(11));
    assert.equal(cache.versionOf('e'), undefined);
    assert.equal(cache.get('d', 1), 'dddddddd', 'a value over the budget pushes nothing out');
  });
});
