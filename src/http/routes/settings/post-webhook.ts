/**
 * POST /api/settings/webhooks: registers an endpoint for the account's events. The
 * signing secret is in this response only. https only (http and local addresses only
 * where the operator allows them, for development); at most 10 endpoints per account.
 * `mode: "test"` registers one that hears the account's test-mode events instead.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { WRITE_SECURITY, SESSION_STANDING_ERRORS } from './schemas.ts';
import type { SessionGuards } from './session-support.ts';
import { WebhookEndpointSchema, WebhookEventTypeSchema, WebhookModeSchema, WebhookSecretSchema, webhookError } from './webhook-schemas.ts';

const CreateWebhookBody = z
  .object({
    url: z.string().min(1).max(2048).openapi({ example: 'https://hooks.example.in/court-records' }),
    eventTypes: z
      .array(WebhookEventTypeSchema)
      .min(1)
      .max(10)
      .openapi({ example: ['analysis.stored', 'analysis.failed'] }),
    mode: WebhookModeSchema.optional(),
  })
  .openapi('CreateWebhookEndpointRequest');

const CreatedWebhook = WebhookEndpointSchema.extend({ secret: WebhookSecretSchema }).openapi('CreatedWebhookEndpoint');

const route = createRoute({
  operationId: 'createWebhookEndpoint',
  method: 'post',
  path: '/api/settings/webhooks',
  tags: ['Dashboard'],
  summary: 'Register a webhook endpoint',
  security: WRITE_SECURITY,
  request: { body: { content: { 'application/json': { schema: CreateWebhookBody } }, required: true } },
  responses: {
    201: { description: 'Registered; secret is shown this once.', content: { 'application/json': { schema: envelope(CreatedWebhook) } } },
    ...errorResponses(
      ...BODY_ERRORS,
      'SESSION_REQUIRED',
      ...SESSION_STANDING_ERRORS,
      'ORG_ADMIN_REQUIRED',
      'CSRF_TOKEN_INVALID',
      'WEBHOOK_ENDPOINT_LIMIT_REACHED',
    ),
  },
});

export function registerCreateWebhook(app: App, deps: { readonly webhooks: WebhookEndpoints; readonly guards: SessionGuards }): void {
  app.openapi({ ...route, middleware: deps.guards.write('webhooks.create') }, async (c) => {
    const { url, eventTypes, mode } = c.req.valid('json');
    const result = await deps.webhooks.register(
      billingAccountOf(c.get('session').user),
      { url, eventTypes, mode: mode ?? 'live' },
      c.get('requestId'),
    );
    if (!result.ok) throw webhookError(result.error);
    return c.json({ success: true as const, data: result.value }, 201);
  });
}
