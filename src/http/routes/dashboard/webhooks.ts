/**
 * /dashboard/webhooks: the account's webhook endpoints, over the same application service
 * as /api/settings/webhooks: register one (its signing secret shown once), rotate its
 * secret (the old one keeps signing beside the new for 24 hours), remove it, send it a test
 * event, and see each endpoint's latest deliveries with their attempts, each resendable.
 */
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { billingAccountOf } from '../../../application/credits/credits-service.ts';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEndpointsError, type WebhookEventType } from '../../../domain/webhook/webhook-endpoints.ts';
import type { ExtraDeliveryRefusal } from '../../../application/webhooks/webhook-endpoints.ts';
import { extraDeliveryError, webhookError } from '../settings/webhook-schemas.ts';
import { csrfInput, page, type Html } from './layout-support.ts';
import { csrfRefused, DASHBOARD_PATH, formWithCsrf, requirePermission, type DashboardEnv } from './session-support.ts';

/** Latest deliveries shown per endpoint; GET /api/settings/webhooks/{id}/deliveries pages further. */
const DELIVERIES_SHOWN = 5;
const EVENT_FIELD = 'event:';

type Outcome =
  | { kind: 'secret'; title: string; secret: string }
  | { kind: 'removed' }
  | { kind: 'enabled' }
  | { kind: 'queued'; what: string }
  | { kind: 'refused'; message: string; status: 400 | 403 | 404 };

function outcomeBox(outcome: Outcome | undefined): Html | string {
  if (outcome === undefined) return '';
  switch (outcome.kind) {
    case 'secret':
      return html`<section class="notice" data-testid="new-secret">
        <h2>${outcome.title}</h2>
        <p>Copy this signing secret now. It is shown this once; verify deliveries with it (the SDK's verifyWebhook).</p>
        <code class="key" data-testid="webhook-secret">${outcome.secret}</code>
      </section>`;
    case 'removed':
      return html`<p class="notice" role="status">Endpoint removed: it receives nothing more.</p>`;
    case 'enabled':
      return html`<p class="notice" role="status">Endpoint enabled: events from now on are delivered to it.</p>`;
    case 'queued':
      return html`<p class="notice" role="status" data-testid="delivery-queued">${outcome.what} queued: it appears below as pending.</p>`;
    case 'refused':
      return html`<p class="error" role="alert">${outcome.message}</p>`;
  }
}

function refusal(error: WebhookEndpointsError): Extract<Outcome, { kind: 'refused' }> {
  const mapped = webhookError(error);
  const details = mapped.options.details?.join('; ');
  const status = mapped.status === 403 || mapped.status === 404 ? mapped.status : 400;
  return { kind: 'refused', message: details ? `${mapped.message} ${details}` : mapped.message, status };
}

function extraRefusal(error: ExtraDeliveryRefusal): Extract<Outcome, { kind: 'refused' }> {
  const mapped = extraDeliveryError(error);
  return { kind: 'refused', message: mapped.message, status: mapped.status === 404 ? 404 : 400 };
}

