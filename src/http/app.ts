/**
 * Builds the HTTP application: middleware order, the one error handler, the route list and
 * the OpenAPI document. Everything it needs arrives in `deps`; it constructs no adapter,
 * and uses only web standards, so the same app serves under Node and Deno.
 */
import { OpenAPIHono, type Hook } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import type { Logger } from 'pino';
import type { IdGenerator } from '../ports/clock.ts';
import { isStatementTimeout } from './statement-timeout.ts';
import { ApiError } from './api-error.ts';
import type { App } from './app-types.ts';
import type { AppEnv } from './env.ts';
import { accessLog } from './middleware/access-log.ts';
import { requestMetrics } from './middleware/metrics.ts';
import { testModeDispatch, type TestModeRouting } from './middleware/test-mode.ts';
import { checkIdempotencyKeyFormat, idempotent } from './middleware/idempotency.ts';
import type { InFlightRequests } from './middleware/in-flight.ts';
import { limitBody, parseJsonBody } from './middleware/json-body.ts';
import { requestId } from './middleware/request-id.ts';
import { requireApiKey, type ApiKeyGateDeps } from './middleware/require-api-key.ts';
import { registerGetMe } from './routes/account/get-me.ts';
import { registerGetAudit, type AuditDeps } from './routes/account/get-audit.ts';
import { registerGetUsage, type UsageDeps } from './routes/account/get-usage.ts';
import { registerAdminRoutes, type AdminDeps } from './routes/admin/index.ts';
import { operatorCheck, type OperatorCheck } from './routes/admin/admin-token-support.ts';
import { registerSettingsRoutes, type SettingsDeps } from './routes/settings/index.ts';
import { registerEventWebhooks, type EventRouteDeps } from './routes/events/event-schemas.ts';
import { registerGetEvent } from './routes/events/get-event.ts';
import { registerGetEvents } from './routes/events/get-events.ts';
import { registerKeyedWebhookRoutes } from './routes/webhooks/index.ts';
import type { KeyedWebhookDeps } from './routes/webhooks/keyed-webhook-support.ts';
import { registerDashboard, type DashboardDeps } from './routes/dashboard/index.ts';
import { declareResponseHeaders } from './openapi-headers.ts';
import { renderError } from './render-error.ts';
import { registerDocs } from './routes/docs/get-docs.ts';
import { registerGetCoverage, type CoverageDeps } from './routes/coverage/get-coverage.ts';
import { registerGetHealth, type HealthDeps } from './routes/health/get-health.ts';
import { registerGetCaseTypes } from './routes/reference/get-case-types.ts';
import { registerGetCourts } from './routes/reference/get-courts.ts';
import { registerGetCase } from './routes/cases/get-case.ts';
import { registerGetCasePdf } from './routes/cases/get-case-pdf.ts';
import type { AnalysisRouteDeps } from './routes/cases/analysis-route-support.ts';
import { registerTemporalCodec, type TemporalCodecDeps } from './routes/ops/index.ts';
import { registerGetMetrics, type MetricsRouteDeps } from './routes/ops/get-metrics.ts';
import { registerGetCaseAnalysis } from './routes/cases/get-case-analysis.ts';
import { registerPostCaseAnalyze } from './routes/cases/post-case-analyze.ts';
import { registerPostCaseAnalyzeConsolidated } from './routes/cases/post-case-analyze-consolidated.ts';
import { registerGetDocument } from './routes/documents/get-document.ts';
import { registerPartyRoutes, type PartyRouteDeps } from './routes/party/index.ts';
import { registerTimelineRoutes, type TimelineRouteDeps } from './routes/timeline/index.ts';
import { registerGetJudgesSearch } from './routes/judges/get-judges-search.ts';
import { registerPostSearchCases } from './routes/search/post-search-cases.ts';
import { registerPostSearchCasesSemantic } from './routes/search/post-search-cases-semantic.ts';
import type { ResearchDeps } from './research-deps.ts';
import { publicRateLimit, type PublicRateLimit } from './middleware/public-rate-limit.ts';
import { validationError } from './validation.ts';

/**
 * The credit-charging POST routes that honour Idempotency-Key: the spec's five, plus
 * keyword and semantic search, charged POSTs a client may retry after a timeout like any other.
 */
export const IDEMPOTENT_PATHS = [
  '/search/cases',
  '/search/cases/semantic',
  '/party/screen',
  '/party/screen/batch',
  '/cases/:id/analyze',
  '/cases/:id/analyze-consolidated',
  '/request-timeline',
] as const;

