/**
 * The pure parts of the litigation check's application layer: which names are searched,
 * how the retrievals' hits are merged, the keyed name hash the distinct-names caps count,
 * what a failure may say, and the allowances over the in-process stores (the rate window,
 * the monthly checks taken all or nothing, the day and minute caps on distinct names,
 * hand-backs, and failing closed when a store cannot answer).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { failureSummary, scrubbed } from '../../src/application/screening/failure-summary.ts';
import {
  AllowanceStoreUnavailable,
  distinctNamesPerMinute,
  MAX_NAMES_PER_CHECK,
  ScreeningAllowances,
} from '../../src/application/screening/screening-allowances.ts';
import { comparableName, screenedNameKey } from '../../src/application/screening/screened-name-key.ts';
import { namesToSearch, unionOfHits } from '../../src/application/screening/screening-service.ts';
import type { ScreeningQuery } from '../../src/domain/screening/features.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';

const query = (name: string, aliases: string[] = [], entityType: 'person' | 'company' = 'person'): ScreeningQuery => ({
  name,
  aliases,
  entityType,
  identifiers: {},
  knownPersons: [],
});

class Clockwork implements Clock {
  constructor(private t: number) {}
  now(): Date {
    return new Date(this.t);
  }
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
}

describe('names to search', () => {
  it('searches the name first, then each alias that is not the same name written again', () => {
    assert.deepEqual(namesToSearch(query('Shri Mohd. Iqbal Khan', ['Iqbal Khan Mohammad', 'Guddu', 'MOHAMMED IQBAL KHAN'])), [
      'Shri Mohd. Iqbal Khan',
      'Guddu',
    ]);
  });

  it('leaves out a name with nothing left once honorifics and company forms go', () => {
    assert.deepEqual(namesToSearch(query('M/s. Pvt. Ltd.', ['Acme Traders'], 'company')), ['Acme Traders']);
  });
});

describe('comparable names and their keyed hash', () => {
  it('spellings, honorifics and word order of one name compare equal; other names do not', () => {
    assert.equal(comparableName('Shri Mohd. Iqbal', 'person'), comparableName('Iqbal Mohammad', 'person'));
    assert.notEqual(comparableName('Mohd. Iqbal', 'person'), comparableName('Mohd. Ishaq', 'person'));
  });

  it('hashes under the secret: same name same key, another secret another key, and no trace of the name', async () => {
    const key = screenedNameKey('a-server-secret-of-some-length');
    const a = await key('Shri Mohd. Iqbal', 'person');
    assert.equal(a, await key('IQBAL MOHAMMAD', 'person'));
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.notEqual(a, await screenedNameKey('another-server-secret')('Shri Mohd. Iqbal', 'person'));
    assert.notEqual(a, await key('Mohd. Ishaq', 'person'));
    assert.ok(!a.toUpperCase().includes('IQBAL'));
  });

  it('refuses an empty secret', () => {
    assert.throws(() => screenedNameKey(''));
  });
});

describe('merging the retrievals of several names', () => {
  it('keeps the best score per case, best first, ties by case id', () => {
    const merged = unionOfHits([
      {
        hits: [
          { caseId: 'b', score: 0.5 },
          { caseId: 'a', score: 0.9 },
        ],
        complete: true,
        withheld: false,
      },
      {
        hits: [
          { caseId: 'b', score: 0.95 },
          { caseId: 'c', score: 0.5 },
        ],
        complete: true,
        withheld: false,
      },
    ]);
    assert.deepEqual(merged, [
      { caseId: 'b', score: 0.95 },
      { caseId: 'a', score: 0.9 },
      { caseId: 'c', score: 0.5 },
    ]);
  });
});

describe('what a failure may say', () => {
  it('names the class and code, never the message (which can quote a screened name)', () => {
    const pg = Object.assign(new Error('invalid input syntax: "Ozymandias Brightwater"'), { code: '22P02' });
    assert.equal(failureSummary(pg), 'Error (22P02)');
    assert.ok(!scrubbed('retrieval', pg).message.includes('Ozymandias'));
    assert.equal(failureSummary('a string'), 'string');
  });
});

describe('screening allowances', () => {
  const setup = () => {
    const clock = new Clockwork(Date.parse('2026-11-20T10:00:00Z'));
    const counter = new MemoryDistinctCounter(clock);
    return { clock, counter, allowances: new ScreeningAllowances({ limiter: new MemoryRateLimiter(clock), counter, clock }) };
  };

  it('per-minute distinct names: a tenth of the day, never below one full check, never above the day', () => {
    assert.equal(distinctNamesPerMinute(null), null);
    assert.equal(distinctNamesPerMinute(25), MAX_NAMES_PER_CHECK);
    assert.equal(distinctNamesPerMinute(500), 50);
    assert.equal(distinctNamesPerMinute(3), 3);
  });

  it('a per-endpoint window per key: the single and batch endpoints count apart', async () => {
    const { allowances } = setup();
    assert.equal((await allowances.hitRate('k1', 'screen', 2)).allowed, true);
    assert.equal((await allowances.hitRate('k1', 'screen', 2)).allowed, true);
    assert.equal((await allowances.hitRate('k1', 'screen', 2)).allowed, false);
    assert.equal((await allowances.hitRate('k1', 'batch', 2)).allowed, true);
    assert.equal((await allowances.hitRate('k2', 'screen', 2)).allowed, true);
  });

  it('monthly checks are taken all or nothing, handed back in part or whole, and reset with the month', async () => {
    const { allowances, clock } = setup();
    const first = await allowances.admitChecks('acct', 'r1', 8, 10);
    assert.ok(first.admitted);
    const short = await allowances.admitChecks('acct', 'r2', 3, 10);
    assert.deepEqual(short, { admitted: false, remaining: 2 });
    await first.undo(2);
    assert.ok((await allowances.admitChecks('acct', 'r3', 4, 10)).admitted);
    assert.equal((await allowances.admitChecks('acct', 'r4', 1, 10)).admitted, false);
    assert.ok((await allowances.admitChecks('acct', 'r5', 50, null)).admitted);
    clock.advance(11 * 86_400);
    assert.ok((await allowances.admitChecks('acct', 'r6', 10, 10)).admitted);
  });

  it('distinct names per day: new names count, names seen today are free, an item past the cap is turned away whole', async () => {
    const { allowances } = setup();
    const first = await allowances.admitNames('acct', [['a', 'b'], ['c']], 3);
    assert.deepEqual(first.admitted, [true, true]);
    const next = await allowances.admitNames('acct', [['a', 'd'], ['b'], ['e']], 3);
    assert.deepEqual([next.admitted, next.refusedBy], [[false, true, false], 'day']);
    assert.equal(next.retryAfterSeconds, 14 * 3600);
    await first.undoItem(1);
    assert.deepEqual((await allowances.admitNames('acct', [['e']], 3)).admitted, [true]);
    assert.deepEqual((await allowances.admitNames('acct', [['x']], null)).admitted, [true]);
  });

  it('distinct names per minute: refused until the next minute, then admitted', async () => {
    const { allowances, clock } = setup();
    const keys = Array.from({ length: 10 }, (_, i) => `n${String(i)}`);
    assert.deepEqual((await allowances.admitNames('acct', [keys.slice(0, 8), keys.slice(8)], 100)).admitted, [true, true]);
    clock.advance(20);
    const refused = await allowances.admitNames('acct', [['late']], 100);
    assert.deepEqual([refused.admitted, refused.refusedBy, refused.retryAfterSeconds], [[false], 'minute', 40]);
    assert.deepEqual((await allowances.admitNames('acct', [['n3']], 100)).admitted, [true]);
    clock.advance(40);
    assert.deepEqual((await allowances.admitNames('acct', [['late']], 100)).admitted, [true]);
  });

  it('fails closed: a store that cannot answer is AllowanceStoreUnavailable', async () => {
    const clock = new Clockwork(0);
    const down: DistinctCounter = { add: () => Promise.reject(new Error('down')), remove: () => Promise.reject(new Error('down')) };
    const allowances = new ScreeningAllowances({ limiter: new MemoryRateLimiter(clock), counter: down, clock });
    await assert.rejects(allowances.admitNames('acct', [['a']], 3), AllowanceStoreUnavailable);
    await assert.rejects(allowances.admitChecks('acct', 'r', 1, 10), AllowanceStoreUnavailable);
    const limiterDown = new ScreeningAllowances({
      limiter: { hit: () => Promise.reject(new Error('down')) },
      counter: new MemoryDistinctCounter(clock),
      clock,
    });
    await assert.rejects(limiterDown.hitRate('k', 'screen', 2), AllowanceStoreUnavailable);
  });
});
