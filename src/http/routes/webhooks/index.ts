/** The API-key webhook routes under /webhooks, registered in one explicit list. */
import type { MiddlewareHandler } from 'hono';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { registerDeleteEndpoint } from './delete-endpoint.ts';
import { registerListEndpointDeliveries } from './get-endpoint-deliveries.ts';
import { registerListEndpoints } from './get-endpoints.ts';
import type { KeyedWebhookDeps } from './keyed-webhook-support.ts';
import { registerResendDelivery } from './post-delivery-resend.ts';
import { registerEnableEndpoint } from './post-enable-endpoint.ts';
import { registerCreateEndpoint } from './post-endpoint.ts';
import { registerSendTestEvent } from './post-endpoint-test.ts';
import { registerRotateEndpointSecret } from './post-rotate-endpoint-secret.ts';

export function registerKeyedWebhookRoutes(app: App, auth: MiddlewareHandler<AppEnv>, deps: KeyedWebhookDeps): void {
  registerListEndpoints(app, auth, deps);
  registerCreateEndpoint(app, auth, deps);
  registerDeleteEndpoint(app, auth, deps);
  registerEnableEndpoint(app, auth, deps);
  registerRotateEndpointSecret(app, auth, deps);
  registerListEndpointDeliveries(app, auth, deps);
  registerSendTestEvent(app, auth, deps);
  registerResendDelivery(app, auth, deps);
}
