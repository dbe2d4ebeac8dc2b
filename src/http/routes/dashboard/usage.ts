/**
 * /dashboard/usage: calls per endpoint per UTC day over the last 30 days, from the audit
 * trail in the analytics store (rows arrive within seconds of a call), as a chart and a
 * table. Scope follows GET /audit: a MEMBER sees their own calls, an ORG_ADMIN the
 * organisation's. The eight busiest endpoints get a series each; the rest share "other".
 */
import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { DailyEndpointUsage, UsageByDay } from '../../../application/audit/usage-by-day.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { Logger } from 'pino';
import { integer, page } from './layout-support.ts';
import { auditScopeOf, type DashboardEnv } from './session-support.ts';
import { daysBetween, SERIES_COLOURS, usageChart } from './usage-chart-support.ts';

export interface UsagePageDeps {
  readonly usage: UsageByDay;
  readonly clock: Clock;
  readonly logger: Logger;
}

const DAYS = 30;
const OTHER = 'other';

/** The busiest endpoints, one series each, and the rest folded into one. */
function series(usage: readonly DailyEndpointUsage[]): { endpoints: string[]; usage: DailyEndpointUsage[] } {
  const totals = new Map<string, number>();
  for (const u of usage) totals.set(u.endpoint, (totals.get(u.endpoint) ?? 0) + u.calls);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([endpoint]) => endpoint);
  if (ranked.length <= SERIES_COLOURS.length) return { endpoints: ranked, usage: [...usage] };
  const kept = new Set(ranked.slice(0, SERIES_COLOURS.length - 1));
  const folded = new Map<string, DailyEndpointUsage>();
  for (const u of usage) {
    const endpoint = kept.has(u.endpoint) ? u.endpoint : OTHER;
    const key = `${u.day} ${endpoint}`;
    const before = folded.get(key);
    folded.set(key, { day: u.day, endpoint, calls: (before?.calls ?? 0) + u.calls, credits: (before?.credits ?? 0) + u.credits });
  }
  return { endpoints: [...kept, OTHER], usage: [...folded.values()] };
}

export function registerUsagePage(app: Hono<DashboardEnv>, deps: UsagePageDeps): void {
  app.get('/usage', async (c) => {
    const { user, csrfToken } = c.get('session');
    const now = deps.clock.now();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (DAYS - 1)));
    const title = { title: 'Usage', section: 'usage', user, csrfToken } as const;
    const scope = auditScopeOf(user);
    let read: DailyEndpointUsage[];
    try {
      read = await deps.usage.read(scope, from, new Date(now.getTime() + 1));
    } catch (err) {
      deps.logger.error({ requestId: c.get('requestId'), err }, 'dashboard usage read failed');
      return c.html(page(title, html`<p class="error" role="alert">The usage store did not respond; retry shortly.</p>`), 502);
    }
    const { endpoints, usage } = series(read);
    const days = daysBetween(from, now);
    const totals = endpoints.map((endpoint) => {
      const rows = usage.filter((u) => u.endpoint === endpoint);
      return { endpoint, calls: rows.reduce((s, u) => s + u.calls, 0), credits: rows.reduce((s, u) => s + u.credits, 0) };
    });
    const legend = endpoints.map((endpoint, i) => html`<span><i class="swatch s${i}"></i>${endpoint}</span>`);
    const content = html`<section>
        <h2>Calls per day, last ${DAYS} days (UTC)</h2>
        <p class="muted">
          ${'organizationId' in scope ? 'All calls of your organisation.' : 'Your calls.'} Calls appear here within a few seconds.
        </p>
        ${
          usage.length === 0
            ? html`<p class="muted" data-testid="no-usage">No calls in this period.</p>`
            : html`<div class="legend">${legend}</div>
                ${usageChart(days, endpoints, usage)}`
        }
      </section>
      <section>
        <h2>By endpoint</h2>
        <table data-testid="usage-table">
          <thead>
            <tr>
              <th>Endpoint</th>
              <th class="num">Calls</th>
              <th class="num">Credits</th>
            </tr>
          </thead>
          <tbody>
            ${totals.map(
              (t) =>
                html`<tr>
                  <td><code>${t.endpoint}</code></td>
                  <td class="num">${integer(t.calls)}</td>
                  <td class="num">${integer(t.credits)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>`;
    return c.html(page(title, content));
  });
}