const NOT_JSON_CONTENT_TYPE = 'The request body must be JSON, sent with Content-Type: application/json.';

export interface AppDeps {
  readonly basePath: string;
  readonly version: string;
  readonly logger: Logger;
  readonly ids: IdGenerator;
  readonly health: HealthDeps;
  readonly coverage: CoverageDeps;
  readonly publicRateLimit: PublicRateLimit;
  readonly apiKeyGate: ApiKeyGateDeps;
  readonly settings: SettingsDeps;
  /** The HTML dashboard under /dashboard (it logs through `logger`). */
  readonly dashboard: Omit<DashboardDeps, 'logger'>;
  readonly audit: AuditDeps;
  readonly usage: UsageDeps;
  readonly admin: AdminDeps;
  readonly research: ResearchDeps;
  readonly analysis: AnalysisRouteDeps;
  readonly temporalCodec: TemporalCodecDeps;
  /** Where test keys are answered (compose-test-mode.ts); absent when test mode is off, and in test mode's own app. */
  readonly testMode?: TestModeRouting | undefined;
  /** The one Metrics of the process, and who may scrape it (GET /ops/metrics). */
  readonly metrics: MetricsRouteDeps;
  /** The litigation check routes (POST /party/screen and /party/screen/batch). */
  readonly screening: PartyRouteDeps;
  /** POST /request-timeline and GET /request-timeline/:requestId. */
  readonly timeline: TimelineRouteDeps;
  /** GET /events and GET /events/{id}: the account's events in the keys' mode. */
  readonly events: EventRouteDeps;
  /** The webhook endpoints under /webhooks, managed with an API key. */
  readonly webhookApi: KeyedWebhookDeps;
  readonly scalarBundle: () => Promise<Uint8Array | undefined>;
  /** Counts requests in flight for a graceful stop. */
  readonly inFlight: InFlightRequests;
}

const failValidation: Hook<unknown, AppEnv, string, unknown> = async (result, c) => {
  if (result.success) return;
  const input: unknown = result.target === 'json' ? await c.req.json().catch(() => undefined) : c.req.query();
  throw validationError(result.error, input);
};

/** The unkeyed paths limited per address (publicRateLimit): their answers carry RateLimit-* too. */
const DOCUMENTED_LIMITS = {
  limitedPaths: (path: string) =>
    /\/(reference|documents)\//.test(path) || path.endsWith('/api/settings/login') || path.endsWith('/ops/temporal-codec/session'),
};

/**
 * GET /openapi.json: the document generated on the first request (every route is
 * registered by then) and sent as the same bytes after. Generating it walks every schema
 * of every route, some 70 ms of one thread, which a request for it would otherwise hold
 * the event loop for each time.
 */
function serveDocument(app: App, generate: () => unknown): void {
  let document: string | undefined;
  app.get('/openapi.json', (c) => {
    document ??= JSON.stringify(generate());
    return c.body(document, 200, { 'Content-Type': 'application/json' });
  });
}

/** The operator's paths: the admin API and the ops routes, described to the operator only. */
const operatorOnly = (path: string): boolean => /^\/(admin|ops)(\/|$)/.test(path);

type RootDocument = { paths?: Record<string, unknown>; components?: Record<string, Record<string, unknown> | undefined> };

/** The components `from` refers to, directly or through other components. */
function referenced(from: unknown, components: RootDocument['components']): Set<string> {
  const seen = new Set<string>();
  const walk = (value: unknown): void => {
    for (const [, ref] of JSON.stringify(value).matchAll(/"\$ref":"#\/components\/([^"]+)"/g)) {
      if (ref === undefined || seen.has(ref)) continue;
      seen.add(ref);
      const [kind = '', name = ''] = ref.split('/');
      walk(components?.[kind]?.[name]);
    }
  };
  walk(from);
  return seen;
}

/** `document` without the operator's paths, and without the components only those used. */
function withoutOperatorPaths(document: RootDocument): RootDocument {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => !operatorOnly(path)));
  const used = referenced(paths, document.components);
  // Security schemes are named by the operations' `security` lists, not by $ref.
  const schemes = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item as Record<string, { security?: Record<string, unknown>[] }>).flatMap((op) =>
        (op.security ?? []).flatMap((requirement) => Object.keys(requirement)),
      ),
    ),
  );
  const kept = (kind: string, name: string) => (kind === 'securitySchemes' ? schemes.has(name) : used.has(`${kind}/${name}`));
  const components = Object.fromEntries(
    Object.entries(document.components ?? {}).map(([kind, entries]) => [
      kind,
      Object.fromEntries(Object.entries(entries ?? {}).filter(([name]) => kept(kind, name))),
    ]),
  );
  return { ...document, paths, components };
}

