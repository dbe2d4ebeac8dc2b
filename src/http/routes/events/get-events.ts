/**
 * GET /events: the account's events of the key's mode, newest first (or oldest first with
 * order=asc, the order a receiver catches up in), a page at a time: pagination.nextCursor is
 * the last event's id, sent back as startingAfter. Retained EVENT_RETENTION_DAYS (30 by
 * default). Free; it consumes a rate-limit slot like every keyed call.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../domain/webhook/webhook-endpoints.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';
import { EventSchema, type EventRouteDeps } from './event-schemas.ts';

const timestamp = z.iso.datetime({ offset: true });

const Query = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
  order: z.enum(['desc', 'asc']).default('desc').openapi({
    description: 'desc (default): newest first. asc: oldest first, to catch up from the last event a receiver saw.',
  }),
  startingAfter: z.string().min(1).max(200).optional().openapi({
    description:
      'An event id (pagination.nextCursor of the previous page, or the last event a receiver handled): the page continues after it, in the chosen order. An id this key cannot see (another account, or past retention) is 400 CURSOR_INVALID.',
    example: 'evt_Zk3bq9Yt0m1XcV4rTq8WnA2sJd7Hf6Lp',
  }),
  type: z
    .string()
    .max(200)
    .optional()
    .openapi({
      description: `One event type, or several separated by commas: ${WEBHOOK_EVENT_TYPES.join(', ')}.`,
      example: 'timeline.completed',
    }),
  createdFrom: timestamp.optional().openapi({ description: 'Only events created at or after this instant (ISO 8601 with a zone).' }),
  createdBefore: timestamp.optional().openapi({ description: 'Only events created before this instant (ISO 8601 with a zone).' }),
});

const EventsResponse = z
  .object({
    success: z.literal(true),
    data: z.array(EventSchema),
    pagination: z.object({
      limit: z.number().int(),
      hasMore: z.boolean(),
      nextCursor: z
        .string()
        .nullable()
        .openapi({ description: 'Send as startingAfter for the next page; null on the last page (poll again later from the last id).' }),
    }),
  })
  .openapi('EventList');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'listEvents',
    method: 'get',
    path: '/events',
    tags: ['Events'],
    summary: 'List events',
    description:
      'Price: 0 credits. Every event a webhook announces is listed here whether or not the account has an endpoint, for at least 30 days, so a receiver that was down catches up by paging with order=asc from the last event id it handled.',
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { query: Query },
    responses: {
      200: { description: 'A page of events.', content: { 'application/json': { schema: EventsResponse } } },
      ...errorResponses(...KEYED_ERRORS, 'VALIDATION_ERROR', 'CURSOR_INVALID'),
    },
  });

function parseTypes(text: string | undefined): WebhookEventType[] | undefined {
  if (text === undefined) return undefined;
  const types = text.split(',').map((t) => t.trim());
  const unknown = types.find((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined)
    throw new ApiError('VALIDATION_ERROR', {
      message: `Validation failed: type: unknown event type ${JSON.stringify(unknown)}`,
      details: [`type: expected one of ${WEBHOOK_EVENT_TYPES.join(', ')}`],
    });
  return types as WebhookEventType[];
}

export function registerGetEvents(app: App, auth: MiddlewareHandler<AppEnv>, deps: EventRouteDeps): void {
  app.openapi(route(auth), async (c) => {
    const q = c.req.valid('query');
    const page = await deps.events.page(billingAccountOf(principalOf(c)), deps.mode, {
      limit: q.limit,
      order: q.order,
      startingAfter: q.startingAfter,
      types: parseTypes(q.type),
      createdFrom: q.createdFrom === undefined ? undefined : new Date(q.createdFrom),
      createdBefore: q.createdBefore === undefined ? undefined : new Date(q.createdBefore),
    });
    if (!page.ok)
      throw new ApiError('CURSOR_INVALID', { message: 'startingAfter names no event of this account (unknown, or past retention).' });
    const last = page.events.at(-1);
    const nextCursor = page.hasMore && last ? last.id : null;
    return c.json({ success: true as const, data: page.events, pagination: { limit: q.limit, hasMore: page.hasMore, nextCursor } }, 200);
  });
}
