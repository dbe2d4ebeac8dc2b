/** What every keyed route shares in its OpenAPI description: the security schemes and the gate's errors. */
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
