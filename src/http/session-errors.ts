/**
 * The session service's refusals mapped once to the error table, for the JSON settings
 * routes and the dashboard pages alike: standing refusals reuse the spec's standing codes
 * (ACCOUNT_SUSPENDED, ORGANIZATION_DEACTIVATED, BILLING_INACTIVE), a role refusal is
 * ORG_ADMIN_REQUIRED, and a throttled login says how long to wait in Retry-After.
 */
import type { LoginError, SessionRefusal } from '../application/sessions/session-service.ts';
import type { PermissionRefusal } from '../domain/access/permissions.ts';
import { assertNever } from '../domain/decider.ts';
import { ApiError } from './api-error.ts';

const STANDING_MESSAGE = {
  AccountSuspended: 'The account is suspended: its dashboard sessions have ended and it may not manage keys or webhooks.',
  OrganizationDeactivated: 'The organisation is deactivated: its members’ dashboard sessions have ended.',
  BillingInactive: 'Billing for this account is inactive: keys and webhook secrets cannot be created or revealed until it is settled.',
} as const;

export function permissionError(reason: PermissionRefusal): ApiError {
  switch (reason) {
    case 'AccountSuspended':
      return new ApiError('ACCOUNT_SUSPENDED', { message: STANDING_MESSAGE.AccountSuspended });
    case 'OrganizationDeactivated':
      return new ApiError('ORGANIZATION_DEACTIVATED', { message: STANDING_MESSAGE.OrganizationDeactivated });
    case 'BillingInactive':
      return new ApiError('BILLING_INACTIVE', { message: STANDING_MESSAGE.BillingInactive });
    case 'OrgAdminRequired':
      return new ApiError('ORG_ADMIN_REQUIRED');
    default:
      return assertNever(reason);
  }
}

export function sessionError(refusal: SessionRefusal): ApiError {
  return refusal.tag === 'NoSession' ? new ApiError('SESSION_REQUIRED') : permissionError(refusal.reason);
}

/** How long a refused login should wait before it is tried again, when the hash slots are full. */
const BUSY_RETRY_SECONDS = 1;

export function loginError(error: LoginError): ApiError {
  switch (error.tag) {
    case 'InvalidCredentials':
      return new ApiError('INVALID_CREDENTIALS');
    case 'NotPermitted':
      return permissionError(error.reason);
    case 'Busy':
      return new ApiError('LOGIN_BUSY', { headers: { 'Retry-After': String(BUSY_RETRY_SECONDS) } });
    case 'Throttled': {
      const { refusal } = error;
      const seconds = String(refusal.retryAfterSeconds);
      const who = refusal.scope === 'account' ? 'this account' : 'this address';
      const message = refusal.locked
        ? `Logins for ${who} are locked after too many failures; retry after ${seconds} seconds.`
        : `Too many failed logins for ${who}; retry after ${seconds} seconds.`;
      return new ApiError(refusal.locked ? 'LOGIN_LOCKED' : 'LOGIN_THROTTLED', {
        message,
        headers: { 'Retry-After': seconds },
        extra: { retryAfter: refusal.retryAfterSeconds, retryAt: refusal.until.toISOString() },
      });
    }
    default:
      return assertNever(error);
  }
}
