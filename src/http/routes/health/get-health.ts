/**
 * GET /health: the plain form answers as soon as the process is up and touches nothing;
 * ?deep=1 probes the spec's five dependencies plus the workflow engine, its workers and
 * the analytics store (1 s each) and answers 503 when a hard one fails. Hard: the document
 * database and the search index (the spec's). Soft, reported with status degraded: the
 * vector index, cache and identity service (the spec's), and our three, since search and
 * reads go on without them and what needs them refuses with nothing charged.
 * Flat body, no envelope, no key, no account rate limit.
 *
 * The deep form names the commit and every backend, and each call costs a probe of each:
 * only the operator (ADMIN_TOKEN as a bearer token) gets the checks, version and commit.
 * Anyone else gets the status alone, under the per-address public limit.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { deepHealth, type DeepHealth } from '../../../application/health/deep-health.ts';
import type { DependencyProbe } from '../../../ports/health.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { errorResponses } from '../../openapi-errors.ts';
import type { OperatorCheck } from '../admin/admin-token-support.ts';

export interface HealthDeps {
  readonly probes: readonly DependencyProbe[];
  readonly version: string;
  readonly commit: string;
  readonly startedAt: Date;
  readonly now: () => Date;
  readonly onProbeFailure: (name: string, error: unknown) => void;
}

const CheckSchema = z.object({
  ok: z.boolean(),
  hard: z.boolean().openapi({ description: 'Hard dependencies decide the HTTP status.' }),
  backend: z.string().openapi({ example: 'pglite' }),
  source: z.string().optional().openapi({
    description:
      'How the backend was found, where the service chose at start. The embedded workflow engine says which Temporal CLI runs its dev server: `temporal CLI: TEMPORAL_CLI_PATH`, `PATH`, `../shared/bin/temporal` or `download`.',
    example: 'temporal CLI: ../shared/bin/temporal',
  }),
  latencyMs: z.number().int(),
  error: z.enum(['timeout', 'unavailable']).optional(),
});

const PlainSchema = z.object({ status: z.literal('ok'), version: z.string(), uptimeSeconds: z.number().int() }).openapi('HealthPlain');

const DeepSchema = z
  .object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']),
    version: z.string(),
    commit: z.string(),
    checks: z.object({
      documentDatabase: CheckSchema,
      searchIndex: CheckSchema,
      vectorIndex: CheckSchema,
      cache: CheckSchema,
      identityService: CheckSchema,
      workflowEngine: CheckSchema.optional().openapi({
        description:
          'Soft. The workflow engine (Temporal) that runs analyses and live fetches; while it is down they answer 503 WORKFLOW_ENGINE_UNAVAILABLE and charge nothing.',
      }),
      workers: CheckSchema.optional().openapi({
        description:
          'Soft. Whether a worker polled each workflow task queue in the last 90 seconds; without one, admitted work waits (and is refunded if it outlives its bound).',
      }),
      analyticsStore: CheckSchema.optional().openapi({
        description:
          'Soft. The analytics store (ClickHouse) behind GET /usage and GET /audit; audit events wait in the database while it is down.',
      }),
    }),
  })
  .openapi('HealthDeep');

const DeepStatusSchema = z
  .object({ status: z.enum(['healthy', 'degraded', 'unhealthy']) })
  .openapi('HealthDeepStatus', { description: 'The deep form without the admin token: the status alone.' });

const route = createRoute({
  operationId: 'getHealth',
  security: [],
  method: 'get',
  path: '/health',
  tags: ['Public'],
  summary: 'Liveness, or a bounded dependency check with ?deep=1',
  request: {
    query: z.object({
      deep: z.enum(['0', '1', 'true', 'false']).optional().openapi({
        description:
          '1 probes the dependencies. With ADMIN_TOKEN as a bearer token the answer names each check, version and commit; without it, the status alone, limited per address (PUBLIC_RATE_LIMIT_PER_MINUTE).',
      }),
    }),
  },
  responses: {
    200: {
      description:
        'Up (plain form) or every hard dependency answered (deep form; status degraded when a soft one failed). Hard: documentDatabase, searchIndex. Soft: every other check.',
      content: { 'application/json': { schema: z.union([PlainSchema, DeepSchema, DeepStatusSchema]) } },
    },
    503: {
      description: 'A hard dependency (document database or search index) failed.',
      content: { 'application/json': { schema: z.union([DeepSchema, DeepStatusSchema]) } },
    },
    ...errorResponses('VALIDATION_ERROR', 'ADMIN_UNAUTHORIZED', 'RATE_LIMITED'),
  },
});

const isDeep = (deep: string | undefined): boolean => deep === '1' || deep === 'true';

export interface HealthAccess {
  readonly isOperator: OperatorCheck;
  /** The per-address public limit, for deep checks without the admin token. */
  readonly limit: MiddlewareHandler<AppEnv>;
}

export function registerGetHealth(app: App, deps: HealthDeps, access: HealthAccess): void {
  const gate: MiddlewareHandler<AppEnv> = async (c, next) => {
    if (!isDeep(c.req.query('deep'))) return next();
    if (await access.isOperator(c)) {
      c.set('operator', true);
      return next();
    }
    return access.limit(c, next);
  };
  app.use('/health', gate);
  app.openapi(route, async (c) => {
    const { deep } = c.req.valid('query');
    if (!isDeep(deep)) {
      const uptimeSeconds = Math.floor((deps.now().getTime() - deps.startedAt.getTime()) / 1000);
      return c.json({ status: 'ok' as const, version: deps.version, uptimeSeconds }, 200);
    }
    const result: DeepHealth = await deepHealth(deps.probes, { timeoutMs: 1000, onFailure: deps.onProbeFailure });
    const status = result.status === 'unhealthy' ? 503 : 200;
    if (c.get('operator') !== true) return c.json({ status: result.status }, status);
    return c.json({ status: result.status, version: deps.version, commit: deps.commit, checks: result.checks }, status);
  });
}
