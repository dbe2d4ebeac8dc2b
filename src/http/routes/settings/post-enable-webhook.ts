/**
 * POST /api/settings/webhooks/:id/enable: sends to an endpoint the service disabled after
 * its deliveries kept failing, its run of failures forgotten. Deliveries cancelled while it
 * was disabled are not sent again; events from now on are. An enabled endpoint is unchanged.
 */
import { createRoute } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { WebhookEndpointSchema, WebhookIdParams, webhookError } from './webhook-schemas.ts';

const route = createRoute({
  operationId: 'enableWebhookEndpoint',
  method: 'post',
  path: '/api/settings/webhooks/{id}/enable',
  tags: ['Dashboard'],
  summary: 'Enable a disabled webhook endpoint',
  security: WRITE_SECURITY,
  request: { params: WebhookIdParams },
  responses: {
    200: { description: 'Enabled (disabled is null).', content: { 'application/json': { schema: envelope(WebhookEndpointSchema) } } },
    ...errorResponses(
      'VALIDATION_ERROR',
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'ORG_ADMIN_REQUIRED',
      'CSRF_TOKEN_INVALID',
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    ),
  },
});

export function registerEnableWebhook(app: App, deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards }): void {
  app.openapi({ ...route, middleware: deps.guards.write('webhooks.enable') }, async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.webhooks.enable(billingAccountOf(c.get('session').user), id);
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
