/**
 * docs/customer-guide.md's table of errors is the service's: every code of the error table
 * appears once with its status, no other code does, and its "SDK retries" column is what
 * the SDK's retry loop does with that answer.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_RETRY_POLICY, resilientFetch } from '../../sdk/src/retry.ts';
import { ERROR_STATUS } from '../../src/http/error-codes.ts';

const guide = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'customer-guide.md'), 'utf8');
const rows = [...guide.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| ([^|]+) \|/gm)].map((m) => ({
  code: m[1]!,
  status: Number(m[2]),
  retries: m[3]!.trim(),
}));

/** How many attempts the SDK makes for an answer of this status and code (Retry-After: 1 s). */
async function attempts(status: number, code: string): Promise<number> {
  let calls = 0;
  const fetchWithRetries = resilientFetch(
    { ...DEFAULT_RETRY_POLICY, maxRetries: 1 },
    {
      fetch: async () => {
        calls += 1;
        return new Response(JSON.stringify({ code }), { status, headers: { 'content-type': 'application/json', 'retry-after': '1' } });
      },
      sleep: async () => undefined,
      random: () => 0,
      now: () => 0,
      idempotencyKey: () => 'k',
    },
  );
  await fetchWithRetries(new Request('http://api.test/search/cases', { method: 'POST', body: '{}' }));
  return calls;
}

describe('the customer guide’s error table', () => {
  it('lists every code of the service once, with its status', () => {
    assert.deepEqual(
      rows.map((r) => [r.code, r.status]),
      Object.entries(ERROR_STATUS),
    );
  });

  it('says what the SDK does with each', async () => {
    for (const row of rows) {
      const expected = row.retries === 'no' ? 1 : 2;
      assert.equal(await attempts(row.status, row.code), expected, `${row.code}: the guide says "${row.retries}"`);
    }
  });
});
