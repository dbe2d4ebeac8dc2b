/**
 * /dashboard/keys: the keys the user may see (their own; an ORG_ADMIN's organisation's, as
 * GET /api/settings/api-keys), and forms to create, rotate and revoke through the same
 * account commands. A new key's plaintext is in the answer to the form post only, never in
 * a URL, a redirect or a log, and that answer is not cached (the dashboard sends no-store).
 */
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { AccountsService, AccountError } from '../../../application/accounts/accounts-service.ts';
import { actorFor } from '../../../application/sessions/session-service.ts';
import { keyStanding } from '../../../domain/api-key/api-key.ts';
import type { Clock } from '../../../ports/clock.ts';
import { accountError } from '../../account-errors.ts';
import { ApiError } from '../../api-error.ts';
import { csrfInput, page, type Html } from './layout-support.ts';
import { csrfRefused, DASHBOARD_PATH, formWithCsrf, requirePermission, type DashboardEnv } from './session-support.ts';

export interface KeysPageDeps {
  readonly accounts: AccountsService;
  readonly clock: Clock;
}

/** What the page says above the list after a form post. */
type Outcome =
  | { kind: 'created'; name: string; fullKey: string }
  | { kind: 'rotated'; name: string; fullKey: string; graceEndsAt: string }
  | { kind: 'revoked' }
  | { kind: 'refused'; message: string };

function outcomeBox(outcome: Outcome | undefined): Html | string {
  if (outcome === undefined) return '';
  switch (outcome.kind) {
    case 'created':
    case 'rotated':
      return html`<section class="notice" data-testid="new-key">
        <h2>${outcome.kind === 'created' ? 'Key created' : 'Key rotated'}: ${outcome.name}</h2>
        <p>Copy this key now. It is shown this once; the service keeps only a hash of it.</p>
        <code class="key" data-testid="plaintext-key">${outcome.fullKey}</code>
        ${
          outcome.kind === 'rotated'
            ? html`<p data-testid="grace">
                The previous key keeps working until <strong>${outcome.graceEndsAt}</strong> (24 hours), so deployments can switch without
                downtime.
              </p>`
            : ''
        }
      </section>`;
    case 'revoked':
      return html`<p class="notice" role="status">Key revoked: it stopped authenticating at once.</p>`;
    case 'refused':
      return html`<p class="error" role="alert">${outcome.message}</p>`;
  }
}

/** An account refusal as the page shows it; anything else (an id collision) is a defect and goes to the error handler. */
function refusal(error: AccountError): { message: string; status: 400 | 403 | 404 | 409 } {
  const mapped = accountError(error);
  if (!(mapped instanceof ApiError)) throw mapped;
  const { status } = mapped;
  if (status !== 400 && status !== 403 && status !== 404 && status !== 409) throw mapped;
  return { message: mapped.message, status };
}

