/**
 * /dashboard/audit: the audit trail, newest first, 50 rows a page, in GET /audit's scope (a
 * MEMBER their own calls, an ORG_ADMIN the organisation's). The per-call detail a route
 * records is left out: GET /audit shows it on the caller's own rows only, and the page
 * gains nothing from it.
 */
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { AuditQueries } from '../../../application/audit/audit-queries.ts';
import type { Logger } from 'pino';
import { integer, page } from './layout-support.ts';
import { auditScopeOf, DASHBOARD_PATH, type DashboardEnv } from './session-support.ts';

export interface AuditPageDeps {
  readonly queries: AuditQueries;
  readonly logger: Logger;
}

const PER_PAGE = 50;

export function registerAuditPage(app: Hono<DashboardEnv>, deps: AuditPageDeps): void {
  app.get('/audit', async (c) => {
    const { user, csrfToken } = c.get('session');
    const requested = Number.parseInt(c.req.query('page') ?? '1', 10);
    const pageNumber = Number.isSafeInteger(requested) && requested >= 1 && requested <= 10_000 ? requested : 1;
    const scope = auditScopeOf(user);
    const frame = { title: 'Audit', section: 'audit', user, csrfToken } as const;
    let rows, summary;
    try {
      [rows, summary] = await Promise.all([deps.queries.page(scope, PER_PAGE, (pageNumber - 1) * PER_PAGE), deps.queries.summary(scope)]);
    } catch (err) {
      deps.logger.error({ requestId: c.get('requestId'), err }, 'dashboard audit read failed');
      return c.html(page(frame, html`<p class="error" role="alert">The audit store did not respond; retry shortly.</p>`), 502);
    }
    const showUser = 'organizationId' in scope;
    const body = rows.map(
      (r) =>
        html`<tr>
          <td>${r.occurredAt.replace('T', ' ').slice(0, 19)}</td>
          <td>${r.method} <code>${r.endpoint}</code></td>
          <td class="num">${r.statusCode}</td>
          <td class="num">${r.responseTimeMs}</td>
          <td class="num">${r.creditsDeducted}</td>
          <td><code>${r.keyId}</code></td>
          ${showUser ? html`<td>${r.userId === user.userId ? 'you' : html`<code>${r.userId}</code>`}</td>` : ''}
          <td><code>${r.requestId}</code></td>
        </tr>`,
    );
    const pages = Math.max(1, Math.ceil(summary.totalRequests / PER_PAGE));
    const link = (n: number, label: string) => html`<a href="${DASHBOARD_PATH}/audit?page=${n}">${label}</a>`;
    const content = html`<section>
      <p>
        ${integer(summary.totalRequests)} calls, ${integer(summary.totalCreditsDeducted)} credits, ${integer(summary.errorCount)} errors,
        ${summary.averageResponseTimeMs} ms on average. ${showUser ? 'Every call of your organisation.' : 'Your calls.'}
      </p>
      <table data-testid="audit">
        <thead>
          <tr>
            <th>Time (UTC)</th>
            <th>Call</th>
            <th class="num">Status</th>
            <th class="num">ms</th>
            <th class="num">Credits</th>
            <th>Key</th>
            ${showUser ? html`<th>User</th>` : ''}
            <th>Request id</th>
          </tr>
        </thead>
        <tbody>
          ${body}
        </tbody>
      </table>
      <p>
        ${pageNumber > 1 ? link(pageNumber - 1, '← Newer') : ''} Page ${pageNumber} of ${pages}
        ${pageNumber < pages ? link(pageNumber + 1, 'Older →') : ''}
      </p>
    </section>`;
    return c.html(page(frame, content));
  });
}
