/**
 * GET /events/{id}: one event of the account, in the key's mode. Another account's event is
 * 404 like one that never was, so an id reveals nothing. Free; consumes a rate-limit slot.
 */
import { createRoute } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { EventIdParams, EventSchema, type EventRouteDeps } from './event-schemas.ts';

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getEvent',
    method: 'get',
    path: '/events/{id}',
    tags: ['Events'],
    summary: 'Get an event',
    description: 'Price: 0 credits. The same object a webhook delivery of the event carried.',
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { params: EventIdParams },
    responses: {
      200: { description: 'The event.', content: { 'application/json': { schema: envelope(EventSchema) } } },
      ...errorResponses(...KEYED_ERRORS, 'VALIDATION_ERROR', 'EVENT_NOT_FOUND'),
    },
  });

export function registerGetEvent(app: App, auth: MiddlewareHandler<AppEnv>, deps: EventRouteDeps): void {
  app.openapi(route(auth), async (c) => {
    const { id } = c.req.valid('param');
    const event = await deps.events.get(billingAccountOf(principalOf(c)), deps.mode, id);
    if (!event) throw new ApiError('EVENT_NOT_FOUND');
    return c.json({ success: true as const, data: event }, 200);
  });
}
