/**
 * /dashboard/billing and /dashboard/billing/plans: where a 402's topUpUrl and a tier
 * refusal's upgradeUrl send callers (TOP_UP_URL and UPGRADE_URL default here). There is
 * no payment integration: credits and plan changes are granted by an operator, and the
 * pages say so, with what to send them. Nothing here writes anything.
 */
import type { Hono } from 'hono';
import { html } from 'hono/html';
import { billingAccountOf, type CreditsService } from '../../../application/credits/credits-service.ts';
import { permits } from '../../../application/sessions/session-service.ts';
import { TIER_FEATURES, TIER_LIMITS, TIER_NAMES, TIERS, type TierFeatures, type TierLimits } from '../../../domain/access/tiers.ts';
import { priceList } from '../../../domain/credits/prices.ts';
import type { Clock } from '../../../ports/clock.ts';
import { integer, page } from './layout-support.ts';
import { recentMonths, statementPath } from './statement-support.ts';
import { DASHBOARD_PATH, type DashboardEnv } from './session-support.ts';

export interface BillingPageDeps {
  readonly credits: CreditsService;
  readonly clock: Clock;
}

const FEATURES: readonly [keyof TierFeatures, string][] = [
  ['semanticSearch', 'Semantic search'],
  ['aiAnalysis', 'AI analysis'],
  ['liveFetch', 'Live court-portal fetches'],
  ['batchScreening', 'Batch litigation checks'],
];

const LIMITS: readonly [keyof TierLimits, string][] = [
  ['requestsPerMinute', 'Requests per minute per key'],
  ['maxPageSize', 'Results per search page'],
  ['pdfLinksPerMonth', 'PDF links per month'],
  ['distinctCaseDetailsPerDay', 'Distinct case details per day'],
  ['concurrentAnalyses', 'Analyses at once'],
  ['apiKeys', 'Live API keys per user'],
];

export function registerBillingPages(app: Hono<DashboardEnv>, deps: BillingPageDeps): void {
  app.get('/billing', async (c) => {
    const { user, csrfToken } = c.get('session');
    const accountId = billingAccountOf(user);
    // Records expiries that fell due on an idle account, so the balance shown is the ledger's.
    const balance = await deps.credits.expireDue(accountId);
    const prices = priceList().map(
      (p) =>
        html`<tr>
          <td>${p.method} <code>${p.path}</code></td>
          <td>${p.price}</td>
        </tr>`,
    );
    const content = html`<section>
        <h2>Balance</h2>
        <p><span class="balance" data-testid="balance">${integer(balance.balance)}</span> credits (Rs ${integer(balance.balance / 10)})</p>
        <p class="muted">
          Billing account <code data-testid="billing-account">${accountId}</code> · plan ${TIER_NAMES[user.tier]} ·
          <a href="${DASHBOARD_PATH}/billing/plans">compare plans</a>
        </p>
      </section>
      <section>
        <h2>Top up</h2>
        <p>
          Credits are added by an operator: there is no card payment in the dashboard yet. To top up, write to your account manager (or your
          operator's support address) with
        </p>
        <ul>
          <li>the billing account id <code>${accountId}</code>,</li>
          <li>the number of credits you want (10 credits = Rs 1),</li>
          <li>and your payment's reference (bank UTR or payment id) or your purchase order number.</li>
        </ul>
        <p>
          The operator grants them with <code>court-records admin credits grant</code>; they are spendable at once and appear as a
          <code>CreditsGranted</code> entry, with the payment's reference, on the <a href="${DASHBOARD_PATH}/ledger">Credits</a> page. A
          call refused with 402 <code>INSUFFICIENT_API_CREDITS</code> charged nothing: retry it after the top-up.
        </p>
      </section>
      <section>
        <h2>Monthly statements</h2>
        ${
          permits(c.get('session'), 'ledger.view')
            ? html`<p class="muted">Statements of the organisation's credits are available to its admins.</p>`
            : html`<p class="muted">Months in India Standard Time; the current month is the statement so far.</p>
                <table data-testid="statements">
                  <tbody>
                    ${recentMonths(deps.clock.now()).map(
                      (month) =>
                        html`<tr>
                          <td>${month}</td>
                          <td><a href="${statementPath(accountId, month, 'pdf')}" download>PDF</a></td>
                          <td><a href="${statementPath(accountId, month, 'csv')}" download>CSV</a></td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
        }
      </section>
      <section>
        <h2>Prices</h2>
        <table>
          <thead>
            <tr>
              <th>Call</th>
              <th>Price</th>
            </tr>
          </thead>
          <tbody>
            ${prices}
          </tbody>
        </table>
      </section>`;
    return c.html(page({ title: 'Billing', section: 'billing', user, csrfToken }, content));
  });

  app.get('/billing/plans', (c) => {
    const { user, csrfToken } = c.get('session');
    const cell = (value: number | null | boolean) =>
      typeof value === 'boolean' ? (value ? 'yes' : '–') : value === null ? 'unlimited' : integer(value);
    const head = TIERS.map(
      (tier) => html`<th class="num">${TIER_NAMES[tier]}${tier === user.tier ? html`<br /><span class="muted">your plan</span>` : ''}</th>`,
    );
    const rows = [
      ...FEATURES.map(
        ([feature, label]) =>
          html`<tr>
            <td>${label}</td>
            ${TIERS.map((t) => html`<td class="num">${cell(TIER_FEATURES[t][feature])}</td>`)}
          </tr>`,
      ),
      ...LIMITS.map(
        ([limit, label]) =>
          html`<tr>
            <td>${label}</td>
            ${TIERS.map((t) => html`<td class="num">${cell(TIER_LIMITS[t][limit])}</td>`)}
          </tr>`,
      ),
    ];
    const content = html`<section>
        <p>
          You are on <strong data-testid="current-plan">${TIER_NAMES[user.tier]}</strong>. Your account may carry limits agreed with us
          beyond these defaults.
        </p>
        <table data-testid="plans">
          <thead>
            <tr>
              <th></th>
              ${head}
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>
      </section>
      <section>
        <h2>Change plan</h2>
        <p>
          Plans are changed by an operator. Write to your account manager with your billing account id
          <code>${billingAccountOf(user)}</code> and the plan you want. API access itself is on the plans your operator enables (by default
          Enterprise).
        </p>
        <p><a href="${DASHBOARD_PATH}/billing">Back to billing</a></p>
      </section>`;
    return c.html(page({ title: 'Plans', section: 'billing', user, csrfToken }, content));
  });
}
