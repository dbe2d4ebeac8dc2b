/**
 * How long one attempt of each operation may take before the SDK gives up on it (and
 * retries with the same Idempotency-Key). Each is longer than the longest the server may
 * legitimately take to answer it, so a slow answer is waited for, never abandoned and
 * re-sent into `409 IDEMPOTENCY_IN_PROGRESS`:
 *
 * - consolidated analysis answers when the analysis is stored, within the server's
 *   CONSOLIDATED_DEADLINE_SECONDS (300 s by default), else 408 UPSTREAM_TIMEOUT: 360 s;
 * - every other call is bounded far below a minute on the server (statements 5 s, a live
 *   court-portal fetch 15 s and it runs in the background, the shutdown drain 25 s): 60 s.
 *
 * A deployment that raises CONSOLIDATED_DEADLINE_SECONDS (at most 900) should pass a
 * longer `timeout` to that call.
 */
import type { OPERATIONS } from './generated/operations.ts';

export const DEFAULT_TIMEOUT_MS = 60_000;

export const OPERATION_TIMEOUTS_MS: Readonly<Partial<Record<keyof typeof OPERATIONS, number>>> = {
  analyzeCaseConsolidated: 360_000,
};
