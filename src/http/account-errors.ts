/**
 * The account and case services' tagged errors, mapped once to the error table for every
 * route that calls them (dashboard settings and admin). Only id collisions, which no
 * request can cause, are defects: a plain Error, so the crash guard answers 500 and logs.
 */
import type { AccountError } from '../application/accounts/accounts-service.ts';
import type { CaseRestrictionError } from '../domain/case/restriction.ts';
import { assertNever } from '../domain/decider.ts';
import { quoted } from '../domain/echo.ts';
import { ApiError } from './api-error.ts';
import { permissionError } from './session-errors.ts';

function invalid(field: string, problem: string): ApiError {
  return new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${field}: ${problem}`, details: [`${field}: ${problem}`] });
}

export function accountError(error: AccountError | CaseRestrictionError): Error {
  switch (error.tag) {
    case 'OrganizationNotFound':
      return new ApiError('ORGANIZATION_NOT_FOUND');
    case 'OrganizationDeactivated':
      return new ApiError('ORGANIZATION_DEACTIVATED', { message: 'The organisation is deactivated.' });
    case 'UserNotFound':
      return new ApiError('USER_NOT_FOUND');
    case 'CaseNotFound':
      return new ApiError('CASE_NOT_FOUND');
    case 'EmailTaken':
      return new ApiError('EMAIL_TAKEN');
    case 'EmailNotVerified':
      return new ApiError('EMAIL_NOT_VERIFIED');
    case 'KeyLimitReached':
      return new ApiError('API_KEY_LIMIT_REACHED', { message: `The key count limit of the tier (${error.limit}) has been reached.` });
    case 'KeyNotFound':
      return new ApiError('API_KEY_NOT_FOUND');
    case 'NotPermitted':
      return permissionError(error.reason);
    case 'KeyNotActive':
      return new ApiError('API_KEY_NOT_ACTIVE');
    case 'InvalidCidr':
      return invalid('allowlist', `not an IP address or CIDR range: ${quoted(error.value)}`);
    case 'InvalidEmail':
      return invalid('email', 'not a valid email address');
    case 'InvalidName':
      return invalid('name', 'must be 1 to 200 characters (120 for a key name), not only spaces');
    case 'AdminNeedsOrganization':
      return invalid('role', 'ORG_ADMIN needs organizationId');
    case 'OrganizationExists':
    case 'UserExists':
    case 'KeyExists':
      return new Error(`fresh id collided: ${error.tag}`);
    default:
      return assertNever(error);
  }
}
