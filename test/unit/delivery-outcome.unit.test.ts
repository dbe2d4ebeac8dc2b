/** What an account is told about a delivery attempt: a status class, never the status itself. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outcomeOfStatus } from '../../src/domain/webhook/delivery-outcome.ts';

describe('delivery outcomes', () => {
  it('maps an answer to its class', () => {
    const cases: [number, string][] = [
      [200, 'delivered'],
      [204, 'delivered'],
      [299, 'delivered'],
      [301, 'http_3xx'],
      [302, 'http_3xx'],
      [400, 'http_4xx'],
      [401, 'http_4xx'],
      [404, 'http_4xx'],
      [499, 'http_4xx'],
      [500, 'http_5xx'],
      [503, 'http_5xx'],
      [599, 'http_5xx'],
      [600, 'http_5xx'],
      [100, 'http_5xx'],
      [0, 'http_5xx'],
    ];
    for (const [status, outcome] of cases) assert.equal(outcomeOfStatus(status), outcome, String(status));
  });
});