/**
 * GET /openapi.json on the host root: the whole surface for tooling. The admin and ops
 * paths map the operator's attack surface, so they are in the document an ADMIN_TOKEN
 * bearer gets and not in the one anyone else gets. Both generated once, like the API's.
 */
function serveRootDocument(app: App, generate: () => unknown, isOperator: OperatorCheck): void {
  let documents: { full: string; open: string } | undefined;
  app.get('/openapi.json', async (c) => {
    const operator = await isOperator(c);
    if (!documents) {
      const generated = generate();
      documents = { full: JSON.stringify(generated), open: JSON.stringify(withoutOperatorPaths(generated as RootDocument)) };
    }
    const headers = { 'Content-Type': 'application/json', Vary: 'Authorization' };
    return operator ? c.body(documents.full, 200, { ...headers, 'Cache-Control': 'no-store' }) : c.body(documents.open, 200, headers);
  });
}

export function createApp(deps: AppDeps): App {
  const root: App = new OpenAPIHono<AppEnv>({ defaultHook: failValidation });

  root.use('*', deps.inFlight.middleware);
  root.use('*', requestId(deps.ids));
  // Before anything reads the body or counts the request: test mode's app does both itself.
  if (deps.testMode) root.use('*', testModeDispatch(deps.basePath, deps.testMode));
  // Before the method check, so a 405 is counted too.
  root.use('*', requestMetrics(deps.metrics.metrics));
  root.use(
    '*',
    methodNotAllowed({
      app: root,
      onMethodNotAllowed: (c, methods) => renderError(c, new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: methods.join(', ') } })),
    }),
  );
  root.use('*', accessLog(deps.logger));
  // The spec wants a malformed Idempotency-Key refused before the body is read.
  for (const path of IDEMPOTENT_PATHS) root.use(`${deps.basePath}${path}`, checkIdempotencyKeyFormat);
  root.use('*', limitBody);
  root.use('*', parseJsonBody);

  root.onError((error, c) => {
    if (error instanceof ApiError) {
      if (error.options.cause !== undefined)
        deps.logger.error({ requestId: c.get('requestId'), code: error.code, err: error.options.cause }, 'dependency failed');
      return renderError(c, error);
    }
    // The validators refuse a body that is not the route's JSON with an HTTPException: 400 for
    // an empty or blank body sent as application/json, 415 for another content type. Both are
    // the caller's error, and the spec's vocabulary for a body that is not JSON is MALFORMED_JSON.
    // The database cancelled a statement past the request path's timeout: a dependency timed out, and nothing was charged.
    if (isStatementTimeout(error)) {
      deps.logger.warn({ requestId: c.get('requestId'), err: error }, 'statement timeout on the request path');
      return renderError(
        c,
        new ApiError('UPSTREAM_TIMEOUT', { message: 'The database did not answer in time; nothing was charged. Retry shortly.' }),
      );
    }
    if (error instanceof HTTPException && (error.status === 400 || error.status === 415)) {
      return renderError(c, new ApiError('MALFORMED_JSON', error.status === 415 ? { message: NOT_JSON_CONTENT_TYPE } : {}));
    }
    deps.logger.error({ requestId: c.get('requestId'), err: error }, 'unhandled error');
    return renderError(c, new ApiError('INTERNAL_ERROR'));
  });
  root.notFound((c) => renderError(c, new ApiError('ROUTE_NOT_FOUND')));

  // Deep health and the root document show more to a caller presenting ADMIN_TOKEN.
  const isOperator = operatorCheck(deps.admin.adminToken, deps.admin.attempts, (text) => deps.apiKeyGate.keyMode(text) !== undefined);

  const api: App = new OpenAPIHono<AppEnv>({ defaultHook: failValidation });
  registerGetHealth(api, deps.health, { isOperator, limit: publicRateLimit(deps.publicRateLimit, 'health') });
  registerGetCourts(api, deps.publicRateLimit);
  registerGetCaseTypes(api, deps.publicRateLimit);
  registerGetCoverage(api, deps.coverage);
  const keyed = requireApiKey(deps.apiKeyGate);
  registerGetMe(api, keyed);
  registerGetAudit(api, keyed, deps.audit);
  registerGetUsage(api, keyed, deps.usage);
  const r = deps.research;
  // A reply stored for retries commits with the call's audit row, so both use the gate's recorder.
  const once = idempotent(r.idempotency, deps.apiKeyGate.audit.recorder);
  const priced = { admission: r.admission, links: { topUpUrl: r.topUpUrl, upgradeUrl: deps.analysis.upgradeUrl } };
  registerPostSearchCases(api, keyed, once, { links: priced.links, searches: r.searchPages, clock: r.clock });
  registerPostSearchCasesSemantic(api, keyed, once, { links: priced.links, searches: r.searchPages, clock: r.clock });
  registerGetJudgesSearch(api, keyed, { ...priced, judges: r.judges });
  registerGetCasePdf(api, keyed, { ...priced, cases: r.cases, documents: r.documents, clock: r.clock });
  registerGetCase(api, keyed, { ...priced, cases: r.cases, markedJson: r.markedJson });
  // Analyses carry the same per-account watermark as case text.
  const analysis = { ...deps.analysis, watermark: r.watermark };
  registerGetCaseAnalysis(api, keyed, { ...analysis, ...priced });
  registerPostCaseAnalyze(api, keyed, once, analysis);
  registerPostCaseAnalyzeConsolidated(api, keyed, once, analysis);
  registerPartyRoutes(api, keyed, once, deps.screening);
  registerTimelineRoutes(api, keyed, once, deps.timeline);
  registerGetEvents(api, keyed, deps.events);
  registerGetEvent(api, keyed, deps.events);
  registerEventWebhooks(api);
  registerKeyedWebhookRoutes(api, keyed, deps.webhookApi);
  if (r.documentLinks) {
    // Signed links need no key; the per-address limit keeps the download route from being a free amplifier.
    api.use('/documents/*', publicRateLimit(deps.publicRateLimit, 'documents'));
    registerGetDocument(api, { links: r.documentLinks, documents: r.documents, clock: r.clock });
  }

  api.openAPIRegistry.registerComponent('securitySchemes', 'ApiKeyHeader', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  api.openAPIRegistry.registerComponent('securitySchemes', 'BearerKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer <API_KEY>',
  });

  serveDocument(api, () =>
    declareResponseHeaders(
      api.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Court Records Research API',
          version: deps.version,
          description: 'Research API over Indian court records. Prices are in credits (10 credits = Rs 1).',
        },
        servers: [{ url: deps.basePath }],
      }),
      DOCUMENTED_LIMITS,
    ),
  );
  root.route(deps.basePath, api);
  // Slows password guessing: login answers at most PUBLIC_RATE_LIMIT_PER_MINUTE per address.
  root.use('/api/settings/login', publicRateLimit(deps.publicRateLimit, 'login'));
  registerSettingsRoutes(root, deps.settings);
  // The dashboard's login form is limited like the JSON login; showing the form is not.
  const dashboardLoginLimit = publicRateLimit(deps.publicRateLimit, 'login');
  const limitLoginPosts: MiddlewareHandler<AppEnv> = (c, next) => (c.req.method === 'POST' ? dashboardLoginLimit(c, next) : next());
  root.use('/dashboard/login', limitLoginPosts);
  registerDashboard(root, { ...deps.dashboard, logger: deps.logger });
  registerAdminRoutes(root, deps.admin);
  // The codec login form takes the admin token: limited per address like the dashboard login.
  root.use('/ops/temporal-codec/session', publicRateLimit(deps.publicRateLimit, 'login'));
  registerTemporalCodec(root, deps.temporalCodec);
  registerGetMetrics(root, deps.metrics);
  // The whole surface (API, settings, and for the operator admin and ops) with full paths, for tooling; /docs shows the API.
  serveRootDocument(
    root,
    () =>
      declareResponseHeaders(
        root.getOpenAPI31Document({
          openapi: '3.1.0',
          info: { title: 'Court Records Research API: API, dashboard and admin routes', version: deps.version },
          servers: [{ url: '/' }],
        }),
        DOCUMENTED_LIMITS,
      ),
    isOperator,
  );
  registerDocs(root, { openApiUrl: `${deps.basePath}/openapi.json`, scalarBundle: deps.scalarBundle });
  return root;
}
