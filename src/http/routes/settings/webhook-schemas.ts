/**
 * Schemas the webhook settings routes share, and the mapping of the endpoints' tagged
 * errors onto the error table. An endpoint belongs to the billing account of the
 * logged-in user (the organisation, or the user alone); another account's id is 404, so
 * a foreign endpoint is not revealed to exist.
 */
import { z } from '@hono/zod-openapi';
import type { WebhookEndpointsError } from '../../../domain/webhook/webhook-endpoints.ts';
import { assertNever } from '../../../domain/decider.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhook/webhook-endpoints.ts';
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
