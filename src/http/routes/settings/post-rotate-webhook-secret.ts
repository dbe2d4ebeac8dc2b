/**
 * POST /api/settings/webhooks/:id/rotate-secret: a new signing secret, shown this once.
 * For 24 hours deliveries carry a signature by the old secret beside the new one, so a
 * receiver can switch without refusing a delivery.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { WebhookIdParams, WebhookSecretSchema, webhookError } from './webhook-schemas.ts';

const Rotated = z
  .object({ id: z.string().openapi({ example: 'whe_3f1c2a9e-8b7d-4e6f-a5c4-1d2e3f4a5b6c' }), secret: WebhookSecretSchema })
  .openapi('RotateWebhookSecretResult');

const route = createRoute({
  operationId: 'rotateWebhookSecret',
  method: 'post',
  path: '/api/settings/webhooks/{id}/rotate-secret',
  tags: ['Dashboard'],
  summary: 'Rotate a webhook endpoint secret',
  security: WRITE_SECURITY,
  request: { params: WebhookIdParams },
  responses: {
    200: { description: 'Rotated; secret is shown this once.', content: { 'application/json': { schema: envelope(Rotated) } } },
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

export function registerRotateWebhookSecret(app: App, deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards }): void {
  app.openapi({ ...route, middleware: deps.guards.write('webhooks.rotateSecret') }, async (c) => {
    const { id } = c.req.valid('param');
    const result = await deps.webhooks.rotateSecret(billingAccountOf(c.get('session').user), id, c.get('requestId'));
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 200);
  });
}
