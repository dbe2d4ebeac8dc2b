/**
 * GET /audit: the caller's audit trail, or their organisation's, from ClickHouse. Rows carry
 * the spec's fields (settlement reads zero), with a summary and the top endpoints.
 * Unmetered; it consumes a rate-limit slot like every keyed call.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AuditQueries } from '../../../application/audit/audit-queries.ts';
import { decideAuditScope } from '../../../domain/audit/scope.ts';
import { ApiError } from '../../api-error.ts';
import type { AppEnv } from '../../env.ts';
import type { App } from '../../app-types.ts';
import { envelope } from '../../envelope.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from './keyed-route-support.ts';

export interface AuditDeps {
  readonly queries: AuditQueries;
  /** The organisation of a user (null: none; undefined: no such user). */
  readonly userOrganization: (userId: string) => Promise<string | null | undefined>;
}

/** An ISO 8601 timestamp with a time of day and a zone (RFC 3339); a plain date is refused. */
const timestamp = z.iso
  .datetime({ offset: true })
  .openapi({ example: '2026-11-01T00:00:00Z', description: 'ISO 8601 timestamp; a plain date (2026-11-01) is refused.' });

const Query = z.object({
  organizationId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Organisation to report on; the caller must belong to it.' }),
  userId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'User to report on: yourself, or a member of your organisation if you are ORG_ADMIN.' }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  startDate: timestamp.optional(),
  endDate: timestamp.optional(),
});

const Row = z.object({
  occurredAt: z.string(),
  requestId: z.string(),
  keyId: z.string(),
  userId: z.string(),
  endpoint: z.string().openapi({ example: '/cases/:id' }),
  method: z.string(),
  statusCode: z.number().int(),
  responseTimeMs: z.number().int(),
  creditsDeducted: z.number().int(),
  settlement: z.number().int().openapi({ description: 'Reads zero on every row today.' }),
  clientAddress: z.string(),
  userAgent: z.string(),
  detail: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .nullable()
    .openapi({
      description:
        "Non-personal facts the route recorded about the call, on the caller's own calls only (null on others' and on routes that record none). A litigation check records purpose, entityType and the lengths and counts of what was sent, never the names, identifiers, address or known persons.",
      example: { purpose: 'kyc', entityType: 'person', nameLength: 23, aliasCount: 1, identifierCount: 1, knownPersonCount: 0 },
    }),
});

const AuditResponse = envelope(
  z.object({
    rows: z.array(Row),
    summary: z.object({
      totalRequests: z.number().int(),
      totalCreditsDeducted: z.number().int(),
      errorCount: z.number().int(),
      averageResponseTimeMs: z.number().int(),
    }),
    topEndpoints: z.array(z.object({ endpoint: z.string(), calls: z.number().int(), credits: z.number().int() })),
  }),
)
  .extend({ pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }) })
  .openapi('Audit');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'listAuditEvents',
    method: 'get',
    path: '/audit',
    tags: ['Account'],
    summary: 'Audit trail of a user or organisation',
    description: 'Price: 0 credits. One of organizationId or userId is required. Rows appear within seconds of the call.',
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { query: Query },
    responses: {
      200: { description: 'Audit rows, newest first.', content: { 'application/json': { schema: AuditResponse } } },
      ...errorResponses(...KEYED_ERRORS, 'VALIDATION_ERROR', 'AUDIT_SCOPE_FORBIDDEN', 'UPSTREAM_UNAVAILABLE'),
    },
  });

export function registerGetAudit(app: App, auth: MiddlewareHandler<AppEnv>, deps: AuditDeps): void {
  app.openapi(route(auth), async (c) => {
    const caller = principalOf(c);
    const q = c.req.valid('query');
    const target = q.userId === undefined || q.userId === caller.userId ? caller.organizationId : await deps.userOrganization(q.userId);
    const refusal = decideAuditScope(caller, q, target);
    if (refusal?.tag === 'ScopeMissing') {
      throw new ApiError('VALIDATION_ERROR', {
        message: 'Validation failed: organizationId or userId is required',
        details: ['organizationId or userId: one is required'],
      });
    }
    if (refusal?.tag === 'ForeignOrganization') {
      const own = refusal.callerOrganizationId ?? 'none (your account has no organisation)';
      throw new ApiError('AUDIT_SCOPE_FORBIDDEN', { message: `You may read the audit trail of your own organisation only: ${own}.` });
    }
    if (refusal?.tag === 'ForeignUser') throw new ApiError('AUDIT_SCOPE_FORBIDDEN');
    const filter = {
      organizationId: q.organizationId,
      userId: q.userId,
      from: q.startDate === undefined ? undefined : new Date(q.startDate),
      to: q.endDate === undefined ? undefined : new Date(q.endDate),
    };
    try {
      const [rows, summary, topEndpoints] = await Promise.all([
        deps.queries.page(filter, q.limit, q.offset),
        deps.queries.summary(filter),
        deps.queries.byEndpoint(filter, 10),
      ]);
      return c.json(
        {
          success: true as const,
          // An ORG_ADMIN sees colleagues' calls but not why they made them (e.g. a screening's purpose).
          data: { rows: rows.map((r) => (r.userId === caller.userId ? r : { ...r, detail: null })), summary, topEndpoints },
          pagination: { limit: q.limit, offset: q.offset, total: summary.totalRequests },
        },
        200,
      );
    } catch (error) {
      throw new ApiError('UPSTREAM_UNAVAILABLE', { message: 'The audit store did not respond; retry shortly.', cause: error });
    }
  });
}
