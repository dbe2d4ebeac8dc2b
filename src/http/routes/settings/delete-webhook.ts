/**
 * DELETE /api/settings/webhooks/:id: removes the endpoint. Deliveries still pending for
 * it are cancelled (an attempt in flight may still land); its delivery history stays.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { WebhookIdParams, webhookError } from './webhook-schemas.ts';

const Deleted = z
  .object({ id: z.string().openapi({ example: 'whe_3f1c2a9e-8b7d-4e6f-a5c4-1d2e3f4a5b6c' }), deleted: z.literal(true) })
  .openapi('DeleteWebhookEndpointResult');

const route = createRoute({
  operationId: 'deleteWebhookEndpoint',
  method: 'delete',
  path: '/api/settings/webhooks/{id}',
  tags: ['Dashboard'],
  summary: 'Delete a webhook endpoint',
  security: WRITE_SECURITY,
  request: { params: WebhookIdParams },
  responses: {
    200: { description: 'Deleted.', content: { 'application/json': { schema: envelope(Deleted) } } },
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

export function registerDeleteWebhook(app: App, deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards }): void {
  app.openapi({ ...route, middleware: deps.guards.write('webhooks.remove') }, async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.webhooks.remove(billingAccountOf(c.get('session').user), id, c.get('requestId'));
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: { id, deleted: true as const } }, 200);
  });
}
