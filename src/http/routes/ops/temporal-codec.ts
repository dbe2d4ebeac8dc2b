/**
 * The codec server Temporal's Web UI and CLI call to show encrypted workflow payloads:
 * POST /ops/temporal-codec/decode and /encode, each taking and answering `{ payloads }` in
 * protobuf JSON (every metadata value and the data base64). Decoded payloads hold the
 * personal data the payload codec keeps from Temporal, so the routes exist only when an
 * admin token is configured and every call must carry it as a bearer token, as on the
 * admin API (the CLI), or the ops session cookie the Web UI can send instead
 * (temporal-codec-session.ts, registered with these by index.ts); wrong tokens are throttled per client address as on the
 * admin API. CORS admits the configured Web UI origins only, with credentials, so the UI may
 * send that cookie. Clients send X-Namespace; one keyring serves every namespace, so it is
 * allowed but not read. A payload that cannot be opened (unknown key id, altered
 * ciphertext) is a 400, as the protocol asks.
 *
 * One exception, for the embedded default: the Web UI of the dev server this process started
 * on loopback sends no credentials (it has no setting for them at start), so its calls pass
 * without token or cookie when they carry exactly its origin over a loopback socket with no
 * proxy between. A browser sets Origin itself, so no other page can claim it; a process on
 * this machine can, which docs/ops-guide.md states as the residual risk.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { cors } from 'hono/cors';
import { PayloadCodecError } from '../../../ports/payload-codec.ts';
import type { Clock } from '../../../ports/clock.ts';
import { ApiError } from '../../api-error.ts';
import type { App } from '../../app-types.ts';
import type { AppEnv } from '../../env.ts';
import { fromThisMachine } from '../../local-caller.ts';
import { BODY_ERRORS, errorResponses } from '../../openapi-errors.ts';
import type { AdminTokenAttempts } from '../admin/admin-token-support.ts';
import { ADMIN_GATE_ERRORS } from '../admin/schemas.ts';
import { codecAccess, type CodecSessionSigner } from './temporal-codec-session-support.ts';

export const TEMPORAL_CODEC_PATH = '/ops/temporal-codec';

export interface TemporalCodecDeps {
  /** ADMIN_TOKEN; undefined leaves the codec endpoint unregistered (404). */
  readonly adminToken: string | undefined;
  /** Where wrong tokens are counted: the admin API's throttle, so both share one count per address. */
  readonly attempts: AdminTokenAttempts;
  readonly codec: PayloadCodec;
  /** Origins of the Temporal Web UI allowed to call from a browser (TEMPORAL_UI_ORIGIN). */
  readonly uiOrigins: readonly string[];
  /** Dates session expiry; the system clock when not given. */
  readonly clock?: Clock;
  /**
   * TRUSTED_PROXIES set: X-Forwarded-Proto is believed when marking the session cookie Secure,
   * and the local Web UI is not trusted, as a proxy may relay outside callers over loopback.
   */
  readonly trustProxy?: boolean;
  /** The Web UI this process started, bound to loopback (the embedded default); undefined everywhere else. */
  readonly localUi?: LocalUi;
}

export interface LocalUi {
  /** Its exact origin, `http://127.0.0.1:<TEMPORAL_UI_PORT>`. */
  readonly origin: string;
  /** The socket's own address, whatever X-Forwarded-For says. */
  readonly socketAddress: (c: Context<AppEnv>) => string;
}

const Base64 = z
  .string()
  .max(4 * 1024 * 1024)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be standard base64')
  .refine((s) => s.length % 4 === 0, 'must be standard base64 (padded)');

const PayloadJson = z
  .object({
    metadata: z
      .record(z.string(), Base64)
      .optional()
      .openapi({ description: 'Metadata values, each base64.', example: { encoding: 'YmluYXJ5L2VuY3J5cHRlZA==' } }),
    data: Base64.optional().openapi({ description: 'The payload bytes, base64.' }),
  })
  .openapi('TemporalPayload');

