/**
 * The in-process distinct counter: counts distinct members until the set expires, and
 * holds bounded memory: expired sets are evicted by a sweep even if never touched again,
 * and past the member bound the least recently added-to sets go first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import type { Clock } from '../../src/ports/clock.ts';

class SettableClock implements Clock {
  constructor(private current: number) {}
  now(): Date {
    return new Date(this.current);
  }
  advanceSeconds(seconds: number): void {
    this.current += seconds * 1000;
  }
}

const start = () => new SettableClock(Date.parse('2026-11-29T00:00:00.000Z'));

describe('in-process distinct counter', () => {
  it('counts distinct members, takes one back out, and starts over once the set expires', async () => {
    const clock = start();
    const counter = new MemoryDistinctCounter(clock);
    assert.deepEqual(await counter.add('s', 'a', 60), { size: 1, isNew: true });
    assert.deepEqual(await counter.add('s', 'a', 60), { size: 1, isNew: false });
    assert.deepEqual(await counter.add('s', 'b', 60), { size: 2, isNew: true });
    await counter.remove('s', 'b');
    assert.equal(counter.members, 1);
    clock.advanceSeconds(60);
    assert.deepEqual(await counter.add('s', 'b', 60), { size: 1, isNew: true });
    assert.equal(counter.members, 1);
  });

  it('evicts expired sets it is never asked about again, at the next add after they expire', async () => {
    const clock = start();
    const counter = new MemoryDistinctCounter(clock);
    for (let i = 0; i < 1_000; i += 1) await counter.add(`addr-${i}`, 'key', 30);
    assert.equal(counter.sets, 1_000);
    clock.advanceSeconds(61);
    await counter.add('other', 'key', 30);
    assert.deepEqual([counter.sets, counter.members], [1, 1]);
  });

  it('never holds more than its bound of members: a flood of live sets evicts the least recently added to', async () => {
    const clock = start();
    const counter = new MemoryDistinctCounter(clock, 100);
    await counter.add('busy', 'k1', 3600);
    for (let i = 0; i < 10_000; i += 1) {
      await counter.add(`flood-${i}`, 'key', 3600);
      if (i % 50 === 0) await counter.add('busy', 'k1', 3600);
      assert.ok(counter.members <= 100, `holds ${counter.members} members`);
    }
    assert.equal(counter.sets, 100);
    // The set kept in use survived the flood with its count; the oldest flood sets were evicted.
    assert.deepEqual(await counter.add('busy', 'k2', 3600), { size: 2, isNew: true });
    assert.deepEqual(await counter.add('flood-0', 'key', 3600), { size: 1, isNew: true });
  });
});
