/** POST /webhooks/endpoints/{id}/enable: sends to a disabled endpoint again (facts from now on). Free. */
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { WebhookEndpointSchema, WebhookIdParams, webhookError } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, ownEndpoint, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'enableWebhookEndpointWithKey',
    method: 'post',
    path: '/webhooks/endpoints/{id}/enable',
    tags: ['Webhooks'],
    summary: 'Enable a disabled webhook endpoint',
    description: 'Price: 0 credits. Deliveries cancelled while it was disabled are not sent; resend them one by one if needed.',
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.enable')] as const,
    request: { params: WebhookIdParams },
    responses: {
      200: { description: 'Enabled (or already was).', content: { 'application/json': { schema: envelope(WebhookEndpointSchema) } } },
      ...errorResponses(...KEYED_WEBHOOK_ERRORS, 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_NOT_FOUND'),
    },
  });

export function registerEnableEndpoint(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const accountId = accountOf(c);
    await ownEndpoint(deps, accountId, id);
    const result = await deps.webhooks.enable(accountId, id);
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
