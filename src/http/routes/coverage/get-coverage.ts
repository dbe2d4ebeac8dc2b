/**
 * GET /coverage: public corpus coverage by court and by year, plus one rolled-up
 * districtCourts row. documentBearing/statusOnly are published only with ?split=1.
 * Cache-Control public, max-age=300; CORS for the configured origins; 503 with a plain
 * { success: false, error } only when no snapshot can be read or survives.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import { CoverageUnavailableError, COVERAGE_TTL_SECONDS, type CoverageService } from '../../../application/coverage/coverage-service.ts';
import type { Counts } from '../../../domain/coverage/coverage.ts';
import type { App } from '../../app-types.ts';
import { errorResponses } from '../../openapi-errors.ts';

export interface CoverageDeps {
  readonly service: CoverageService;
  readonly corsOrigins: readonly string[];
}

const split = {
  documentBearing: z.number().int().optional().openapi({
    description: 'Records whose order or judgment document is held (not a claim that its text is indexed). Only with ?split=1.',
  }),
  statusOnly: z.number().int().optional().openapi({ description: 'Registry metadata with no document on file. Only with ?split=1.' }),
};

const CourtRow = z.object({
  court: z.string().openapi({ description: 'Court code, or districtCourts for the rolled-up row of every district court.', example: 'SC' }),
  courtName: z.string(),
  level: z.enum(['supreme', 'high', 'district', 'tribunal']),
  total: z.number().int(),
  ...split,
  latestDecisionDate: z.string().nullable(),
  businessDaysBehind: z.number().int().nullable().openapi({
    description: 'Weekdays between the newest decision held and today; null when the court has no decision in the last 90 days.',
  }),
});

const YearRow = z.object({
  year: z.number().int().nullable().openapi({ description: 'Decision year as the source gives it; null when unknown.' }),
  total: z.number().int(),
  ...split,
});

const CoverageResponse = z
  .object({
    success: z.literal(true),
    data: z.object({ totals: z.object({ total: z.number().int(), ...split }), courts: z.array(CourtRow), years: z.array(YearRow) }),
    meta: z.object({
      cacheTtlSeconds: z.literal(COVERAGE_TTL_SECONDS),
      snapshotAgeSeconds: z.number().int(),
      cacheAgeSeconds: z.number().int(),
      stale: z.boolean().openapi({ description: 'A hint to retry shortly, not an error.' }),
      corpusNote: z.string(),
    }),
  })
  .openapi('Coverage');

const route = createRoute({
  operationId: 'getCoverage',
  security: [],
  method: 'get',
  path: '/coverage',
  tags: ['Public'],
  summary: 'Corpus coverage and freshness',
  request: {
    query: z.object({
      split: z.enum(['0', '1', 'true', 'false']).optional().openapi({ description: '1 publishes documentBearing and statusOnly.' }),
    }),
  },
  responses: {
    200: { description: 'Coverage snapshot.', content: { 'application/json': { schema: CoverageResponse } } },
    503: {
      description: 'The coverage read failed and no cached snapshot survives.',
      content: { 'application/json': { schema: z.object({ success: z.literal(false), error: z.string() }) } },
    },
    ...errorResponses('VALIDATION_ERROR'),
  },
});

function counts(c: Counts, withSplit: boolean) {
  return withSplit ? { total: c.total, documentBearing: c.documentBearing, statusOnly: c.statusOnly } : { total: c.total };
}

export function registerGetCoverage(app: App, deps: CoverageDeps): void {
  app.use('/coverage', cors({ origin: [...deps.corsOrigins], allowMethods: ['GET', 'OPTIONS'], maxAge: 600 }));
  app.openapi(route, async (c) => {
    const withSplit = ['1', 'true'].includes(c.req.valid('query').split ?? '');
    let view;
    try {
      view = await deps.service.current();
    } catch (error) {
      if (error instanceof CoverageUnavailableError)
        return c.json({ success: false as const, error: 'Coverage is temporarily unavailable; retry shortly.' }, 503);
      throw error;
    }
    const { snapshot } = view;
    const courtsWithRecords = snapshot.courts.filter((row) => row.total > 0).length;
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(
      {
        success: true as const,
        data: {
          totals: counts(snapshot.totals, withSplit),
          courts: snapshot.courts.map((row) => ({
            court: row.court,
            courtName: row.courtName,
            level: row.level,
            ...counts(row, withSplit),
            latestDecisionDate: row.latestDecisionDate,
            businessDaysBehind: row.businessDaysBehind,
          })),
          years: snapshot.years.map((row) => ({ year: row.year, ...counts(row, withSplit) })),
        },
        meta: {
          cacheTtlSeconds: COVERAGE_TTL_SECONDS,
          snapshotAgeSeconds: view.snapshotAgeSeconds,
          cacheAgeSeconds: view.cacheAgeSeconds,
          stale: view.stale,
          corpusNote: `${snapshot.totals.total} records from ${courtsWithRecords} courts held by this instance; documentBearing means a document is on file, not that its text is searchable.`,
        },
      },
      200,
    );
  });
}
