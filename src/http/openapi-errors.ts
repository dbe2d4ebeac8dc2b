/**
 * OpenAPI error responses generated from the error table, so the document lists exactly
 * the codes and statuses the code can produce. Routes name the codes they may return.
 */
import { z } from '@hono/zod-openapi';
import { ERROR_MESSAGE, ERROR_STATUS, type ErrorCode } from './error-codes.ts';

const codes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const CodedErrorSchema = z
  .object({
    success: z.literal(false),
    code: z.enum(codes).openapi({ description: 'Stable machine-readable code; branch on it.' }),
    message: z.string(),
    error: z.string().openapi({ description: 'Mirrors message.' }),
    details: z.array(z.string()).optional().openapi({ description: 'VALIDATION_ERROR only: one line per bad field.' }),
    requestId: z.string().openapi({ description: 'Equals the X-Request-Id header.' }),
  })
  .catchall(z.unknown())
  .openapi('CodedError');

export const RateLimitErrorSchema = z
  .object({
    error: z.string(),
    message: z.string(),
    code: z.enum(codes),
    retryAfter: z.number().int().openapi({ description: 'Seconds until a retry may succeed.' }),
    resetTime: z.string().openapi({ description: 'ISO 8601 time the window resets.' }),
  })
  .openapi('RateLimitError');

/** The 402 body: what the call needs, what the account holds, the gap and where to top up. */
export const InsufficientCreditsSchema = CodedErrorSchema.extend({
  code: z.literal('INSUFFICIENT_API_CREDITS'),
  required: z.number().int().openapi({ description: 'Price of the call in credits.' }),
  balance: z.number().int().openapi({ description: 'Spendable credits of the billing account now.' }),
  shortfall: z.number().int().openapi({ description: 'required minus balance.' }),
  topUpUrl: z.string().openapi({ description: 'Where to buy credits.' }),
}).openapi('InsufficientCredits');

/**
 * Responses every route shares: the router, the crash guard, and the database's statement
 * timeout (any route that reads the database answers 408 when it does not answer in time).
 */
export const COMMON_ERRORS: readonly ErrorCode[] = ['METHOD_NOT_ALLOWED', 'INTERNAL_ERROR', 'UPSTREAM_TIMEOUT'];
export const BODY_ERRORS: readonly ErrorCode[] = ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'VALIDATION_ERROR'];

export function errorResponses(...routeCodes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...routeCodes, ...COMMON_ERRORS]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `${c}: ${ERROR_MESSAGE[c]}`).join('\n\n'),
        content: {
          'application/json': {
            schema: list.includes('INSUFFICIENT_API_CREDITS')
              ? InsufficientCreditsSchema
              : !list.includes('RATE_LIMITED')
                ? CodedErrorSchema
                : list.length === 1
                  ? RateLimitErrorSchema
                  : z.union([RateLimitErrorSchema, CodedErrorSchema]),
          },
        },
      },
    ]),
  );
}
