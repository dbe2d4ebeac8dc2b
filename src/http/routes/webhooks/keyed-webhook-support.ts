/**
 * What the API-key webhook routes (/webhooks/…) share. They reuse the dashboard's application
 * service and schemas; the key's owner is asked the same permission table as a session (an
 * organisation's endpoints are its admins'). A key manages the endpoints of its own account
 * and its own mode only: any other id is 404, like one that never was.
 */
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { EndpointView, WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { decidePermission, type PermissionAction } from '../../../domain/access/permissions.ts';
import type { KeyMode } from '../../../domain/api-key/api-key.ts';
import { ApiError } from '../../api-error.ts';
import type { AppEnv } from '../../env.ts';
import type { ErrorCode } from '../../error-codes.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { KEYED_ERRORS } from '../account/keyed-route-support.ts';

export interface KeyedWebhookDeps {
  readonly webhooks: WebhookEndpoints;
  /** The mode of the keys this app serves: a test key manages test-mode endpoints. */
  readonly mode: KeyMode;
}

export const KEYED_WEBHOOK_ERRORS: ErrorCode[] = [...KEYED_ERRORS, 'ORG_ADMIN_REQUIRED'];

/** After the key gate: the key's owner may do `action` on the account's endpoints (standing is the gate's). */
export function webhookPermission(action: PermissionAction): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = principalOf(c);
    const role = principal.organizationId === null ? 'PERSONAL' : principal.role;
    if (!decidePermission(action, { role, standing: 'active' }).allowed) throw new ApiError('ORG_ADMIN_REQUIRED');
    await next();
  };
}

export function accountOf(c: Parameters<typeof principalOf>[0]): string {
  return billingAccountOf(principalOf(c));
}

/** The account's endpoint of the key's mode, or 404. */
export async function ownEndpoint(deps: KeyedWebhookDeps, accountId: string, endpointId: string): Promise<EndpointView> {
  const endpoint = (await deps.webhooks.list(accountId)).find((e) => e.id === endpointId && e.mode === deps.mode);
  if (!endpoint) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  return endpoint;
}
