/** DELETE /webhooks/endpoints/{id}: removes the endpoint; its pending deliveries are cancelled. Free. */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { WebhookIdParams, webhookError } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, ownEndpoint, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'deleteWebhookEndpointWithKey',
    method: 'delete',
    path: '/webhooks/endpoints/{id}',
    tags: ['Webhooks'],
    summary: 'Delete a webhook endpoint',
    description: 'Price: 0 credits. Its pending deliveries are cancelled; its delivery history stays.',
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.remove')] as const,
    request: { params: WebhookIdParams },
    responses: {
      200: { description: 'Deleted.', content: { 'application/json': { schema: envelope(z.object({ id: z.string() })) } } },
      ...errorResponses(...KEYED_WEBHOOK_ERRORS, 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_NOT_FOUND'),
    },
  });

export function registerDeleteEndpoint(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const accountId = accountOf(c);
    await ownEndpoint(deps, accountId, id);
    const result = await deps.webhooks.remove(accountId, id, c.get('requestId'));
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
