/** POST /webhooks/endpoints/{id}/rotate-secret: a new signing secret, shown this once; the old one signs too for 24 h. Free. */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { WebhookIdParams, WebhookSecretSchema, webhookError } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, ownEndpoint, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'rotateWebhookSecretWithKey',
    method: 'post',
    path: '/webhooks/endpoints/{id}/rotate-secret',
    tags: ['Webhooks'],
    summary: 'Rotate a webhook endpoint secret',
    description: 'Price: 0 credits. For 24 hours deliveries carry a signature by the old secret beside the new one.',
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.rotateSecret')] as const,
    request: { params: WebhookIdParams },
    responses: {
      200: {
        description: 'Rotated; secret is shown this once.',
        content: { 'application/json': { schema: envelope(z.object({ id: z.string(), secret: WebhookSecretSchema })) } },
      },
      ...errorResponses(...KEYED_WEBHOOK_ERRORS, 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_NOT_FOUND'),
    },
  });

export function registerRotateEndpointSecret(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const accountId = accountOf(c);
    await ownEndpoint(deps, accountId, id);
    const result = await deps.webhooks.rotateSecret(accountId, id, c.get('requestId'));
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