export function registerKeysPages(app: Hono<DashboardEnv>, deps: KeysPageDeps): void {
  const render = async (c: Context<DashboardEnv>, outcome?: Outcome, status: 200 | 201 | 400 | 403 | 404 | 409 = 200) => {
    const { user, csrfToken } = c.get('session');
    const now = deps.clock.now().toISOString();
    const keys = await deps.accounts.listKeys(actorFor(user));
    const rows = keys.map((key) => {
      const graceEndsAt = key.graceEndsAt === null ? null : new Date(key.graceEndsAt).toISOString();
      const standing = keyStanding(key.status as 'active' | 'rotated' | 'revoked', graceEndsAt, now);
      const action = (verb: 'rotate' | 'revoke', label: string, css: string) =>
        html`<form class="inline" method="post" action="${DASHBOARD_PATH}/keys/${key.keyId}/${verb}">
          ${csrfInput(csrfToken)}<button class="${css}" type="submit">${label}</button>
        </form>`;
      return html`<tr data-key-id="${key.keyId}">
        <td>${key.name}</td>
        <td><code>${key.displayKey}</code>${key.mode === 'test' ? html` <span class="muted">test mode</span>` : ''}</td>
        <td class="status-${standing}">
          ${standing}${standing === 'grace' ? html`<br /><span class="muted">until ${graceEndsAt}</span>` : ''}
        </td>
        <td>${new Date(key.createdAt).toISOString().slice(0, 10)}</td>
        <td>${key.userId === user.userId ? 'you' : html`<code>${key.userId}</code>`}</td>
        <td>
          ${standing === 'active' ? action('rotate', 'Rotate', 'secondary') : ''}
          ${standing === 'active' || standing === 'grace' ? action('revoke', 'Revoke', 'danger') : ''}
        </td>
      </tr>`;
    });
    const content = html`${outcomeBox(outcome)}
      <section>
        <h2>Create a key</h2>
        <form method="post" action="${DASHBOARD_PATH}/keys">
          ${csrfInput(csrfToken)}<label for="name">Name</label>
          <input id="name" type="text" name="name" maxlength="120" required placeholder="Research notebook" />
          <label for="mode">Mode</label>
          <select id="mode" name="mode">
            <option value="live" selected>Live: spends credits on the live corpus</option>
            <option value="test">Test (crk_test): test mode, never charged</option>
          </select>
          <button type="submit">Create key</button>
        </form>
      </section>
      <section>
        <h2>${user.role === 'ORG_ADMIN' ? 'Keys of your organisation' : 'Your keys'}</h2>
        ${
          rows.length === 0
            ? html`<p class="muted">No keys yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Key</th>
                    <th>Status</th>
                    <th>Created</th>
                    <th>Owner</th>
                    <th></th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>`
        }
        <p class="muted">Send a key in <code>X-API-Key</code>. A rotated key keeps working for 24 hours; a revoked one stops at once.</p>
      </section>`;
    return c.html(page({ title: 'API keys', section: 'keys', user, csrfToken }, content), status);
  };

  app.get('/keys', requirePermission('keys.list'), (c) => render(c));

  app.post('/keys', requirePermission('keys.create'), async (c) => {
    const form = await formWithCsrf(c);
    if (form === undefined) return csrfRefused(c);
    const name = (form.name ?? '').trim();
    if (name.length === 0 || name.length > 120) return render(c, { kind: 'refused', message: 'A key name is 1 to 120 characters.' }, 400);
    const mode = form.mode ?? 'live';
    if (mode !== 'live' && mode !== 'test') return render(c, { kind: 'refused', message: 'A key is live or test.' }, 400);
    const { user } = c.get('session');
    const result = await deps.accounts.createKey(user.userId, name, actorFor(user), c.get('requestId'), mode);
    if (!result.ok) {
      const { message, status } = refusal(result.error);
      return render(c, { kind: 'refused', message }, status);
    }
    return render(c, { kind: 'created', name: result.value.name, fullKey: result.value.fullKey }, 201);
  });

  app.post('/keys/:id/rotate', requirePermission('keys.rotate'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.accounts.rotateKey(c.req.param('id'), actorFor(c.get('session').user), c.get('requestId'));
    if (!result.ok) {
      const { message, status } = refusal(result.error);
      return render(c, { kind: 'refused', message }, status);
    }
    const { apiKey, rotatedFrom } = result.value;
    return render(c, { kind: 'rotated', name: apiKey.name, fullKey: apiKey.fullKey, graceEndsAt: rotatedFrom.expiresAt });
  });

  app.post('/keys/:id/revoke', requirePermission('keys.revoke'), async (c) => {
    if ((await formWithCsrf(c)) === undefined) return csrfRefused(c);
    const result = await deps.accounts.revokeKey(c.req.param('id'), actorFor(c.get('session').user), c.get('requestId'));
    if (!result.ok) {
      const { message, status } = refusal(result.error);
      return render(c, { kind: 'refused', message }, status);
    }
    return render(c, { kind: 'revoked' });
  });
}
