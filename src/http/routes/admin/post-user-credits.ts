/**
 * POST /admin/users/{userId}/credits: grants credits to the user's billing account (their
 * organisation's when they have one, else their own) and answers with its balance after.
 * A grant is a new ledger event; a correction is another grant with source 'correction'.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { CreditsError, CreditsService } from '../../../application/credits/credits-service.ts';
import { GRANT_SOURCES } from '../../../domain/credits/ledger.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import { ADMIN_GATE_ERRORS, ADMIN_SECURITY, UserParams } from './schemas.ts';

const Body = z
  .object({
    amount: z
      .number()
      .int()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({ description: 'Credits to add (10 credits = 1 rupee).', example: 5000 }),
    note: z.string().trim().min(1).max(500).optional().openapi({ description: 'Why, for the ledger.', example: 'Invoice 2026-114' }),
    source: z.enum(GRANT_SOURCES).default('grant').openapi({ description: 'Default grant.', example: 'purchase' }),
    expiresAt: z.iso.datetime({ offset: true }).optional().openapi({
      description:
        'From this time the unspent rest of the grant expires (a CreditsExpired ledger event); soonest-expiring credits are spent first. Must be in the future.',
      example: '2027-03-31T23:59:59Z',
    }),
  })
  .strict()
  .openapi('AdminGrantCredits');

const Granted = envelope(
  z.object({
    balance: z.number().int().openapi({ description: 'Spendable credits of the billing account after the grant.', example: 5000 }),
  }),
).openapi('AdminCreditsGranted');

const route = createRoute({
  operationId: 'adminGrantCredits',
  method: 'post',
  path: '/admin/users/{userId}/credits',
  tags: ['Admin'],
  summary: "Grant credits to a user's billing account",
  security: ADMIN_SECURITY,
  request: { params: UserParams, body: { content: { 'application/json': { schema: Body } }, required: true } },
  responses: {
    201: { description: 'Granted.', content: { 'application/json': { schema: Granted } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'USER_NOT_FOUND', ...BODY_ERRORS),
  },
});

function grantError(error: CreditsError): Error {
  if (error.tag === 'UserNotFound') return new ApiError('USER_NOT_FOUND');
  if (error.tag === 'InvalidExpiry') {
    return new ApiError('VALIDATION_ERROR', {
      message: 'Validation failed: expiresAt: must be after now',
      details: ['expiresAt: must be after now'],
    });
  }
  // The body schema admits only what a grant accepts; anything else is a defect.
  return new Error(`grant refused after validation: ${error.tag}`);
}

export function registerPostUserCredits(app: App, credits: CreditsService): void {
  app.openapi(route, async (c) => {
    const { userId } = c.req.valid('param');
    const { amount, note, source, expiresAt } = c.req.valid('json');
    const input = { amount, source, ...(note === undefined ? {} : { note }), ...(expiresAt === undefined ? {} : { expiresAt }) };
    const result = await credits.grantToUser(userId, input, { actor: 'operator', requestId: c.get('requestId') });
    if (!result.ok) throw grantError(result.error);
    return c.json({ success: true as const, data: { balance: result.value.balance } }, 201);
  });
}
