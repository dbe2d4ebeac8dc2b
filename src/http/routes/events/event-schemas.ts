/**
 * The event object, one schema per event type: GET /events lists it, GET /events/{id} returns
 * it, and every webhook delivery's body is exactly it. The OpenAPI document publishes each
 * type under `webhooks`, so typed clients and receivers are generated from one definition.
 */
import { z } from '@hono/zod-openapi';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../domain/webhook/webhook-endpoints.ts';
import type { AccountEvents } from '../../../application/webhooks/account-events.ts';
import type { KeyMode } from '../../../domain/api-key/api-key.ts';
import type { App } from '../../app-types.ts';

export interface EventRouteDeps {
  readonly events: AccountEvents;
  /** The mode whose events the keys of this app read (test mode's app reads test events). */
  readonly mode: KeyMode;
}

const common = {
  id: z.string().openapi({
    description: 'evt_ and 32 characters. The same in GET /events and on every delivery of the event (first or resent): deduplicate on it.',
    example: 'evt_Zk3bq9Yt0m1XcV4rTq8WnA2sJd7Hf6Lp',
  }),
  object: z.literal('event'),
  createdAt: z.string().openapi({ description: 'When the fact was recorded (ISO 8601).', example: '2026-11-29T10:30:00.000Z' }),
  timestamp: z.string().openapi({ description: 'Same as createdAt (the name webhook bodies used before events existed).' }),
  apiVersion: z
    .string()
    .openapi({ description: 'The version of the data shape, fixed when the event was recorded.', example: '2026-11-29' }),
  mode: z.enum(['live', 'test']).openapi({ description: 'live, or test for calls made with crk_test keys.' }),
};

const analysisData = z.object({
  runId: z.string().openapi({ description: 'The analysis run; its result is GET /cases/{caseId}/analysis.' }),
  kind: z.enum(['single', 'consolidated']),
  caseId: z.string(),
});

const timelineData = z.object({
  requestId: z.string().openapi({ description: 'The timeline request; its result is GET /request-timeline/{requestId}.' }),
  caseId: z.string(),
});

const DATA: Record<WebhookEventType, { name: string; description: string; data: z.ZodType }> = {
  'analysis.stored': {
    name: 'AnalysisStoredEvent',
    description: 'An analysis run finished and its result is stored.',
    data: analysisData,
  },
  'analysis.failed': { name: 'AnalysisFailedEvent', description: 'An analysis run failed; its hold was released.', data: analysisData },
  'timeline.completed': {
    name: 'TimelineCompletedEvent',
    description: 'A timeline request finished and its timeline is ready.',
    data: timelineData,
  },
  'timeline.failed': {
    name: 'TimelineFailedEvent',
    description: 'A timeline request failed.',
    data: timelineData.extend({ errorCode: z.string().optional().openapi({ description: 'Why, as an error code of the API.' }) }),
  },
};

function eventSchema(type: WebhookEventType) {
  const { name, description, data } = DATA[type];
  return z.object({ ...common, type: z.literal(type), data }).openapi(name, { description });
}

const EVENT_SCHEMAS = WEBHOOK_EVENT_TYPES.map(eventSchema);
const [first, ...rest] = EVENT_SCHEMAS;
export const EventSchema = z
  .discriminatedUnion('type', [first!, ...rest])
  .openapi('Event', { description: 'One of the event types, told apart by type; a webhook delivery carries exactly this object.' });

export const EventIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Id of the event.', example: 'evt_Zk3bq9Yt0m1XcV4rTq8WnA2sJd7Hf6Lp' }),
});

/**
 * Publishes each event type under the document's `webhooks` (OpenAPI 3.1): what the service
 * POSTs to an endpoint subscribed to it, with the signature headers a receiver checks.
 */
export function registerEventWebhooks(app: App): void {
  const signatureHeaders = z.object({
    'webhook-id': z.string().openapi({ description: 'msg_…: the delivery; the same on each retry of it.' }),
    'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt.' }),
    'webhook-signature': z.string().openapi({
      description: 'Space-separated v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> under each current secret.',
    }),
  });
  WEBHOOK_EVENT_TYPES.forEach((type, i) => {
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `webhook_${type.replace('.', '_')}`,
      summary: DATA[type].description,
      tags: ['Events'],
      // The service calls the receiver: no key of ours; the receiver checks webhook-signature.
      security: [],
      request: { headers: signatureHeaders, body: { content: { 'application/json': { schema: EVENT_SCHEMAS[i]! } } } },
      responses: {
        200: { description: 'Any 2xx: delivered. Anything else, or no answer within the timeout: retried with backoff.' },
      },
    });
  });
}
