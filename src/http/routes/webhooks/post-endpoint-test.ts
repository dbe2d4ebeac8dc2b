/** POST /webhooks/endpoints/{id}/test: "send test event", a sample event delivered to the endpoint. Free. */
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { keyedSecurity } from '../account/keyed-route-support.ts';
import {
  DeliverySchema,
  extraDeliveryError,
  SendTestEventBody,
  TEST_EVENT_DESCRIPTION,
  WebhookIdParams,
} from '../settings/webhook-schemas.ts';
import { accountOf, KEYED_WEBHOOK_ERRORS, ownEndpoint, webhookPermission, type KeyedWebhookDeps } from './keyed-webhook-support.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'sendTestWebhookEventWithKey',
    method: 'post',
    path: '/webhooks/endpoints/{id}/test',
    tags: ['Webhooks'],
    summary: 'Send a test event to a webhook endpoint',
    description: `Price: 0 credits. ${TEST_EVENT_DESCRIPTION}`,
    security: keyedSecurity,
    middleware: [auth, webhookPermission('webhooks.sendTest')] as const,
    request: { params: WebhookIdParams, body: { content: { 'application/json': { schema: SendTestEventBody } }, required: false } },
    responses: {
      202: { description: 'Queued.', content: { 'application/json': { schema: envelope(DeliverySchema) } } },
      ...errorResponses(
        ...KEYED_WEBHOOK_ERRORS,
        ...BODY_ERRORS,
        'WEBHOOK_ENDPOINT_NOT_FOUND',
        'WEBHOOK_ENDPOINT_DISABLED',
        'WEBHOOK_PENDING_LIMIT_REACHED',
      ),
    },
  });

export function registerSendTestEvent(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const { type } = c.req.valid('json');
    const accountId = accountOf(c);
    await ownEndpoint(deps, accountId, id);
    const result = await deps.webhooks.sendTest(accountId, id, type);
    if (!result.ok) throw extraDeliveryError(result.error);
    return c.json({ success: true as const, data: result.value }, 202);
  });
}
