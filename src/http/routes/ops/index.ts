/**
 * The Temporal codec server's routes, registered together: the encode and decode
 * operations (temporal-codec.ts) and the browser session that admits the Web UI
 * (temporal-codec-session.ts), over one session signer.
 */
import { systemClock } from '../../../ports/clock.ts';
import type { App } from '../../app-types.ts';
import { registerCodecOperations, TEMPORAL_CODEC_PATH, type TemporalCodecDeps } from './temporal-codec.ts';
import { registerCodecSession } from './temporal-codec-session.ts';
import { CODEC_SESSION_COOKIE, codecSessionSigner } from './temporal-codec-session-support.ts';

export type { TemporalCodecDeps } from './temporal-codec.ts';

export function registerTemporalCodec(root: App, deps: TemporalCodecDeps): void {
  if (deps.adminToken === undefined) return;
  root.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' });
  root.openAPIRegistry.registerComponent('securitySchemes', 'CodecSession', {
    type: 'apiKey',
    in: 'cookie',
    name: CODEC_SESSION_COOKIE,
    description: `Set by POST ${TEMPORAL_CODEC_PATH}/session (open ${TEMPORAL_CODEC_PATH}/login in a browser).`,
  });
  const signer = codecSessionSigner(deps.adminToken, deps.clock ?? systemClock);
  registerCodecOperations(root, { ...deps, adminToken: deps.adminToken }, signer);
  registerCodecSession(root, {
    basePath: TEMPORAL_CODEC_PATH,
    adminToken: deps.adminToken,
    signer,
    attempts: deps.attempts,
    trustProxy: deps.trustProxy ?? false,
  });
}