export function registerWebhooksPage(app: Hono<DashboardEnv>, deps: { readonly webhooks: WebhookEndpoints }): void {
  const render = async (c: Context<DashboardEnv>, outcome?: Outcome, status: 200 | 201 | 400 | 403 | 404 = 200) => {
    const { user, csrfToken } = c.get('session');
    const account = billingAccountOf(user);
    const endpoints = await deps.webhooks.list(account);
    const sections = await Promise.all(
      endpoints.map(async (endpoint) => {
        const deliveries = (await deps.webhooks.deliveries(account, endpoint.id, DELIVERIES_SHOWN)) ?? [];
        const action = (verb: 'rotate' | 'remove' | 'enable' | 'test', label: string, css: string) =>
          html`<form class="inline" method="post" action="${DASHBOARD_PATH}/webhooks/${endpoint.id}/${verb}">
            ${csrfInput(csrfToken)}<button class="${css}" type="submit">${label}</button>
          </form>`;
        return html`<section data-endpoint-id="${endpoint.id}">
          <h2><code>${endpoint.url}</code></h2>
          <p>
            ${endpoint.mode === 'test' ? html`<span class="muted">test mode</span> · ` : ''}${endpoint.eventTypes.join(', ')} · secret
            <code>${endpoint.secretHint}</code> · since ${endpoint.createdAt.slice(0, 10)}
          </p>
          ${
            endpoint.disabled
              ? html`<p class="error" role="alert" data-testid="endpoint-disabled">
                    Disabled on ${endpoint.disabled.at.replace('T', ' ').slice(0, 16)} UTC: ${endpoint.disabled.reason}. Nothing is sent
                    until you enable it.
                  </p>
                  ${action('enable', 'Enable', 'secondary')}`
              : ''
          }
          ${action('test', 'Send test event', 'secondary')} ${action('rotate', 'Rotate secret', 'secondary')}
          ${action('remove', 'Remove', 'danger')}
          ${
            deliveries.length === 0
              ? html`<p class="muted">No deliveries yet.</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th>Event</th>
                      <th>Status</th>
                      <th class="num">Attempts</th>
                      <th>Last outcome</th>
                      <th>Created</th>
                      <th></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${deliveries.map(
                      (d) =>
                        html`<tr>
                          <td>${d.eventType}</td>
                          <td>${d.status}</td>
                          <td class="num">${d.attempts}</td>
                          <td>${d.lastOutcome ?? ''}</td>
                          <td>${d.createdAt.replace('T', ' ').slice(0, 19)}</td>
                          <td>
                            <form class="inline" method="post" action="${DASHBOARD_PATH}/webhooks/deliveries/${d.id}/resend">
                              ${csrfInput(csrfToken)}<button class="secondary" type="submit">Resend</button>
                            </form>
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }
        </section>`;
      }),
    );
    const checkboxes = WEBHOOK_EVENT_TYPES.map(
      (type) => html`<label class="inline"><input type="checkbox" name="${EVENT_FIELD}${type}" value="on" checked /> ${type}</label>`,
    );
    const content = html`${outcomeBox(outcome)}
      <section>
        <h2>Register an endpoint</h2>
        <form method="post" action="${DASHBOARD_PATH}/webhooks">
          ${csrfInput(csrfToken)}<label for="url">HTTPS URL</label>
          <input id="url" type="url" name="url" maxlength="2048" required placeholder="https://hooks.example.in/court-records" />
          <fieldset>
            <legend>Events</legend>
            ${checkboxes}
          </fieldset>
          <label for="mode">Mode</label>
          <select id="mode" name="mode">
            <option value="live" selected>Live: the account's live events</option>
            <option value="test">Test: events of calls made with crk_test keys</option>
          </select>
          <button type="submit">Register</button>
        </form>
        <p class="muted">
          Deliveries are signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature) and retried with backoff for
          about 17 hours. See the customer guide's Webhooks section.
        </p>
      </section>
      ${sections.length === 0 ? html`<p class="muted">No endpoints yet.</p>` : sections}`;
    return c.html(page({ title: 'Webhooks', section: 'webhooks', user, csrfToken }, content), status);
  };

  app.get('/webhooks', requirePermission('webhooks.list'), (c) => render(c));

  app.post('/webhooks', requirePermission('webhooks.create'), async (c) => {
    const form = await formWithCsrf(c);
    if (form === undefined) return csrfRefused(c);
    const eventTypes: WebhookEventType[] = WEBHOOK_EVENT_TYPES.filter((type) => form[`${EVENT_FIELD}${type}`] === 'on');
    const mode = form.mode ?? 'live';
    if (mode !== 'live' && mode !== 'test')
      return render(c, { kind: 'refused', message: 'An endpoint is live or test.', status: 400 }, 400);
    const result = await deps.webhooks.register(
      billingAccountOf(c.get('session').user),
      { url: (form.url ?? '').trim(), eventTypes, mode },
      c.get('requestId'),
    );
    if (!result.ok) {
      const refused = refusal(result.error);
      return render(c, refused, refused.status);
    }
    return render(c, { kind: 'secret', title: `Endpoint registered: ${result.value.url}`, secret: result.value.secret }, 201);
  });

  app.post('/webhooks/:id/rotate', requirePermission('webhooks.rotateSecret'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.webhooks.rotateSecret(billingAccountOf(c.get('session').user), c.req.param('id'), c.get('requestId'));
    if (!result.ok) {
      const refused = refusal(result.error);
      return render(c, refused, refused.status);
    }
    return render(c, {
      kind: 'secret',
      title: 'Secret rotated: the old one keeps signing beside it for 24 hours',
      secret: result.value.secret,
    });
  });

  app.post('/webhooks/:id/enable', requirePermission('webhooks.enable'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.webhooks.enable(billingAccountOf(c.get('session').user), c.req.param('id'));
    if (!result.ok) {
      const refused = refusal(result.error);
      return render(c, refused, refused.status);
    }
    return render(c, { kind: 'enabled' });
  });

  app.post('/webhooks/:id/remove', requirePermission('webhooks.remove'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.webhooks.remove(billingAccountOf(c.get('session').user), c.req.param('id'), c.get('requestId'));
    if (!result.ok) {
      const refused = refusal(result.error);
      return render(c, refused, refused.status);
    }
    return render(c, { kind: 'removed' });
  });

  app.post('/webhooks/:id/test', requirePermission('webhooks.sendTest'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.webhooks.sendTest(billingAccountOf(c.get('session').user), c.req.param('id'));
    if (!result.ok) {
      const refused = extraRefusal(result.error);
      return render(c, refused, refused.status);
    }
    return render(c, { kind: 'queued', what: `A test ${result.value.eventType} event` });
  });

  app.post('/webhooks/deliveries/:id/resend', requirePermission('webhooks.resend'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.webhooks.resend(billingAccountOf(c.get('session').user), c.req.param('id'));
    if (!result.ok) {
      const refused = extraRefusal(result.error);
      return render(c, refused, refused.status);
    }
    return render(c, { kind: 'queued', what: `A resend of the ${result.value.eventType} event` });
  });
}
