/** GET /api/settings/webhooks: the account's endpoints, oldest first; never a secret. */
import { createRoute, z } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { READ_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { WebhookEndpointSchema } from './webhook-schemas.ts';

const route = createRoute({
  operationId: 'listWebhookEndpoints',
  method: 'get',
  path: '/api/settings/webhooks',
  tags: ['Dashboard'],
  summary: 'List webhook endpoints',
  security: READ_SECURITY,
  responses: {
    200: { description: 'Oldest first.', content: { 'application/json': { schema: envelope(z.array(WebhookEndpointSchema)) } } },
    ...errorResponses('SESSION_REQUIRED', ...SESSION_STANDING_ERRORS, 'ORG_ADMIN_REQUIRED'),
  },
});

export function registerListWebhooks(app: App, deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards }): void {
  app.openapi({ ...route, middleware: deps.guards.read('webhooks.list') }, async (c) => {
    const data = await deps.webhooks.list(billingAccountOf(c.get('session').user));
    return c.json({ success: true as const, data }, 200);
  });
}
