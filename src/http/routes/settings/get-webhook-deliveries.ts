/** GET /api/settings/webhooks/:id/deliveries: the endpoint's latest deliveries (newest first) with their attempts. */
import { createRoute, z } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { ApiError } from '../../api-error.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { READ_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { DeliveriesQuery, DeliverySchema, WebhookIdParams } from './webhook-schemas.ts';

const route = createRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/api/settings/webhooks/{id}/deliveries',
  tags: ['Dashboard'],
  summary: 'List recent deliveries of a webhook endpoint',
  security: READ_SECURITY,
  request: { params: WebhookIdParams, query: DeliveriesQuery },
  responses: {
    200: { description: 'Newest first.', content: { 'application/json': { schema: envelope(z.array(DeliverySchema)) } } },
    ...errorResponses(
      'VALIDATION_ERROR',
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'ORG_ADMIN_REQUIRED',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    ),
  },
});

export function registerListWebhookDeliveries(
  app: App,
  deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards },
): void {
  app.openapi({ ...route, middleware: deps.guards.read('webhooks.deliveries') }, async (c) => {
    const { id } = c.req.valid('param');
    const { limit } = c.req.valid('query');
    const data = await deps.webhooks.deliveries(billingAccountOf(c.get('session').user), id, limit);
    if (data === null) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    return c.json({ success: true as const, data }, 200);
  });
}
