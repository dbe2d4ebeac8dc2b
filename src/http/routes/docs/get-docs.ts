/**
 * GET /docs: the interactive API reference (Scalar) over our OpenAPI document. The Scalar
 * bundle is served by us from the installed package, so the page works without a CDN.
 */
import { Scalar } from '@scalar/hono-api-reference';
import type { App } from '../../app-types.ts';

export interface DocsDeps {
  readonly openApiUrl: string;
  readonly scalarBundle: () => Promise<Uint8Array | undefined>;
}

export function registerDocs(app: App, deps: DocsDeps): void {
  app.get('/docs/scalar.js', async (c) => {
    const bundle = await deps.scalarBundle();
    if (!bundle) return c.notFound();
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(bundle as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });
  app.get('/docs', Scalar({ url: deps.openApiUrl, cdn: '/docs/scalar.js', pageTitle: 'Court Records Research API' }));
}
