/**
 * The deep health fold, with fake probes (the probe port is the boundary; the real probes
 * run in the integration tests): hard failures decide, each probe is bounded by its timeout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepHealth } from '../../src/application/health/deep-health.ts';
import type { DependencyName, DependencyProbe } from '../../src/ports/health.ts';

const fakeProbe = (name: DependencyName, hard: boolean, behaviour: 'ok' | 'fail' | 'hang'): DependencyProbe => ({
  name,
  hard,
  backend: 'fake',
  check: (signal) =>
    behaviour === 'ok'
      ? Promise.resolve()
      : behaviour === 'fail'
        ? Promise.reject(new Error('connection refused to 10.0.0.5: select * from secrets'))
        : new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
});

const all = (over: Partial<Record<DependencyName, ['ok' | 'fail' | 'hang']>>) =>
  (['documentDatabase', 'searchIndex', 'vectorIndex', 'cache', 'identityService'] as const).map((n) =>
    fakeProbe(n, n === 'documentDatabase' || n === 'searchIndex', over[n]?.[0] ?? 'ok'),
  );

describe('deep health', () => {
  const options = { timeoutMs: 100, onFailure: () => undefined };

  it('is healthy when everything answers', async () => {
    const result = await deepHealth(all({}), options);
    assert.equal(result.status, 'healthy');
    assert.ok(Object.values(result.checks).every((c) => c.ok));
  });

  it('is unhealthy when a hard dependency fails, and never leaks its message', async () => {
    const result = await deepHealth(all({ searchIndex: ['fail'] }), options);
    assert.equal(result.status, 'unhealthy');
    assert.deepEqual(result.checks.searchIndex.error, 'unavailable');
    assert.doesNotMatch(JSON.stringify(result), /10\.0\.0\.5|secrets/);
  });

  it('is only degraded when soft dependencies fail', async () => {
    const result = await deepHealth(all({ vectorIndex: ['fail'], cache: ['fail'], identityService: ['hang'] }), options);
    assert.equal(result.status, 'degraded');
    assert.equal(result.checks.identityService.error, 'timeout');
  });

  it('bounds a hanging hard dependency by the timeout', async () => {
    const started = performance.now();
    const result = await deepHealth(all({ documentDatabase: ['hang'] }), options);
    assert.ok(performance.now() - started < 1000);
    assert.equal(result.status, 'unhealthy');
    assert.equal(result.checks.documentDatabase.error, 'timeout');
  });
});
