/** GET /webhooks/endpoints: the account's webhook endpoints of the key's mode. Free; consumes a rate-limit slot. */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { WebhookEndpointSchema } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'listWebhookEndpointsWithKey',
    method: 'get',
    path: '/webhooks/endpoints',
    tags: ['Webhooks'],
    summary: 'List webhook endpoints',
    description: 'Price: 0 credits. A live key lists live endpoints, a test key test-mode ones.',
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.list')] as const,
    responses: {
      200: { description: 'Oldest first.', content: { 'application/json': { schema: envelope(z.array(WebhookEndpointSchema)) } } },
      ...errorResponses(...KEYED_WEBHOOK_ERRORS),
    },
  });

export function registerListEndpoints(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const data = (await deps.webhooks.list(accountOf(c))).filter((e) => e.mode === deps.mode);
    return c.json({ success: true as const, data }, 200);
  });
}
