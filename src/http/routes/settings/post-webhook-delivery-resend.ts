/** POST /api/settings/webhooks/deliveries/:id/resend: a delivery's event queued to its endpoint again, from the dashboard session. */
import { createRoute } from '@hono/zod-openapi';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { SESSION_STANDING_ERRORS, WRITE_SECURITY } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { DeliveryIdParams, DeliverySchema, RESEND_DESCRIPTION, extraDeliveryError } from './webhook-schemas.ts';

const route = createRoute({
  operationId: 'resendWebhookDelivery',
  method: 'post',
  path: '/api/settings/webhooks/deliveries/{id}/resend',
  tags: ['Dashboard'],
  summary: 'Resend a webhook delivery',
  description: RESEND_DESCRIPTION,
  security: WRITE_SECURITY,
  request: { params: DeliveryIdParams },
  responses: {
    202: { description: 'Queued as a new delivery.', content: { 'application/json': { schema: envelope(DeliverySchema) } } },
    ...errorResponses(
      'VALIDATION_ERROR',
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'ORG_ADMIN_REQUIRED',
      'CSRF_TOKEN_INVALID',
      'WEBHOOK_DELIVERY_NOT_FOUND',
      'WEBHOOK_ENDPOINT_DISABLED',
      'WEBHOOK_PENDING_LIMIT_REACHED',
    ),
  },
});

export function registerResendWebhookDelivery(
  app: App,
  deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards },
): void {
  app.openapi({ ...route, middleware: deps.guards.write('webhooks.resend') }, async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.webhooks.resend(billingAccountOf(c.get('session').user), id);
    if (!result.ok) throw extraDeliveryError(result.error);
    return c.json({ success: true as const, data: result.value }, 202);
  });
}
