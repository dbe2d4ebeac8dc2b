/**
 * The hand-over to test mode never holds a test call long: while test mode is starting the
 * call is answered 502 with Retry-After once the routing's wait has passed, a failed start
 * likewise, and a ready test mode answers the call itself. Live calls never wait for it.
 * And test mode's database is named after the live one, or refused with a reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { testModeDatabaseUrl } from '../../src/composition/test-mode-adapters.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { testModeDispatch, type TestModeRouting } from '../../src/http/middleware/test-mode.ts';

const BASE = '/api/v1/prod';

function appWith(app: TestModeRouting['app'], readyWithinMs: number) {
  const root = new Hono<AppEnv>();
  root.use('*', testModeDispatch(BASE, { app, readyWithinMs, isTestKey: (key) => key.startsWith('crk_test'), linkPrefix: '/test-mode' }));
  root.get(`${BASE}/me`, (c) => c.json({ mode: 'live' }));
  return root;
}

const testCall = { headers: { 'X-API-Key': 'crk_test-abc' } };

describe('test mode dispatch', () => {
  it('answers a test call 502 with Retry-After once the wait has passed while test mode is still starting', async () => {
    const app = appWith(() => new Promise(() => undefined), 50);
    const started = Date.now();
    const res = await app.request(`${BASE}/me`, testCall);
    assert.ok(Date.now() - started < 1_000, 'the call did not wait for the build');
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('retry-after'), '5');
    const body = (await res.json()) as { code: string; message: string };
    assert.equal(body.code, 'UPSTREAM_UNAVAILABLE');
    assert.match(body.message, /starting/);
  });

  it('answers 502 with Retry-After when test mode could not start, and leaves no rejection unhandled', async () => {
    const res = await appWith(() => Promise.reject(new Error('no database')), 1_000).request(`${BASE}/me`, testCall);
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('retry-after'), '5');
    assert.match(((await res.json()) as { message: string }).message, /could not start/);
  });

  it('hands a test call to test mode once it is ready, and a live call to the live routes without waiting', async () => {
    const testApp = new Hono().get(`${BASE}/me`, (c) => c.json({ mode: 'test' }));
    const ready = appWith(() => Promise.resolve(testApp), 50);
    assert.deepEqual(await (await ready.request(`${BASE}/me`, testCall)).json(), { mode: 'test' });
    const starting = appWith(() => new Promise(() => undefined), 60_000);
    const live = await starting.request(`${BASE}/me`, { headers: { 'X-API-Key': 'crk_live-abc' } });
    assert.deepEqual(await live.json(), { mode: 'live' });
  });
});

describe('test mode database name', () => {
  it('is the live database’s name with _test_mode, on the same server', () => {
    assert.equal(
      testModeDatabaseUrl('postgres://app:secret@db.internal:5432/court_records?sslmode=require'),
      'postgres://app:secret@db.internal:5432/court_records_test_mode?sslmode=require',
    );
  });

  it('falls back on the user’s name when the URL names no database, as PostgreSQL does', () => {
    assert.equal(testModeDatabaseUrl('postgres://app:secret@127.0.0.1:5432'), 'postgres://app:secret@127.0.0.1:5432/app_test_mode');
  });

  it('refuses a name it cannot make a plain identifier of, pointing at TEST_MODE_DATABASE_URL', () => {
    assert.throws(() => testModeDatabaseUrl('postgres://app@127.0.0.1/court-records'), /TEST_MODE_DATABASE_URL/);
    assert.throws(() => testModeDatabaseUrl(`postgres://app@127.0.0.1/${'a'.repeat(60)}`), /TEST_MODE_DATABASE_URL/);
  });
});
