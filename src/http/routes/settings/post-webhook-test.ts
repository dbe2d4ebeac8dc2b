/** POST /api/settings/webhooks/:id/test: "send test event" from the dashboard session. */
import { createRoute } from '@hono/zod-openapi';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { SESSION_STANDING_ERRORS, WRITE_SECURITY } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { DeliverySchema, SendTestEventBody, TEST_EVENT_DESCRIPTION, WebhookIdParams, extraDeliveryError } from './webhook-schemas.ts';

const route = createRoute({
  operationId: 'sendTestWebhookEvent',
  method: 'post',
  path: '/api/settings/webhooks/{id}/test',
  tags: ['Dashboard'],
  summary: 'Send a test event to a webhook endpoint',
  description: TEST_EVENT_DESCRIPTION,
  security: WRITE_SECURITY,
  request: { params: WebhookIdParams, body: { content: { 'application/json': { schema: SendTestEventBody } }, required: false } },
  responses: {
    202: { description: 'Queued.', content: { 'application/json': { schema: envelope(DeliverySchema) } } },
    ...errorResponses(
      ...BODY_ERRORS,
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'ORG_ADMIN_REQUIRED',
      'CSRF_TOKEN_INVALID',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
      'WEBHOOK_ENDPOINT_DISABLED',
      'WEBHOOK_PENDING_LIMIT_REACHED',
    ),
  },
});

export function registerSendTestWebhookEvent(
  app: App,
  deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards },
): void {
  app.openapi({ ...route, middleware: deps.guards.write('webhooks.sendTest') }, async (c) => {
    const { id } = c.req.valid('param');
    const { type } = c.req.valid('json');
    const result = await deps.webhooks.sendTest(billingAccountOf(c.get('session').user), id, type);
    if (!result.ok) throw extraDeliveryError(result.error);
    return c.json({ success: true as const, data: result.value }, 202);
  });
}