const Payloads = z
  .object({ payloads: z.array(PayloadJson).max(1000) })
  .openapi('TemporalPayloads', { description: 'temporal.api.common.v1.Payloads as protobuf JSON.' });

const ADMIN_SECURITY: Record<string, string[]>[] = [{ AdminToken: [] }, { CodecSession: [] }];

function codecRoute(operation: 'encode' | 'decode') {
  return createRoute({
    operationId: operation === 'decode' ? 'decodeTemporalPayloads' : 'encodeTemporalPayloads',
    method: 'post',
    path: `${TEMPORAL_CODEC_PATH}/${operation}`,
    tags: ['Ops'],
    summary:
      operation === 'decode' ? 'Decrypt Temporal payloads for the Web UI and CLI' : 'Encrypt Temporal payloads for the Web UI and CLI',
    description:
      'Bearer ADMIN_TOKEN (the CLI) or the ops session cookie (a Web UI). On the embedded default the Web UI the service started ' +
      'itself needs neither: a call carrying exactly its loopback origin, over loopback with no proxy between, passes.',
    security: ADMIN_SECURITY,
    request: {
      headers: z.object({ 'x-namespace': z.string().optional().openapi({ description: 'Sent by Temporal clients; not read.' }) }),
      body: { content: { 'application/json': { schema: Payloads } }, required: true },
    },
    responses: {
      200: { description: `The payloads, ${operation}d, in the same order.`, content: { 'application/json': { schema: Payloads } } },
      ...errorResponses(...ADMIN_GATE_ERRORS, ...BODY_ERRORS),
    },
  });
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunked: spreading a large array into fromCharCode would overflow the call stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

type PayloadBody = z.infer<typeof PayloadJson>;

function fromJson(payload: PayloadBody): Payload {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, fromBase64(value)]));
  return { metadata, data: fromBase64(payload.data ?? '') };
}

function toJson(payload: Payload): { metadata: Record<string, string>; data: string } {
  const metadata = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, toBase64(value)]));
  return { metadata, data: toBase64(payload.data ?? new Uint8Array()) };
}

async function convert(codec: PayloadCodec, operation: 'encode' | 'decode', payloads: PayloadBody[]) {
  try {
    const converted = await codec[operation](payloads.map(fromJson));
    return { payloads: converted.map(toJson) };
  } catch (error) {
    if (!(error instanceof PayloadCodecError)) throw error;
    const detail = `payloads: ${error.message}`;
    throw new ApiError('VALIDATION_ERROR', { message: `Validation failed: ${detail}`, details: [detail] });
  }
}

/** The encode and decode routes, behind the session-or-token gate (the registrar in index.ts builds the signer). */
export function registerCodecOperations(
  root: App,
  deps: TemporalCodecDeps & { readonly adminToken: string },
  signer: CodecSessionSigner,
): void {
  const access = codecAccess(deps.adminToken, signer, deps.attempts);
  const { localUi } = deps;
  const behindProxy = deps.trustProxy ?? false;
  const gate: MiddlewareHandler<AppEnv> = localUi
    ? async (c, next) =>
        c.req.header('Origin') === localUi.origin && fromThisMachine(c, localUi.socketAddress, behindProxy) ? next() : access(c, next)
    : access;
  // Credentials, so the Web UI may send the session cookie; origins are listed, never '*'.
  const uiCors = cors({
    origin: [...deps.uiOrigins, ...(localUi ? [localUi.origin] : [])],
    allowMethods: ['POST'],
    allowHeaders: ['Content-Type', 'X-Namespace', 'Authorization'],
    credentials: true,
    maxAge: 600,
  });
  for (const operation of ['encode', 'decode'] as const) {
    const path = `${TEMPORAL_CODEC_PATH}/${operation}`;
    // CORS first: a preflight carries neither token nor cookie and must be answered before the gate.
    root.use(path, uiCors);
    root.use(path, gate);
    root.openapi(codecRoute(operation), async (c) => c.json(await convert(deps.codec, operation, c.req.valid('json').payloads), 200));
  }
}
