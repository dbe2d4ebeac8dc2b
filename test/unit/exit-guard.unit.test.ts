/**
 * The bound a stop signal gives the process: requests drain for SHUTDOWN_DRAIN_SECONDS,
 * closing ends 10 s later, and the process is gone 2 s after that.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOSE_BOUND_MS, EXIT_GRACE_MS, stopDeadlines } from '../../src/composition/exit-guard.ts';

describe('stop deadlines', () => {
  it('closes by the drain plus the close bound, and is gone by that plus the exit grace', () => {
    assert.deepEqual(stopDeadlines(25), { closedByMs: 35_000, goneByMs: 37_000 });
    assert.deepEqual(stopDeadlines(1), { closedByMs: 1_000 + CLOSE_BOUND_MS, goneByMs: 1_000 + CLOSE_BOUND_MS + EXIT_GRACE_MS });
  });

  it('with nothing to drain (a worker apart), still bounds closing and the exit', () => {
    assert.deepEqual(stopDeadlines(0), { closedByMs: CLOSE_BOUND_MS, goneByMs: CLOSE_BOUND_MS + EXIT_GRACE_MS });
  });
});
