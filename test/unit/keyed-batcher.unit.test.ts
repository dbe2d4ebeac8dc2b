/**
 * The ledger's batcher without a database: what it hands a flush, in what order, how many
 * flushes run at once, and that a key is never in two flushes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedBatcher } from '../../src/application/credits/keyed-batcher.ts';

/** A flush the test finishes by hand; it records each group it was given. */
function manualFlush() {
  const calls: { groups: Map<string, number[]>; finish: (handOff?: ReadonlySet<string>) => void }[] = [];
  const handedOff = new Map<string, (results: string[]) => void>();
  const flush = (groups: ReadonlyMap<string, readonly number[]>) =>
    new Promise<ReadonlyMap<string, string[] | Promise<string[]>>>((resolve) => {
      calls.push({
        groups: new Map([...groups].map(([k, v]) => [k, [...v]])),
        finish: (handOff = new Set()) =>
          resolve(
            new Map(
              [...groups].map(([key, items]) => [
                key,
                handOff.has(key)
                  ? new Promise<string[]>((done) => handedOff.set(key, done))
                  : items.map((item) => `${key}:${String(item)}`),
              ]),
            ),
          ),
      });
    });
  return { calls, handedOff, flush };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('keyed batcher', () => {
  it('flushes the first item at once, then everything that arrived meanwhile as one group across keys', async () => {
    const { calls, flush } = manualFlush();
    const batcher = new KeyedBatcher(flush, { maxItems: 100, maxInFlight: 1 });
    const first = batcher.submit('a', 1);
    const rest = [batcher.submit('b', 2), batcher.submit('a', 3), batcher.submit('c', 4), batcher.submit('b', 5)];
    assert.equal(calls.length, 1);
    assert.deepEqual([...calls[0]!.groups], [['a', [1]]]);
    calls[0]!.finish();
    assert.equal(await first, 'a:1');
    await settle();
    assert.equal(calls.length, 2);
    assert.deepEqual(
      [...calls[1]!.groups],
      [
        ['b', [2, 5]],
        ['a', [3]],
        ['c', [4]],
      ],
    );
    calls[1]!.finish();
    assert.deepEqual(await Promise.all(rest), ['b:2', 'a:3', 'c:4', 'b:5']);
  });

  it('runs up to maxInFlight flushes at once, never with one key in two of them', async () => {
    const { calls, flush } = manualFlush();
    const batcher = new KeyedBatcher(flush, { maxItems: 100, maxInFlight: 2 });
    const answers = [
      batcher.submit('a', 1),
      batcher.submit('a', 2),
      batcher.submit('b', 3),
      batcher.submit('a', 4),
      batcher.submit('c', 5),
    ];
    // a is busy in the first flush: the second starts with b, and a's later items wait.
    assert.equal(calls.length, 2);
    assert.deepEqual([...calls[0]!.groups], [['a', [1]]]);
    assert.deepEqual([...calls[1]!.groups], [['b', [3]]]);
    calls[1]!.finish();
    await settle();
    assert.equal(calls.length, 3);
    assert.deepEqual([...calls[2]!.groups], [['c', [5]]], 'a is still being flushed');
    calls[0]!.finish();
    await settle();
    assert.deepEqual([...calls[3]!.groups], [['a', [2, 4]]]);
    calls[2]!.finish();
    calls[3]!.finish();
    assert.deepEqual(await Promise.all(answers), ['a:1', 'a:2', 'b:3', 'a:4', 'c:5']);
  });

  it('takes at most maxItems into one flush, a key split over two flushes in order', async () => {
    const { calls, flush } = manualFlush();
    const batcher = new KeyedBatcher(flush, { maxItems: 3, maxInFlight: 1 });
    const answers = [1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n === 2 ? 'b' : 'a', n));
    calls[0]!.finish();
    await settle();
    assert.deepEqual(
      [...calls[1]!.groups],
      [
        ['b', [2]],
        ['a', [3, 4]],
      ],
    );
    calls[1]!.finish();
    await settle();
    assert.deepEqual([...calls[2]!.groups], [['a', [5, 6]]]);
    calls[2]!.finish();
    assert.deepEqual(await Promise.all(answers), ['a:1', 'b:2', 'a:3', 'a:4', 'a:5', 'a:6']);
  });

  it('frees the slot of a flush that handed a key on, and keeps that key out of later flushes until it is done', async () => {
    const { calls, handedOff, flush } = manualFlush();
    const batcher = new KeyedBatcher(flush, { maxItems: 100, maxInFlight: 1 });
    const slow = batcher.submit('slow', 1);
    calls[0]!.finish(new Set(['slow']));
    await settle();
    const later = [batcher.submit('slow', 2), batcher.submit('quick', 3)];
    assert.deepEqual([...calls[1]!.groups], [['quick', [3]]]);
    calls[1]!.finish();
    assert.equal(await later[1], 'quick:3');
    handedOff.get('slow')!(['slow:1 after the wait']);
    assert.equal(await slow, 'slow:1 after the wait');
    await settle();
    assert.deepEqual([...calls[2]!.groups], [['slow', [2]]]);
    calls[2]!.finish();
    assert.equal(await later[0], 'slow:2');
  });

  it('fails every item of a failed flush, and goes on with the next', async () => {
    let failNext = true;
    const batcher = new KeyedBatcher<number, number>(
      async (groups) => {
        if (failNext) {
          failNext = false;
          throw new Error('connection lost');
        }
        return new Map([...groups].map(([key, items]) => [key, items.map((n) => n * 10)]));
      },
      { maxItems: 100, maxInFlight: 1 },
    );
    const failed = batcher.submit('a', 1);
    const next = batcher.submit('b', 2);
    await assert.rejects(failed, /connection lost/);
    assert.equal(await next, 20);
  });

  it('fails the items of a key its flush gave no outcome for', async () => {
    const batcher = new KeyedBatcher<number, number>(async () => new Map(), { maxItems: 100, maxInFlight: 1 });
    await assert.rejects(batcher.submit('a', 1), /no outcome for key a/);
  });
});
