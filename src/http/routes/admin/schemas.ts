/**
 * Schemas the admin routes share: the success envelope, the path parameters and the
 * OpenAPI security requirement. Each route file keeps its own request and response bodies.
 */
import { z } from '@hono/zod-openapi';
import type { ErrorCode } from '../../error-codes.ts';

export const ADMIN_SECURITY = [{ AdminToken: [] }];

/** What the bearer gate answers on every admin route: a wrong token, or too many wrong ones from the address. */
export const ADMIN_GATE_ERRORS: readonly ErrorCode[] = ['ADMIN_UNAUTHORIZED', 'RATE_LIMITED'];

export const OrganizationParams = z.object({
  organizationId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'organizationId', in: 'path' }, example: 'org_0f6b7c1e-2a52-4c1e-9f54-0d1d1a7c9b3e' }),
});

export const UserParams = z.object({
  userId: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'userId', in: 'path' }, example: 'usr_5d0c3f0a-6f7e-4a3b-8e0d-2b8f6e1c4a9d' }),
});

export const CaseParams = z.object({
  caseId: z
    .string()
    .min(1)
    .max(300)
    .openapi({ param: { name: 'caseId', in: 'path' }, example: 'hc-DLHC010012342019' }),
});

export const Allowlist = z
  .array(z.string().trim().max(64))
  .max(500)
  .openapi({
    description: 'IPv4/IPv6 addresses or CIDR ranges; an empty list turns the allowlist off.',
    example: ['203.0.113.0/24', '2001:db8::/32'],
  });

const count = z.number().int().min(0);
const countOrUnlimited = count.nullable();

/** Every tier limit an account may override; unknown names are refused, not ignored. */
export const LimitOverridesSchema = z
  .object({
    requestsPerMinute: count.min(1),
    maxPageSize: count.min(1).max(100),
    paginationDepth: count.min(1),
    pdfLinksPerMonth: countOrUnlimited,
    distinctCaseDetailsPerDay: countOrUnlimited,
    concurrentAnalyses: count,
    liveFetchesPerDay: count,
    apiKeys: count.min(1),
    distinctKeysPerIpPerDay: count.min(1),
    screeningRequestsPerMinute: count.min(1),
    distinctScreenedNamesPerDay: countOrUnlimited,
    litigationChecksPerMonth: countOrUnlimited,
  })
  .partial()
  .strict()
  .openapi('LimitOverrides');
