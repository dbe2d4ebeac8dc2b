/** POST /webhooks/deliveries/{id}/resend: the delivery's event queued to its endpoint again. Free. */
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { DeliveryIdParams, DeliverySchema, extraDeliveryError, RESEND_DESCRIPTION } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'resendWebhookDeliveryWithKey',
    method: 'post',
    path: '/webhooks/deliveries/{id}/resend',
    tags: ['Webhooks'],
    summary: 'Resend a webhook delivery',
    description: `Price: 0 credits. ${RESEND_DESCRIPTION}`,
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.resend')] as const,
    request: { params: DeliveryIdParams },
    responses: {
      202: { description: 'Queued as a new delivery.', content: { 'application/json': { schema: envelope(DeliverySchema) } } },
      ...errorResponses(
        ...KEYED_WEBHOOK_ERRORS,
        'VALIDATION_ERROR',
        'WEBHOOK_DELIVERY_NOT_FOUND',
        'WEBHOOK_ENDPOINT_DISABLED',
        'WEBHOOK_PENDING_LIMIT_REACHED',
      ),
    },
  });

export function registerResendDelivery(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.webhooks.resend(accountOf(c), id, deps.mode);
    if (!result.ok) throw extraDeliveryError(result.error);
    return c.json({ success: true as const, data: result.value }, 202);
  });
}
