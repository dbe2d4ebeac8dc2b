/** What every keyed route shares in its OpenAPI description: the security schemes and the gate's errors. */
import { z } from '@hono/zod-openapi';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../domain/idempotency/idempotency.ts';
import type { ErrorCode } from '../../error-codes.ts';

export const keyedSecurity: Record<string, string[]>[] = [{ ApiKeyHeader: [] }, { BearerKey: [] }];

export const KEYED_ERRORS: ErrorCode[] = [
  'API_KEY_MISSING',
  'API_KEY_INVALID_FORMAT',
  'API_KEY_INVALID',
  'API_KEY_REVOKED',
  'API_KEY_EXPIRED',
  'ORGANIZATION_DEACTIVATED',
  'ACCOUNT_SUSPENDED',
  'BILLING_INACTIVE',
  'ACCOUNT_NOT_FOUND',
  'ACCOUNT_STANDING_UNAVAILABLE',
  'API_ENTERPRISE_ONLY',
  'API_NOT_AVAILABLE_ON_TRIAL',
  'IP_NOT_ALLOWED',
  'TOO_MANY_KEYS_FROM_IP',
  'RATE_LIMITED',
];

/** The optional Idempotency-Key header of the charging POST routes, as documented. */
export const IdempotencyKeyHeader = z.string().regex(IDEMPOTENCY_KEY_PATTERN).optional().openapi({
  description:
    '1 to 128 characters of A-Z a-z 0-9 _ . -, scoped to the API key for 24 hours. Same key and body: the first answer is replayed with Idempotency-Replayed: true and nothing is charged again. Same key, other body: 409 IDEMPOTENCY_KEY_REUSED; first call still running: 409 IDEMPOTENCY_IN_PROGRESS. Errors are never stored.',
  example: 'search-2026-11-26-0001',
});
