/**
 * The dashboard for account holders under /dashboard: HTML pages rendered on the server
 * over the same application services as the JSON API (sessions, account commands, the
 * credit ledger, the audit trail), registered in one explicit list. The pages are not in
 * either OpenAPI document: they are HTML for people, not part of the API contract.
 *
 * Every answer carries a CSP that allows no script at all and only our own stylesheet,
 * refuses framing (frame-ancestors 'none', X-Frame-Options DENY) and is never cached:
 * pages show balances and, once, a plaintext key.
 */
import { Hono, type Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { Logger } from 'pino';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { AuditQueries } from '../../../application/audit/audit-queries.ts';
import type { UsageByDay } from '../../../application/audit/usage-by-day.ts';
import type { CreditsService } from '../../../application/credits/credits-service.ts';
import type { ExportRange, LedgerRow } from '../../../application/credits/ledger-export.ts';
import type { SessionService } from '../../../application/sessions/session-service.ts';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import type { MonthClose, MonthWindow } from '../../../domain/credits/close.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerAuditPage } from './audit.ts';
import { registerBillingPages } from './billing.ts';
import { registerKeysPages } from './keys.ts';
import { STYLESHEET } from './layout-support.ts';
import { registerLedgerPages } from './ledger.ts';
import { registerLoginPages, registerLogoutPage } from './login.ts';
import { DASHBOARD_PATH, requireSession, type DashboardEnv } from './session-support.ts';
import { registerStatementRoutes } from './statements.ts';
import { registerUsagePage } from './usage.ts';
import { registerWebhooksPage } from './webhooks.ts';

export interface DashboardDeps {
  readonly sessions: SessionService;
  readonly accounts: AccountsService;
  readonly credits: CreditsService;
  /** The ledger entries of a range with running balances (exportLedger over the database). */
  readonly ledger: (range: ExportRange) => AsyncIterable<LedgerRow>;
  /** The month-end close of one account, for its statements (closeMonth over the database). */
  readonly statement: (window: MonthWindow, accountId: string) => Promise<MonthClose>;
  readonly statementPdf: (title: string, lines: readonly string[]) => Promise<Uint8Array>;
  readonly audit: AuditQueries;
  readonly usage: UsageByDay;
  readonly webhooks: WebhookEndpoints;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Believe X-Forwarded-Proto (for the cookie's Secure flag): only behind our own proxy. */
  readonly trustProxy: boolean;
  /** The client's address, for counting failed logins. */
  readonly clientAddress: (c: Context<AppEnv>) => string;
}

const headers = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    styleSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'same-origin',
});

export function registerDashboard(root: App, deps: DashboardDeps): void {
  const dashboard = new Hono<DashboardEnv>();
  dashboard.use('*', headers, async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });
  dashboard.get('/assets/dashboard.css', (c) =>
    c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
  );
  const login = new Hono<AppEnv>();
  registerLoginPages(login, deps);
  dashboard.route('/', login);
  registerLogoutPage(dashboard, deps);

  const pages = new Hono<DashboardEnv>();
  pages.use('*', requireSession(deps.sessions, 'dashboard.view', deps.trustProxy));
  pages.get('/', (c) => c.redirect(`${DASHBOARD_PATH}/keys`, 303));
  registerKeysPages(pages, deps);
  registerUsagePage(pages, deps);
  registerLedgerPages(pages, deps);
  registerAuditPage(pages, { queries: deps.audit, logger: deps.logger });
  registerWebhooksPage(pages, deps);
  registerBillingPages(pages, deps);
  registerStatementRoutes(pages, deps);
  dashboard.route('/', pages);

  root.route(DASHBOARD_PATH, dashboard);
}
