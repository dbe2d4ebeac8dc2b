/**
 * GET /usage: tier, balance, the tier's limits (with this account's overrides), the price
 * table, and per-endpoint calls and credits for the current billing period (the calendar
 * month, UTC). Unmetered. Counts come from the audit trail, so they trail calls by seconds.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AuditQueries } from '../../../application/audit/audit-queries.ts';
import { billingAccountOf, type CreditsService } from '../../../application/credits/credits-service.ts';
import { TIER_NAMES, TIERS } from '../../../domain/access/tiers.ts';
import { priceList } from '../../../domain/credits/prices.ts';
import type { Clock } from '../../../ports/clock.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { envelope } from '../../envelope.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from './keyed-route-support.ts';

export interface UsageDeps {
  readonly credits: CreditsService;
  readonly queries: AuditQueries;
  readonly clock: Clock;
}

const limit = z.number().int().nullable();

const UsageSchema = envelope(
  z.object({
    tier: z.enum(TIERS),
    tierName: z.string(),
    billingAccountId: z.string().openapi({ description: 'The organisation when the account has one, else the user.' }),
    balance: z.number().int().openapi({ description: 'Credits spendable now (10 credits = Rs 1).' }),
    reserved: z.number().int().openapi({ description: 'Credits held by calls still running.' }),
    limits: z.object({
      requestsPerMinute: z.number().int(),
      maxPageSize: z.number().int(),
      paginationDepth: z.number().int(),
      pdfLinksPerMonth: limit,
      distinctCaseDetailsPerDay: limit,
      concurrentAnalyses: z.number().int(),
      liveFetchesPerDay: z.number().int(),
      apiKeys: z.number().int(),
      distinctKeysPerIpPerDay: z.number().int(),
      screeningRequestsPerMinute: z.number().int(),
      distinctScreenedNamesPerDay: limit,
      litigationChecksPerMonth: limit,
    }),
    period: z.object({ start: z.string(), end: z.string() }),
    endpoints: z.array(z.object({ endpoint: z.string(), calls: z.number().int(), credits: z.number().int() })),
    prices: z.array(z.object({ endpoint: z.string(), method: z.string(), path: z.string(), price: z.string() })),
  }),
).openapi('Usage');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'getUsage',
    method: 'get',
    path: '/usage',
    tags: ['Account'],
    summary: 'Tier, balance, limits and this billing period’s usage',
    description: 'Price: 0 credits (unmetered). Consumes a rate-limit slot. null in a limit means unlimited.',
    security: keyedSecurity,
    middleware: [auth] as const,
    responses: {
      200: { description: 'Usage of the billing account behind the key.', content: { 'application/json': { schema: UsageSchema } } },
      ...errorResponses(...KEYED_ERRORS, 'UPSTREAM_UNAVAILABLE'),
    },
  });

export function registerGetUsage(app: App, auth: MiddlewareHandler<AppEnv>, deps: UsageDeps): void {
  app.openapi(route(auth), async (c) => {
    const p = principalOf(c);
    const now = deps.clock.now();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const accountId = billingAccountOf({ userId: p.userId, organizationId: p.organizationId });
    const scope = p.organizationId === null ? { userId: p.userId } : { organizationId: p.organizationId };
    // Records expiries that fell due on an idle account, so the balance shown is the ledger's.
    const balance = await deps.credits.expireDue(accountId);
    let endpoints;
    try {
      endpoints = await deps.queries.byEndpoint({ ...scope, from: start, to: new Date(end.getTime() - 1) }, 100);
    } catch (error) {
      throw new ApiError('UPSTREAM_UNAVAILABLE', { message: 'The usage store did not respond; retry shortly.', cause: error });
    }
    return c.json(
      {
        success: true as const,
        data: {
          tier: p.tier,
          tierName: TIER_NAMES[p.tier],
          billingAccountId: accountId,
          balance: balance.balance,
          reserved: balance.reserved,
          limits: p.limits,
          period: { start: start.toISOString(), end: end.toISOString() },
          endpoints,
          prices: priceList(),
        },
      },
      200,
    );
  });
}
