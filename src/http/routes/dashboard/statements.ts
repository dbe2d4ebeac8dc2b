/**
 * /dashboard/billing/statements/{accountId}/{YYYY-MM}.csv and .pdf: the monthly credit
 * statement of the session's own billing account (months in IST), from the same close
 * finance runs at month end. Any other account is refused (403) without saying whether it
 * exists. Who may download: whoever may see the ledger (a user without an organisation, or
 * the organisation's ORG_ADMIN). A statement whose ledger does not balance is not issued:
 * the page says finance is checking it, and the close names the difference to them.
 */
import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { html } from 'hono/html';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import { statementCsv, statementLines, statementTitle } from '../../../application/credits/statement.ts';
import { permits } from '../../../application/sessions/session-service.ts';
import { monthWindow, type MonthClose, type MonthWindow } from '../../../domain/credits/close.ts';
import type { Clock } from '../../../ports/clock.ts';
import { page } from './layout-support.ts';
import { type DashboardEnv } from './session-support.ts';

export interface StatementDeps {
  /** The month-end close of one account (closeMonth over the database). */
  readonly statement: (window: MonthWindow, accountId: string) => Promise<MonthClose>;
  /** A statement's title and lines as PDF bytes (adapters/pdf/render-statement-pdf.ts). */
  readonly statementPdf: (title: string, lines: readonly string[]) => Promise<Uint8Array>;
  readonly clock: Clock;
  readonly logger: Logger;
}

export function registerStatementRoutes(app: Hono<DashboardEnv>, deps: StatementDeps): void {
  const refuse = (c: Context<DashboardEnv>, status: 403 | 404 | 503, message: string) => {
    const { user, csrfToken } = c.get('session');
    const content = html`<section><p class="error">${message}</p></section>`;
    return c.html(page({ title: 'Statement', section: 'billing', user, csrfToken }, content), status);
  };

  app.get('/billing/statements/:accountId/:file', async (c) => {
    const session = c.get('session');
    const accountId = billingAccountOf(session.user);
    if (c.req.param('accountId') !== accountId || permits(session, 'ledger.view'))
      return refuse(c, 403, 'Statements are available for your own billing account only, to its owner or organisation admins.');
    const match = /^(\d{4}-\d{2})\.(csv|pdf)$/.exec(c.req.param('file'));
    const window = match ? monthWindow(match[1]!) : null;
    const now = deps.clock.now();
    if (!match || !window || window.from > now)
      return refuse(c, 404, 'No statement: ask for a month that has begun, as YYYY-MM.csv or .pdf.');
    const closed = await deps.statement(window, accountId);
    if (closed.differences.length > 0) {
      deps.logger.error(
        { accountId, month: window.month, differences: closed.differences },
        'statement refused: the ledger does not balance',
      );
      return refuse(c, 503, 'This statement cannot be issued right now: our finance team is checking the ledger. Please try again later.');
    }
    const account = closed.accounts[0] ?? closed.total;
    const close = { accountId, credits: [], ...account };
    const filename = `statement-${accountId}-${window.month}`;
    if (match[2] === 'csv') {
      return c.body(statementCsv(close), 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="${filename}.csv"`,
      });
    }
    const pdf = await deps.statementPdf(statementTitle(accountId, window), statementLines(close, window, window.to > now));
    return c.body(pdf.slice().buffer, 200, {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `attachment; filename="${filename}.pdf"`,
    });
  });
}
