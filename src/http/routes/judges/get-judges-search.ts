/**
 * GET /judges/search: judge names for the judgeName filter of search. A case-insensitive
 * substring match over the Supreme Court and High Court judges; without q, the first 50
 * names in alphabetical order; never more than 50. 1 credit.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { MAX_JUDGE_RESULTS, type JudgeDirectory } from '../../../application/judges/judge-directory.ts';
import { describePrice } from '../../../domain/credits/prices.ts';
import { admitted, type PricedRouteDeps } from '../../admission.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { principalOf } from '../../middleware/require-api-key.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { KEYED_ERRORS, keyedSecurity } from '../account/keyed-route-support.ts';

export interface JudgeSearchDeps extends PricedRouteDeps {
  readonly judges: JudgeDirectory;
}

const Query = z.object({
  q: z.string().max(200).optional().openapi({ example: 'chandrachud', description: 'Case-insensitive substring of the name.' }),
});

const Judge = z
  .object({
    name: z.string().openapi({ example: 'D.Y. CHANDRACHUD', description: 'Exact stored spelling: pass it as judgeName in search.' }),
    courts: z.array(
      z.object({
        id: z
          .string()
          .nullable()
          .openapi({ example: 'supreme-court', description: 'Court filter value (/reference/courts id) when known.' }),
        name: z.string(),
      }),
    ),
    tenure: z
      .object({
        from: z.string().nullable(),
        to: z.string().nullable(),
        basis: z.enum(['appointment', 'decisions']).openapi({
          description: 'appointment: appointment to retirement (KHOJ profiles, 2022 snapshot); decisions: first to last decision held.',
        }),
      })
      .nullable(),
    cases: z.number().int().openapi({ description: 'Cases held naming this spelling on the bench.' }),
  })
  .openapi('Judge');

const Response = z
  .object({
    success: z.literal(true),
    data: z.array(Judge),
    meta: z.object({
      query: z.string().nullable(),
      total: z.number().int().openapi({ description: 'All matches; at most 50 are returned.' }),
      truncated: z.boolean(),
    }),
  })
  .openapi('JudgeSearch');

const route = (auth: MiddlewareHandler<AppEnv>) =>
  createRoute({
    operationId: 'searchJudges',
    method: 'get',
    path: '/judges/search',
    tags: ['Judges'],
    summary: 'Look up judge names',
    description: `Price: ${describePrice('judgeSearch')} Returns at most ${MAX_JUDGE_RESULTS} names; exact, then prefix, then inner matches.`,
    security: keyedSecurity,
    middleware: [auth] as const,
    request: { query: Query },
    responses: {
      200: { description: 'Matching judges.', content: { 'application/json': { schema: Response } } },
      ...errorResponses(...KEYED_ERRORS, 'VALIDATION_ERROR', 'INSUFFICIENT_API_CREDITS'),
    },
  });

export function registerGetJudgesSearch(app: App, auth: MiddlewareHandler<AppEnv>, deps: JudgeSearchDeps): void {
  app.openapi(route(auth), async (c) => {
    const { q } = c.req.valid('query');
    const result = await deps.admission.run({
      payer: principalOf(c),
      callId: c.get('callId'),
      endpoint: 'judgeSearch',
      work: () => deps.judges.search(q),
    });
    const found = admitted(c, result, deps.links).value;
    const data = found.judges.map((j) => ({ ...j, courts: [...j.courts], tenure: j.tenure && { ...j.tenure } }));
    return c.json(
      { success: true as const, data, meta: { query: q?.trim() || null, total: found.total, truncated: found.total > data.length } },
      200,
    );
  });
}
