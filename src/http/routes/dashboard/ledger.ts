/**
 * /dashboard/ledger and /dashboard/ledger.csv: the balance and every ledger entry of the
 * billing account with its running balance, read from the same fold as `finance export`.
 * Who sees entries: a user without an organisation (their own account) and an ORG_ADMIN
 * (the organisation's). A MEMBER sees the shared balance only, since the organisation's
 * entries name colleagues' calls, as GET /audit keeps a member to their own rows. The CSV
 * leaves out the global event position (it would reveal the service's volume) and the lots.
 */
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { billingAccountOf, type CreditsService } from '../../../application/credits/credits-service.ts';
import type { ExportRange, LedgerRow } from '../../../application/credits/ledger-export.ts';
import { permits } from '../../../application/sessions/session-service.ts';
import type { Clock } from '../../../ports/clock.ts';
import { integer, page } from './layout-support.ts';
import { DASHBOARD_PATH, type DashboardEnv } from './session-support.ts';
import { csvField } from '../../../domain/csv.ts';

export interface LedgerPageDeps {
  readonly credits: CreditsService;
  /** The ledger entries of a range with running balances (exportLedger over the database). */
  readonly ledger: (range: ExportRange) => AsyncIterable<LedgerRow>;
  readonly clock: Clock;
}

/** The columns a customer gets, in order: the entry's number within the account first. */
export const LEDGER_CSV_COLUMNS = [
  'streamPosition',
  'recordedAt',
  'type',
  'amount',
  'balanceChange',
  'balance',
  'reserved',
  'source',
  'grantId',
  'chargeId',
  'reservationId',
  'requestRef',
  'note',
  'expiresAt',
  'paymentReference',
] as const satisfies readonly (keyof LedgerRow)[];

/** Entries shown on the page, newest first; the CSV holds them all. */
const PAGE_ENTRIES = 200;

/** The whole ledger: the range export folds from the first entry anyway. */
const ALL_TIME: Omit<ExportRange, 'accountId'> = { from: new Date(0), to: new Date('9999-12-31T00:00:00Z') };

export const csvLine = (values: readonly (string | number | null)[]): string => `${values.map(csvField).join(',')}\r\n`;

export function registerLedgerPages(app: Hono<DashboardEnv>, deps: LedgerPageDeps): void {
  const forbidden = (c: Context<DashboardEnv>) => {
    const { user, csrfToken } = c.get('session');
    const content = html`<section>
      <p class="error">The organisation’s ledger is shown to its admins only. Your balance is on the Billing page.</p>
    </section>`;
    return c.html(page({ title: 'Credits', section: 'ledger', user, csrfToken }, content), 403);
  };

  app.get('/ledger', async (c) => {
    const { user, csrfToken } = c.get('session');
    if (permits(c.get('session'), 'ledger.view')) return forbidden(c);
    const accountId = billingAccountOf(user);
    // Records expiries that fell due on an idle account, so the entries end at the balance shown.
    const balance = await deps.credits.expireDue(accountId);
    const recent: LedgerRow[] = [];
    let total = 0;
    for await (const row of deps.ledger({ ...ALL_TIME, accountId })) {
      total += 1;
      recent.push(row);
      if (recent.length > PAGE_ENTRIES) recent.shift();
    }
    const rows = recent.reverse().map(
      (r) =>
        html`<tr>
          <td class="num">${r.streamPosition}</td>
          <td>${r.recordedAt.replace('T', ' ').slice(0, 19)}</td>
          <td>${r.type}</td>
          <td class="num">${r.balanceChange > 0 ? '+' : ''}${integer(r.balanceChange)}</td>
          <td class="num">${integer(r.balance)}</td>
          <td class="num">${integer(r.reserved)}</td>
          <td>
            <code>${r.chargeId ?? r.grantId ?? r.reservationId ?? ''}</code
            >${r.paymentReference === null ? '' : html`<br />Payment <code data-testid="payment-reference">${r.paymentReference}</code>`}${
              r.note === null ? '' : html`<br /><span class="muted">${r.note}</span>`
            }
          </td>
        </tr>`,
    );
    const content = html`<section>
        <h2>Balance</h2>
        <p>
          <span class="balance" data-testid="balance">${integer(balance.balance)}</span> credits spendable
          ${balance.reserved > 0 ? html`· ${integer(balance.reserved)} held by calls still running` : ''}
        </p>
        <p class="muted">Billing account <code>${accountId}</code>. 10 credits = Rs 1. <a href="${DASHBOARD_PATH}/billing">Top up</a></p>
      </section>
      <section>
        <h2>Ledger</h2>
        <p><a href="${DASHBOARD_PATH}/ledger.csv" download>Export CSV</a> (all ${total} entries, with running balances)</p>
        ${total > PAGE_ENTRIES ? html`<p class="muted">Showing the latest ${PAGE_ENTRIES} entries.</p>` : ''}
        <table data-testid="ledger">
          <thead>
            <tr>
              <th class="num">#</th>
              <th>Recorded (UTC)</th>
              <th>Entry</th>
              <th class="num">Change</th>
              <th class="num">Balance</th>
              <th class="num">Held</th>
              <th>Reference</th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>
      </section>`;
    return c.html(page({ title: 'Credits', section: 'ledger', user, csrfToken }, content));
  });

  app.get('/ledger.csv', async (c) => {
    const { user } = c.get('session');
    if (permits(c.get('session'), 'ledger.view')) return forbidden(c);
    const accountId = billingAccountOf(user);
    await deps.credits.expireDue(accountId);
    const rows = deps.ledger({ ...ALL_TIME, accountId })[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    // Streamed: an account's whole history is never held in memory at once.
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode(csvLine(LEDGER_CSV_COLUMNS))),
      pull: async (controller) => {
        const next = await rows.next();
        if (next.done === true) controller.close();
        else controller.enqueue(encoder.encode(csvLine(LEDGER_CSV_COLUMNS.map((column) => next.value[column]))));
      },
    });
    const day = deps.clock.now().toISOString().slice(0, 10);
    return c.body(body, 200, {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="ledger-${accountId}-${day}.csv"`,
    });
  });
}
