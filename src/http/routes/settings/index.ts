/**
 * The dashboard-session routes under /api/settings on the host root, registered in one
 * explicit list. They authenticate with the session cookie (plus X-CSRF-Token when they
 * change state), never with an API key.
 */
import type { Context } from 'hono';
import type { AccountsService } from '../../../application/accounts/accounts-service.ts';
import type { SessionService } from '../../../application/sessions/session-service.ts';
import type { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints.ts';
import type { Clock } from '../../../ports/clock.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerRevokeApiKey } from './delete-api-key.ts';
import { registerListApiKeys } from './get-api-keys.ts';
import { registerGetSession } from './get-session.ts';
import { registerCreateApiKey } from './post-api-key.ts';
import { registerLogin } from './post-login.ts';
import { registerLogout } from './post-logout.ts';
import { registerRotateApiKey } from './post-rotate-api-key.ts';
import { registerDeleteWebhook } from './delete-webhook.ts';
import { registerListWebhookDeliveries } from './get-webhook-deliveries.ts';
import { registerListWebhooks } from './get-webhooks.ts';
import { registerCreateWebhook } from './post-webhook.ts';
import { registerEnableWebhook } from './post-enable-webhook.ts';
import { registerRotateWebhookSecret } from './post-rotate-webhook-secret.ts';
import { registerResendWebhookDelivery } from './post-webhook-delivery-resend.ts';
import { registerSendTestWebhookEvent } from './post-webhook-test.ts';
import { CSRF_SECURITY, SESSION_SECURITY } from './schemas.ts';
import { CSRF_HEADER, SESSION_COOKIE, sessionGuards } from './session-support.ts';

export interface SettingsDeps {
  readonly accounts: AccountsService;
  readonly sessions: SessionService;
  readonly clock: Clock;
  /** The account's webhook endpoints and their deliveries. */
  readonly webhooks: WebhookEndpoints;
  /** Believe X-Forwarded-Proto (for the cookie's Secure flag): only behind our own proxy. */
  readonly trustProxy: boolean;
  /** The client's address, for counting failed logins. */
  readonly clientAddress: (c: Context<AppEnv>) => string;
}

export function registerSettingsRoutes(app: App, deps: SettingsDeps): void {
  app.openAPIRegistry.registerComponent('securitySchemes', SESSION_SECURITY, {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'Dashboard session cookie set by POST /api/settings/login.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', CSRF_SECURITY, {
    type: 'apiKey',
    in: 'header',
    name: CSRF_HEADER,
    description: 'The csrfToken of the session; required on every state-changing dashboard request.',
  });

  const guards = sessionGuards(deps.sessions);
  const { accounts, sessions, clock, trustProxy, clientAddress } = deps;
  registerLogin(app, { sessions, clock, trustProxy, clientAddress });
  registerLogout(app, { sessions, guards, trustProxy });
  registerGetSession(app, guards);
  registerListApiKeys(app, { accounts, guards, clock });
  registerCreateApiKey(app, { accounts, guards });
  registerRotateApiKey(app, { accounts, guards });
  registerRevokeApiKey(app, { accounts, guards });
  const { webhooks } = deps;
  registerListWebhooks(app, { webhooks, guards });
  registerCreateWebhook(app, { webhooks, guards });
  registerDeleteWebhook(app, { webhooks, guards });
  registerRotateWebhookSecret(app, { webhooks, guards });
  registerEnableWebhook(app, { webhooks, guards });
  registerListWebhookDeliveries(app, { webhooks, guards });
  registerSendTestWebhookEvent(app, { webhooks, guards });
  registerResendWebhookDelivery(app, { webhooks, guards });
}
