import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Supervisor, type SupervisedUnit } from '../../src/scheduling/supervisor.ts';

/** A unit that runs until shut down, or until `fail` ends its run with an error. */
function unit(): SupervisedUnit & { fail(error: Error): void; shutDown: boolean } {
  let end: (error?: Error) => void = () => undefined;
  const ran = new Promise<void>((resolve, reject) => (end = (error) => (error ? reject(error) : resolve())));
  const u = {
    shutDown: false,
    run: () => ran,
    shutdown: () => {
      u.shutDown = true;
      end();
    },
    fail: (error: Error) => end(error),
  };
  return u;
}

async function until(condition: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(5);
  }
}

describe('Supervisor', () => {
  it('creates the unit again after its run fails, and reports it down meanwhile', async () => {
    const units: ReturnType<typeof unit>[] = [];
    const downs: { error: unknown; retryInMs: number }[] = [];
    const ups: number[] = [];
    const supervisor = new Supervisor(
      async () => {
        const u = unit();
        units.push(u);
        return u;
      },
      {
        backoffMs: [50, 100],
        healthyAfterMs: 60_000,
        now: () => Date.now(),
        onUp: (restarts) => ups.push(restarts),
        onDown: (error, retryInMs) => downs.push({ error, retryInMs }),
      },
    );
    supervisor.start();
    await until(() => supervisor.up);
    const fatal = new Error('fatal: engine lost');
    units[0]!.fail(fatal);
    await until(() => !supervisor.up);
    assert.equal(units.length, 1, 'not recreated before the backoff');
    await until(() => supervisor.up);
    assert.equal(units.length, 2);
    assert.deepEqual(downs, [{ error: fatal, retryInMs: 50 }]);
    assert.deepEqual(ups, [0, 1]);
    assert.equal(supervisor.lastError, fatal);
    assert.equal(await supervisor.stop(1_000), true);
    assert.equal(units[1]!.shutDown, true);
  });

  it('retries a unit that cannot be created with a growing backoff, and a run that ends by itself counts as down', async () => {
    let attempts = 0;
    const waits: number[] = [];
    const supervisor = new Supervisor(
      async () => {
        attempts += 1;
        if (attempts <= 3) throw new Error('engine unreachable');
        const u = unit();
        // Ends by itself, without an error and without being asked.
        if (attempts === 4) u.shutdown();
        return u;
      },
      { backoffMs: [10, 20, 40], healthyAfterMs: 60_000, now: () => Date.now(), onUp: () => undefined, onDown: (_e, ms) => waits.push(ms) },
    );
    supervisor.start();
    await until(() => attempts === 5 && supervisor.up);
    assert.deepEqual(waits, [10, 20, 40, 40]);
    assert.equal(await supervisor.stop(1_000), true);
  });

  it('stops during a backoff at once, without creating the unit again', async () => {
    let attempts = 0;
    const supervisor = new Supervisor(
      async () => {
        attempts += 1;
        throw new Error('engine unreachable');
      },
      { backoffMs: [60_000], healthyAfterMs: 60_000, now: () => Date.now(), onUp: () => undefined, onDown: () => undefined },
    );
    supervisor.start();
    await until(() => attempts === 1);
    await delay(20);
    const started = Date.now();
    assert.equal(await supervisor.stop(1_000), true);
    assert.ok(Date.now() - started < 500);
    assert.equal(attempts, 1);
  });
});
