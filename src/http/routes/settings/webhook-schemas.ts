/**
 * Schemas the webhook settings routes share, and the mapping of the endpoints' tagged
 * errors onto the error table. An endpoint belongs to the billing account of the
 * logged-in user (the organisation, or the user alone); another account's id is 404, so
 * a foreign endpoint is not revealed to exist.
 */
import { z } from '@hono/zod-openapi';
import type { ExtraDeliveryRefusal } from '../../../application/webhooks/webhook-endpoints.ts';
import type { WebhookEndpointsError } from '../../../domain/webhook/webhook-endpoints.ts';
import { assertNever } from '../../../domain/decider.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhook/webhook-endpoints.ts';
import { DELIVERY_OUTCOMES } from '../../../domain/webhook/delivery-outcome.ts';
import { ApiError } from '../../api-error.ts';

export const WebhookIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: 'id', in: 'path' },
      description: 'Id of the webhook endpoint.',
      example: 'whe_3f1c2a9e-8b7d-4e6f-a5c4-1d2e3f4a5b6c',
    }),
});

export const WebhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES).openapi('WebhookEventType', {
  description: 'analysis.stored, analysis.failed: an analysis run ended; timeline.completed, timeline.failed: a timeline job ended.',
});

export const WebhookModeSchema = z.enum(['live', 'test']).openapi('WebhookEndpointMode', {
  description: 'live (default): the account’s live events. test: its test-mode events (calls made with crk_test keys), and only those.',
});

export const WebhookEndpointSchema = z
  .object({
    id: z.string().openapi({ example: 'whe_3f1c2a9e-8b7d-4e6f-a5c4-1d2e3f4a5b6c' }),
    url: z.string().openapi({ example: 'https://hooks.example.in/court-records' }),
    eventTypes: z.array(WebhookEventTypeSchema),
    mode: WebhookModeSchema,
    secretHint: z.string().openapi({ description: 'whsec_, an ellipsis and the last 4 characters of the secret.', example: 'whsec_…Qk8=' }),
    createdAt: z.string().openapi({ example: '2025-01-15T10:30:00.000Z' }),
    disabled: z
      .object({
        at: z.string().openapi({ example: '2025-01-18T10:30:00.000Z' }),
        reason: z.string().openapi({ example: '50 consecutive failed attempts over 72 h' }),
      })
      .nullable()
      .openapi({
        description:
          'null while deliveries are sent. Set when attempts kept failing (by default 50 in a row over at least 3 days): nothing is sent, and pending deliveries are cancelled, until the owner enables the endpoint again (POST /api/settings/webhooks/{id}/enable).',
      }),
  })
  .openapi('WebhookEndpoint');

export const DeliveriesQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'How many, newest first.', example: 20 }),
});

export const DeliverySchema = z
  .object({
    id: z.string().openapi({ description: 'The webhook-id header of every attempt.', example: 'msg_2Yh9c0QpX1vN4kLm8sT3aB6dF7gH0jK5' }),
    eventType: WebhookEventTypeSchema,
    status: z.enum(['pending', 'delivered', 'failed', 'cancelled', 'dropped']).openapi({
      description:
        'cancelled: its endpoint was deleted or disabled first. dropped: never attempted, because the account already had the maximum of pending deliveries (1000 by default) when the event happened.',
    }),
    attempts: z.number().int().openapi({ example: 1 }),
    lastOutcome: z.enum(DELIVERY_OUTCOMES).nullable().openapi({
      description:
        'How the last attempt ended; null before the first. delivered: a 2xx answer. no_answer: no HTTP answer (the connection failed, timed out, or the answer was too large). http_3xx, http_4xx, http_5xx: the receiver answered with a status of that class (redirects are not followed). address_refused: the URL is, or its name resolves to, an address deliveries may not reach (loopback, private, link-local and other non-public ranges); not retried.',
      example: 'delivered',
    }),
    createdAt: z.string().openapi({ example: '2025-01-15T10:30:00.000Z' }),
    lastAttemptAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .openapi('WebhookDelivery');

export const DeliveryIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({
      param: { name: 'id', in: 'path' },
      description: 'Id of the delivery (its webhook-id).',
      example: 'msg_2Yh9c0QpX1vN4kLm8sT3aB6dF7gH0jK5',
    }),
});

export const SendTestEventBody = z
  .object({
    type: WebhookEventTypeSchema.optional().openapi({
      description: "The event type to send a sample of; by default the endpoint's first.",
    }),
  })
  .openapi('SendTestWebhookEventRequest');

export const TEST_EVENT_DESCRIPTION =
  "Queues a delivery of a sample event of the type (ids evt_test_…, run_test, req_test, SC-TEST-0001) to the endpoint, signed and retried like any delivery; watch it in the endpoint's deliveries. It is no fact of the account: GET /events does not list it. Refused with 409 WEBHOOK_ENDPOINT_DISABLED while the endpoint is disabled.";

export const RESEND_DESCRIPTION =
  "Queues the delivery's event to its endpoint again, like Stripe's resend: a new delivery (its own webhook-id) carrying the same event object (the same evt_ id, which receivers deduplicate on), whatever became of the original (delivered, failed, cancelled, dropped). Refused with 409 WEBHOOK_ENDPOINT_DISABLED while the endpoint is disabled, 404 once it was deleted.";

export const WebhookSecretSchema = z
  .string()
  .openapi({ description: 'The signing secret, shown this once only.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwq8bXm1Ae0Y4=' });

function invalid(field: string, problem: string): ApiError {
  return new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${field}: ${problem}`, details: [`${field}: ${problem}`] });
}

const URL_PROBLEMS = {
  malformed: 'not a URL',
  scheme: 'must be https',
  credentials: 'must not carry a user name or password',
  'non-public-address': 'must not name a loopback, private or link-local address',
  'too-long': 'longer than 2048 characters',
} as const;

export function webhookError(error: WebhookEndpointsError): ApiError {
  switch (error.tag) {
    case 'EndpointNotFound':
      return new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    case 'EndpointLimit':
      return new ApiError('WEBHOOK_ENDPOINT_LIMIT_REACHED', {
        message: `An account may have at most ${String(error.max)} webhook endpoints.`,
      });
    case 'InvalidUrl':
      return invalid('url', URL_PROBLEMS[error.reason]);
    case 'NoEventTypes':
      return invalid('eventTypes', 'name at least one event type');
    case 'EndpointExists':
      // Endpoint ids are generated here: a collision is a defect, not a caller's mistake.
      throw new Error('webhook endpoint id collision');
    default:
      return assertNever(error);
  }
}

/** Why a test event or a resend was refused, in the error table's words. */
export function extraDeliveryError(refusal: ExtraDeliveryRefusal): ApiError {
  switch (refusal) {
    case 'EndpointNotFound':
      return new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    case 'DeliveryNotFound':
      return new ApiError('WEBHOOK_DELIVERY_NOT_FOUND');
    case 'EndpointDisabled':
      return new ApiError('WEBHOOK_ENDPOINT_DISABLED');
    case 'PendingLimit':
      return new ApiError('WEBHOOK_PENDING_LIMIT_REACHED');
    default:
      return assertNever(refusal);
  }
}
