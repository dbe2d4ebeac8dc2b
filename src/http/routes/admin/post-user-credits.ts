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
    paymentReference: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, 'printable ASCII')
      .optional()
      .openapi({
        description:
          'The external payment (invoice, payment gateway id) this grant is for, kept on the ledger line. A grant is made once per reference: the same reference again credits nothing.',
        example: 'INV-2026-114',
      }),
  })
  .strict()
  .openapi('AdminGrantCredits');

const Granted = envelope(
  z.object({
    balance: z.number().int().openapi({ description: 'Spendable credits of the billing account now.', example: 5000 }),
    grantId: z
      .string()
      .openapi({ description: 'The ledger grant (the original one when the reference was granted before).', example: 'grt_01J' }),
    paymentReference: z.string().nullable().openapi({ example: 'INV-2026-114' }),
    replayed: z.boolean().openapi({ description: 'True when this payment reference was granted before and nothing was credited now.' }),
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
    200: {
      description: 'Granted before under this payment reference: nothing credited now.',
      content: { 'application/json': { schema: Granted } },
    },
    201: { description: 'Granted.', content: { 'application/json': { schema: Granted } } },
    ...errorResponses(...ADMIN_GATE_ERRORS, 'USER_NOT_FOUND', 'PAYMENT_REFERENCE_IN_USE', ...BODY_ERRORS),
  },
});

function grantError(error: CreditsError): Error {
  if (error.tag === 'UserNotFound') return new ApiError('USER_NOT_FOUND');
  if (error.tag === 'PaymentReferenceInUse') {
    return new ApiError('PAYMENT_REFERENCE_IN_USE', {
      message: `Payment reference ${error.paymentReference} was already granted: ${String(error.amount)} credits to account ${error.accountId}; nothing was granted.`,
    });
  }
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
    const { amount, note, source, expiresAt, paymentReference } = c.req.valid('json');
    const input = {
      amount,
      source,
      ...(note === undefined ? {} : { note }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(paymentReference === undefined ? {} : { paymentReference }),
    };
    const result = await credits.grantToUser(userId, input, { actor: 'operator', requestId: c.get('requestId') });
    if (!result.ok) throw grantError(result.error);
    const { balance, grantId, replayed } = result.value;
    const data = { balance, grantId, paymentReference: paymentReference ?? null, replayed };
    return replayed ? c.json({ success: true as const, data }, 200) : c.json({ success: true as const, data }, 201);
  });
}
