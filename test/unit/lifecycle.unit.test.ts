/**
 * The one list a process starts and stops its background work and closes what it holds
 * by: tasks start in order and stop in reverse, resources close last-opened first after
 * every task, a failing or hanging step does not keep the rest from closing, and the bound
 * holds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lifecycle, type BackgroundTask } from '../../src/composition/lifecycle.ts';

function recorder() {
  const log: string[] = [];
  const failures: string[] = [];
  const life = lifecycle({
    onFailure: (name, error) => failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`),
  });
  const task = (name: string, stop: () => Promise<void> = async () => undefined): BackgroundTask => ({
    name,
    start: () => log.push(`start ${name}`),
    stop: async () => {
      log.push(`stop ${name}`);
      await stop();
    },
  });
  return { log, failures, life, task };
}

describe('lifecycle', () => {
  it('starts tasks in order, stops them in reverse, then closes resources last-opened first', async () => {
    const { log, failures, life, task } = recorder();
    life.resource('database', () => void log.push('close database'));
    life.task(task('projector'));
    life.resource('engine', async () => void log.push('close engine'));
    life.task(task('dispatcher'));
    life.task(task('left out'), false);
    life.start();
    assert.equal(await life.stop(1_000), true);
    assert.deepEqual(log, ['start projector', 'start dispatcher', 'stop dispatcher', 'stop projector', 'close engine', 'close database']);
    assert.deepEqual(failures, []);
  });

  it('closes resources but stops no task when it was never started', async () => {
    const { log, life, task } = recorder();
    life.resource('database', () => void log.push('close database'));
    life.task(task('projector'));
    assert.equal(await life.stop(1_000), true);
    assert.deepEqual(log, ['close database']);
  });

  it('reports a step that fails and still closes the rest', async () => {
    const { log, failures, life, task } = recorder();
    life.resource('database', () => void log.push('close database'));
    life.task(task('projector', () => Promise.reject(new Error('connection reset'))));
    life.start();
    assert.equal(await life.stop(1_000), true);
    assert.deepEqual(log, ['start projector', 'stop projector', 'close database']);
    assert.deepEqual(failures, ['projector: connection reset']);
  });

  it('gives up on a step that hangs once the bound is spent, closes what follows, and says so', async () => {
    const { log, failures, life, task } = recorder();
    life.resource('database', () => void log.push('close database'));
    life.task(task('frozen engine worker', () => new Promise<void>(() => undefined)));
    life.start();
    const started = Date.now();
    assert.equal(await life.stop(200), false);
    const took = Date.now() - started;
    assert.ok(took >= 190 && took < 2_000, `took ${String(took)} ms`);
    assert.deepEqual(log, ['start frozen engine worker', 'stop frozen engine worker', 'close database']);
    assert.deepEqual(failures, ['frozen engine worker: frozen engine worker did not stop within the bound']);
  });

  it('names the steps begun and not ended, for a stop past its bound to say what did not close', async () => {
    const { life, task } = recorder();
    let thaw: () => void = () => undefined;
    life.resource('database', () => undefined);
    life.resource('analytics store', () => new Promise<void>((resolve) => (thaw = resolve)));
    life.task(task('frozen engine worker', () => new Promise<void>(() => undefined)));
    assert.deepEqual(life.unfinished(), []);
    life.start();
    const stopping = life.stop(100);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(life.unfinished(), ['frozen engine worker']);
    assert.equal(await stopping, false);
    assert.deepEqual(life.unfinished(), ['frozen engine worker', 'analytics store']);
    thaw();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(life.unfinished(), ['frozen engine worker']);
  });

  it('waits as long as a step takes when there is no bound', async () => {
    const { log, life } = recorder();
    life.resource('slow', () => new Promise<void>((resolve) => setTimeout(() => resolve(void log.push('closed slow')), 50)));
    assert.equal(await life.stop(Number.POSITIVE_INFINITY), true);
    assert.deepEqual(log, ['closed slow']);
  });
});
