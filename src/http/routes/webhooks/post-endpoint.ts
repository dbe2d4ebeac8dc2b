/**
 * POST /webhooks/endpoints: registers an endpoint with an API key, as the dashboard does; the
 * secret is in this answer only. It hears the key's mode's events. Free.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import { WebhookEndpointSchema, WebhookEventTypeSchema, WebhookSecretSchema, webhookError } from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const Body = z
  .object({
    url: z.string().min(1).max(2048).openapi({ example: 'https://hooks.example.in/court-records' }),
    eventTypes: z
      .array(WebhookEventTypeSchema)
      .min(1)
      .max(10)
      .openapi({ example: ['analysis.stored', 'timeline.completed'] }),
  })
  .openapi('CreateWebhookEndpointWithKeyRequest');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'createWebhookEndpointWithKey',
    method: 'post',
    path: '/webhooks/endpoints',
    tags: ['Webhooks'],
    summary: 'Register a webhook endpoint',
    description:
      'Price: 0 credits. https to a public address only (the service refuses loopback, private and link-local addresses, here and again at every delivery). A live key registers a live endpoint, a test key a test-mode one. At most 10 endpoints per account.',
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.create')] as const,
    request: { body: { content: { 'application/json': { schema: Body } }, required: true } },
    responses: {
      201: {
        description: 'Registered; secret is shown this once.',
        content: { 'application/json': { schema: envelope(WebhookEndpointSchema.extend({ secret: WebhookSecretSchema })) } },
      },
      ...errorResponses(...KEYED_WEBHOOK_ERRORS, ...BODY_ERRORS, 'WEBHOOK_ENDPOINT_LIMIT_REACHED'),
    },
  });

export function registerCreateEndpoint(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { url, eventTypes } = c.req.valid('json');
    const result = await deps.webhooks.register(accountOf(c), { url, eventTypes, mode: deps.mode }, c.get('requestId'));
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 201);
  });
}
