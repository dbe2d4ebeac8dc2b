/** GET /api/settings/webhooks/:id/deliveries: the endpoint's latest deliveries (newest first) with their attempts. */
import { createRoute, z } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { DELIVERY_OUTCOMES } from '../../../domain/webhook/delivery-outcome.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { ApiError } from '../../api-error.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { READ_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { WebhookEventTypeSchema, WebhookIdParams } from './webhook-schemas.ts';

const DeliveriesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'How many, newest first.', example: 20 }),
});

const Delivery = z
  .object({
    id: z.string().openapi({ description: 'The webhook-id header of every attempt.', example: 'msg_2Yh9c0QpX1vN4kLm8sT3aB6dF7gH0jK5' }),
    eventType: WebhookEventTypeSchema,
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled', 'dropped']).openapi({
      description:
        'cancelled: its endpoint was deleted or disabled first. dropped: never attempted, because the account already had the maximum of pending deliveries (1000 by default) when the event happened.',
    }),
    attempts: z.number().int().openapi({ example: 1 }),
    lastOutcome: z.enum(DELIVERY_OUTCOMES).nullable().openapi({
      description:
        'How the last attempt ended; null before the first. delivered: a 2xx answer. no_answer: no HTTP answer (the connection failed, timed out, or the answer was too large). http_3xx, http_4xx, http_5xx: the receiver answered with a status of that class (redirects are not followed). address_refused: the URL is, or its name resolves to, an address deliveries may not reach (loopback, private, link-local and other non-public ranges); not retried.',
      example: 'delivered',
    }),
    createdAt: z.string().openapi({ example: '2025-01-15T10:30:00.000Z' }),
    lastAttemptAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .openapi('WebhookDelivery');

const route = createRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/api/settings/webhooks/{id}/deliveries',
  tags: ['Dashboard'],
  summary: 'List recent deliveries of a webhook endpoint',
  security: READ_SECURITY,
  request: { params: WebhookIdParams, query: DeliveriesQuery },
  responses: {
    200: { description: 'Newest first.', content: { 'application/json': { schema: envelope(z.array(Delivery)) } } },
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
