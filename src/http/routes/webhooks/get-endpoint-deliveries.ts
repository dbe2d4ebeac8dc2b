/** GET /webhooks/endpoints/{id}/deliveries: the endpoint's latest deliveries, newest first. Free. */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { DeliveriesQuery, DeliverySchema, WebhookIdParams } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, ownEndpoint, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'listWebhookDeliveriesWithKey',
    method: 'get',
    path: '/webhooks/endpoints/{id}/deliveries',
    tags: ['Webhooks'],
    summary: 'List recent deliveries of a webhook endpoint',
    description: 'Price: 0 credits.',
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.deliveries')] as const,
    request: { params: WebhookIdParams, query: DeliveriesQuery },
    responses: {
      200: { description: 'Newest first.', content: { 'application/json': { schema: envelope(z.array(DeliverySchema)) } } },
      ...errorResponses(...KEYED_WEBHOOK_ERRORS, 'VALIDATION_ERROR', 'WEBHOOK_ENDPOINT_NOT_FOUND'),
    },
  });

export function registerListEndpointDeliveries(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const { limit } = c.req.valid('query');
    const accountId = accountOf(c);
    await ownEndpoint(deps, accountId, id);
    const data = await deps.webhooks.deliveries(accountId, id, limit);
    if (data === null) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    return c.json({ success: true as const, data }, 200);
  });
}
