/**
 * The shape both public reference routes share: public, per-IP rate limited, a fixed JSON
 * document in the envelope, cached for an hour with an ETag (If-None-Match gives 304).
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { App } from '../../app-types.ts';
import { publicRateLimit, type PublicRateLimit } from '../../middleware/public-rate-limit.ts';
import { errorResponses } from '../../openapi-errors.ts';
import { prepareStaticJson, sendStaticJson } from './static-json-support.ts';

export interface ReferenceRouteOptions<S extends z.ZodType> {
  readonly path: `/reference/${string}`;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly schema: S;
  readonly load: () => z.infer<S>;
}

export function referenceRoute<S extends z.ZodType>(options: ReferenceRouteOptions<S>) {
  const route = createRoute({
    operationId: options.operationId,
    security: [],
    method: 'get',
    path: options.path,
    tags: ['Reference'],
    summary: options.summary,
    responses: {
      200: {
        description: options.description,
        headers: { ETag: { schema: { type: 'string' } }, 'Cache-Control': { schema: { type: 'string', example: 'public, max-age=3600' } } },
        content: { 'application/json': { schema: z.object({ success: z.literal(true), data: options.schema }) } },
      },
      304: { description: 'If-None-Match matched the current ETag; no body.' },
      ...errorResponses('RATE_LIMITED'),
    },
  });
  return (app: App, limit: PublicRateLimit): void => {
    const doc = prepareStaticJson({ success: true, data: options.load() });
    app.use(options.path, publicRateLimit(limit, 'reference'));
    app.openapi(route, async (c) => sendStaticJson(c, await doc) as never);
  };
}
