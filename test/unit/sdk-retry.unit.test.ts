/**
 * The SDK's retry loop and PDF-link helper without IO: the transport is a function the test
 * answers (a fake, since the loop's decisions are what is under test; sdk.int.test.ts runs
 * the same client against the real service over sockets). Also: the SDK's Web Crypto
 * decryption opens what the server's cipher sealed, and refuses what it did not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encryptPdfLink } from '../../src/http/pdf-link-cipher.ts';
import { decryptPdfLink, InvalidPdfLinkError } from '../../sdk/src/pdf-link.ts';
import { retryAfterSeconds } from '../../sdk/src/errors.ts';
import { DEFAULT_RETRY_POLICY, resilientFetch, type RetryEnvironment } from '../../sdk/src/retry.ts';

type Answer = Response | Error;

function scripted(answers: readonly Answer[]): { env: RetryEnvironment; seen: Request[]; slept: number[] } {
  const seen: Request[] = [];
  const slept: number[] = [];
  let next = 0;
  const env: RetryEnvironment = {
    fetch: async (request) => {
      seen.push(request);
      const answer = answers[next++];
      if (answer === undefined) throw new Error('the transport was called more often than scripted');
      if (answer instanceof Error) throw answer;
      return answer;
    },
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0.5,
    now: () => Date.parse('2026-11-27T12:00:00Z'),
    idempotencyKey: (() => {
      let n = 0;
      return () => `key-${++n}`;
    })(),
  };
  return { env, seen, slept };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const post = () =>
  new Request('http://api.test/search/cases', {
    method: 'POST',
    body: '{"query":"appeal"}',
    headers: { 'content-type': 'application/json' },
  });
const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 10_000 };

describe('SDK retry loop', () => {
  it('a POST gets one Idempotency-Key, sent unchanged on every attempt, with the same body', async () => {
    const { env, seen } = scripted([
      new TypeError('socket hang up'),
      json(503, { code: 'WORKFLOW_ENGINE_UNAVAILABLE' }),
      json(200, { ok: true }),
    ]);
    const response = await resilientFetch(policy, env)(post());
    assert.equal(response.status, 200);
    assert.deepEqual(
      seen.map((r) => r.headers.get('idempotency-key')),
      ['key-1', 'key-1', 'key-1'],
    );
    assert.deepEqual(await Promise.all(seen.map((r) => r.text())), Array(3).fill('{"query":"appeal"}'));
  });

  it('keeps a key the caller set, and gives a GET none', async () => {
    const { env, seen } = scripted([json(200, {}), json(200, {})]);
    const fetchWithRetries = resilientFetch(policy, env);
    const own = post();
    own.headers.set('Idempotency-Key', 'mine');
    await fetchWithRetries(own);
    await fetchWithRetries(new Request('http://api.test/me'));
    assert.deepEqual(
      seen.map((r) => r.headers.get('idempotency-key')),
      ['mine', null],
    );
  });

  it('backs off exponentially with jitter, within maxDelayMs', async () => {
    const { env, slept } = scripted([json(500, {}), json(502, {}), json(504, {}), json(200, {})]);
    await resilientFetch(policy, env)(post());
    // random() = 0.5 gives three quarters of each step: 100, 200, 400 ms.
    assert.deepEqual(slept, [75, 150, 300]);
  });

  it('waits exactly the Retry-After of a 429, in seconds or as an HTTP date', async () => {
    const { env, slept } = scripted([
      json(429, { code: 'RATE_LIMITED' }, { 'retry-after': '7' }),
      json(429, { code: 'RATE_LIMITED' }, { 'retry-after': 'Fri, 27 Nov 2026 12:00:03 GMT' }),
      json(200, {}),
    ]);
    assert.equal((await resilientFetch(policy, env)(post())).status, 200);
    assert.deepEqual(slept, [7_000, 3_000]);
  });

  it('hands back a 429 without Retry-After, or with one longer than maxDelayMs (a daily cap)', async () => {
    for (const headers of [{}, { 'retry-after': '3600' }] as Record<string, string>[]) {
      const { env, slept, seen } = scripted([json(429, { code: 'PDF_LIMIT_REACHED' }, headers)]);
      assert.equal((await resilientFetch(policy, env)(post())).status, 429);
      assert.deepEqual([slept, seen.length], [[], 1]);
    }
  });

  it('retries 409 IDEMPOTENCY_IN_PROGRESS, never IDEMPOTENCY_KEY_REUSED or another 4xx', async () => {
    const inProgress = scripted([json(409, { code: 'IDEMPOTENCY_IN_PROGRESS' }), json(200, {})]);
    assert.equal((await resilientFetch(policy, inProgress.env)(post())).status, 200);
    for (const [status, code] of [
      [409, 'IDEMPOTENCY_KEY_REUSED'],
      [402, 'INSUFFICIENT_API_CREDITS'],
      [400, 'VALIDATION_ERROR'],
      [401, 'API_KEY_INVALID'],
    ] as const) {
      const { env, seen } = scripted([json(status, { code })]);
      assert.equal((await resilientFetch(policy, env)(post())).status, status);
      assert.equal(seen.length, 1, code);
    }
  });

  it('gives up after maxRetries: the last answer is returned, a last network failure is thrown', async () => {
    const answers = scripted(Array.from({ length: 4 }, () => json(503, {})));
    assert.equal((await resilientFetch(policy, answers.env)(post())).status, 503);
    assert.equal(answers.seen.length, 4);
    const failures = scripted(Array.from({ length: 4 }, () => new TypeError('connect ECONNREFUSED')));
    await assert.rejects(resilientFetch(policy, failures.env)(post()), { name: 'CourtRecordsConnectionError' });
    assert.equal(failures.seen.length, 4);
  });

  it('does not retry once the caller aborted', async () => {
    const controller = new AbortController();
    const { env, seen } = scripted([new TypeError('aborted'), json(200, {})]);
    const request = new Request('http://api.test/me', { signal: controller.signal });
    controller.abort();
    await assert.rejects(resilientFetch(policy, env)(request), { message: 'aborted' });
    assert.equal(seen.length, 1);
  });

  it('follows a 303 as a GET without the body; gives up after five hops without retrying', async () => {
    const redirect = (status: number, location: string) => new Response(null, { status, headers: { location } });
    const { env, seen } = scripted([redirect(303, '/jobs/1'), json(200, { ok: true })]);
    const own = post();
    own.headers.set('X-API-Key', 'crk_live_k');
    assert.equal((await resilientFetch(policy, env)(own)).status, 200);
    assert.deepEqual(
      seen.map((r) => [r.method, r.url, r.headers.get('x-api-key'), r.redirect]),
      [
        ['POST', 'http://api.test/search/cases', 'crk_live_k', 'manual'],
        ['GET', 'http://api.test/jobs/1', 'crk_live_k', 'manual'],
      ],
    );
    assert.equal(await seen[1]!.text(), '');

    const loop = scripted(Array.from({ length: 6 }, () => redirect(302, '/again')));
    await assert.rejects(resilientFetch(policy, loop.env)(new Request('http://api.test/me')), {
      name: 'CourtRecordsConnectionError',
      reason: 'redirect',
    });
    assert.equal(loop.seen.length, 6);
    assert.deepEqual(loop.slept, []);
  });

  it('reads Retry-After as delta-seconds or an HTTP date, and ignores garbage', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    assert.equal(retryAfterSeconds('120', now), 120);
    assert.equal(retryAfterSeconds('Fri, 27 Nov 2026 12:00:10 GMT', now), 10);
    assert.equal(retryAfterSeconds('Fri, 27 Nov 2026 11:00:00 GMT', now), 0);
    assert.equal(retryAfterSeconds('soon', now), undefined);
    assert.equal(retryAfterSeconds('-5', now), undefined);
    assert.equal(retryAfterSeconds(null, now), undefined);
  });
});

describe('SDK PDF-link decryption', () => {
  const link = { caseId: 'sc-inabs-5861', caseNumber: 'Civil Appeal No. 1 of 2001' };
  const url = 'https://documents.example/judgments/2001/a.pdf?X-Amz-Signature=abc&X-Amz-Expires=3600';

  it('opens what the server’s cipher sealed', async () => {
    assert.equal(await decryptPdfLink({ ...link, pdfUrl: encryptPdfLink(url, link.caseId, link.caseNumber) }), url);
  });

  it('refuses other ids, malformed values and tampered ciphertext', async () => {
    const sealed = encryptPdfLink(url, link.caseId, link.caseNumber);
    const [iv, body] = sealed.split(':') as [string, string];
    const flipped = `${body.slice(0, -1)}${body.endsWith('0') ? '1' : '0'}`;
    for (const pdfUrl of [
      sealed.replace(':', ''),
      `${sealed}:00`,
      `zz${iv.slice(2)}:${body}`,
      `${iv}:${body.slice(0, -2)}`,
      `${iv}:${flipped}`,
      '',
    ])
      await assert.rejects(decryptPdfLink({ ...link, pdfUrl }), InvalidPdfLinkError, pdfUrl);
    await assert.rejects(decryptPdfLink({ ...link, caseNumber: 'Civil Appeal No. 2 of 2001', pdfUrl: sealed }), InvalidPdfLinkError);
  });
});
