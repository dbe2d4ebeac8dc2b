/**
 * The Temporal codec endpoint and payload encryption, for real. First the route through
 * `app.request()` on a small app with the root's middleware: the bearer gate, CORS for
 * the Web UI origin only, decode/encode in the codec-server protocol's shape, and the one
 * exception to the gate (the Web UI the embedded default started, on loopback). Then a
 * real Temporal dev server (the Temporal CLI binary): a workflow started and run through
 * the codec leaves no plaintext anywhere in its history, a client without the codec sees
 * only sealed payloads, and the Temporal CLI, pointed at the endpoint served over HTTP,
 * shows the history decoded.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { OpenAPIHono } from '@hono/zod-openapi';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { methodNotAllowed } from 'hono/method-not-allowed';
import {
  createPayloadCodec,
  dataConverterFor,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  parseCodecKeyring,
} from '../../src/adapters/temporal/payload-codec.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { FailedAttemptThrottle } from '../../src/application/access/failed-attempt-throttle.ts';
import { ApiError } from '../../src/http/api-error.ts';
import type { App } from '../../src/http/app-types.ts';
import type { AppEnv } from '../../src/http/env.ts';
import { limitBody, parseJsonBody } from '../../src/http/middleware/json-body.ts';
import { requestId } from '../../src/http/middleware/request-id.ts';
import { renderError } from '../../src/http/render-error.ts';
import { openTemporal } from '../../src/adapters/temporal/temporal-runtime.ts';
import { registerTemporalCodec, type TemporalCodecDeps } from '../../src/http/routes/ops/index.ts';
import { validationError } from '../../src/http/validation.ts';
import { randomIds, systemClock, type Clock } from '../../src/ports/clock.ts';
import { codecProbe, type CodecProbeInput } from '../support/temporal/codec-probe-workflow.ts';
import { NO_TEMPORAL_CLI, temporalCli } from '../support/temporal.ts';

const TOKEN = 'ops-token-for-the-codec-integration-test';
const UI_ORIGIN = 'http://localhost:8233';
/** Stands in for the socket's address. */
const CLIENT = 'x-test-client';
const TEMPORAL = temporalCli();
const TEMPORAL_CLI = TEMPORAL?.path ?? 'temporal';
const NAME = 'Kavya Testpetitioner';
const input: CodecProbeInput = { caseId: 'hc-DLHC010012342019', partyName: NAME };

const keyOf = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const codec = createPayloadCodec(parseCodecKeyring(`k2:${keyOf(2)},k1:${keyOf(1)}`));

type Body = Record<string, unknown>;
interface PayloadJson {
  metadata: Record<string, string>;
  data: string;
}

/** The root app's middleware that the codec routes rely on, as createApp orders it. */
function codecApp(
  adminToken: string | undefined,
  payloadCodec: PayloadCodec = codec,
  clock: Clock = systemClock,
  setup: Pick<TemporalCodecDeps, 'localUi' | 'trustProxy'> = {},
): App {
  const app: App = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, undefined);
    },
  });
  app.use('*', requestId(randomIds));
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => renderError(c, new ApiError('METHOD_NOT_ALLOWED', { headers: { Allow: methods.join(', ') } })),
    }),
  );
  app.use('*', limitBody);
  app.use('*', parseJsonBody);
  app.onError((error, c) => renderError(c, error instanceof ApiError ? error : new ApiError('INTERNAL_ERROR')));
  app.notFound((c) => renderError(c, new ApiError('ROUTE_NOT_FOUND')));
  const failures = new FailedAttemptThrottle({
    limiter: new MemoryRateLimiter(clock),
    clock,
    scope: 'admin-token',
    maxFailures: 5,
    windowMs: 60_000,
    onStoreFailure: () => undefined,
    onBlocked: () => undefined,
  });
  const attempts = {
    failures,
    clientAddress: (c: { req: { header(name: string): string | undefined } }) => c.req.header(CLIENT) ?? '127.0.0.1',
  };
  registerTemporalCodec(app, { adminToken, attempts, codec: payloadCodec, uiOrigins: [UI_ORIGIN], clock, ...setup });
  return app;
}

const toJson = (payload: Payload): PayloadJson => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});
const metadataText = (payload: PayloadJson, name: string) => Buffer.from(payload.metadata[name] ?? '', 'base64').toString('utf8');
const dataValue = (payload: PayloadJson): unknown => JSON.parse(Buffer.from(payload.data, 'base64').toString('utf8'));

describe('temporal codec endpoint through app.request()', () => {
  const app = codecApp(TOKEN);

  async function post(operation: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await app.request(`/ops/temporal-codec/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Authorization: `Bearer ${TOKEN}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { res, body: (await res.json()) as Body };
  }

  it('does not exist without an admin token: 404 ROUTE_NOT_FOUND', async () => {
    const res = await codecApp(undefined).request('/ops/temporal-codec/decode', {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ payloads: [] }),
    });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as Body).code, 'ROUTE_NOT_FOUND');
  });

  it('refuses a missing, wrong, truncated or non-bearer token with 401 ADMIN_UNAUTHORIZED, readable by the Web UI', async () => {
    const sealed = toJson((await codec.encode([defaultPayloadConverter.toPayload(input)]))[0]!);
    for (const authorization of ['', `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
      const { res, body } = await post('decode', { payloads: [sealed] }, { Authorization: authorization, Origin: UI_ORIGIN });
      assert.equal(res.status, 401, authorization);
      assert.equal(body.code, 'ADMIN_UNAUTHORIZED');
      assert.equal(body.success, false);
      assert.equal(body.requestId, res.headers.get('x-request-id'));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal(res.headers.get('access-control-allow-origin'), UI_ORIGIN);
      assert.ok(!JSON.stringify(body).includes(NAME));
    }
  });

  it('answers a preflight from the Web UI origin, without a token, with the method and headers the UI sends', async () => {
    const res = await app.request('/ops/temporal-codec/decode', {
      method: 'OPTIONS',
      headers: { Origin: UI_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.equal(res.headers.get('access-control-allow-methods'), 'POST');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const header of ['content-type', 'x-namespace', 'authorization']) assert.ok(allowed.includes(header), header);
    assert.match(res.headers.get('vary') ?? '', /Origin/);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
  });

  it('gives a preflight or a call from any other origin no Access-Control-Allow-Origin, so a browser there cannot read it', async () => {
    for (const origin of ['http://localhost:8234', 'https://localhost:8233', 'http://evil.example', 'null']) {
      const preflight = await app.request('/ops/temporal-codec/decode', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), null, origin);
      const { res } = await post('decode', { payloads: [] }, { Origin: origin });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), null, origin);
    }
  });

  it('decodes payloads the codec sealed back to their plaintext JSON, in order, passing unencrypted ones through', async () => {
    const plain = defaultPayloadConverter.toPayload({ note: 'not personal' });
    const sealed = await codec.encode([defaultPayloadConverter.toPayload(input), defaultPayloadConverter.toPayload('second')]);
    const request = { payloads: [...sealed.map(toJson), toJson(plain)] };
    assert.ok(!JSON.stringify(request).includes(NAME));
    assert.equal(metadataText(request.payloads[0]!, 'encoding'), ENCRYPTED_ENCODING);

    const { res, body } = await post('decode', request, { Origin: UI_ORIGIN });
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(res.headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const payloads = body.payloads as PayloadJson[];
    assert.equal(payloads.length, 3);
    assert.equal(metadataText(payloads[0]!, 'encoding'), 'json/plain');
    assert.deepEqual(dataValue(payloads[0]!), input);
    assert.deepEqual(dataValue(payloads[1]!), 'second');
    assert.deepEqual(payloads[2], toJson(plain));
  });

  it('encodes through /encode into sealed payloads, under the current key, that /decode opens', async () => {
    const request = { payloads: [toJson(defaultPayloadConverter.toPayload(input))] };
    const encoded = await post('encode', request);
    assert.equal(encoded.res.status, 200, JSON.stringify(encoded.body));
    const sealed = (encoded.body.payloads as PayloadJson[])[0]!;
    assert.equal(metadataText(sealed, 'encoding'), ENCRYPTED_ENCODING);
    assert.equal(metadataText(sealed, KEY_ID_METADATA), 'k2');
    assert.ok(!Buffer.from(sealed.data, 'base64').includes(NAME));
    const decoded = await post('decode', encoded.body);
    assert.deepEqual(dataValue((decoded.body.payloads as PayloadJson[])[0]!), input);
  });

  it('refuses a payload it cannot open (altered, or sealed with a key it lacks) with 400 VALIDATION_ERROR naming the cause', async () => {
    const sealed = toJson((await codec.encode([defaultPayloadConverter.toPayload(input)]))[0]!);
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    const altered = await post('decode', { payloads: [{ ...sealed, data: bytes.toString('base64') }] });
    assert.equal(altered.res.status, 400);
    assert.equal(altered.body.code, 'VALIDATION_ERROR');
    assert.match(String(altered.body.message), /failed authentication/);

    const oldKeyOnly = codecApp(TOKEN, createPayloadCodec(parseCodecKeyring(`k1:${keyOf(1)}`)));
    const res = await oldKeyOnly.request('/ops/temporal-codec/decode', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ payloads: [sealed] }),
    });
    const body = (await res.json()) as Body;
    assert.equal(res.status, 400);
    assert.deepEqual(body.details, ['payloads: no key with id "k2" is configured (TEMPORAL_CODEC_KEYS)']);
  });

  it('refuses bodies outside the protocol: 400 MALFORMED_JSON for non-JSON, VALIDATION_ERROR for the wrong shape', async () => {
    assert.equal((await post('decode', '{"payloads": [')).body.code, 'MALFORMED_JSON');
    for (const body of [{}, { payloads: {} }, { payloads: [{ data: 'not base64!' }] }, { payloads: [{ metadata: { encoding: 5 } }] }]) {
      const result = await post('decode', body);
      assert.equal(result.res.status, 400, JSON.stringify(body));
      assert.equal(result.body.code, 'VALIDATION_ERROR');
    }
  });

  it('answers another method with 405 and Allow: POST', async () => {
    const res = await app.request('/ops/temporal-codec/decode', { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

describe('temporal codec ops session (the Web UI sends a cookie, not a bearer token)', () => {
  const SECOND = 1000;
  let now = Date.parse('2025-03-01T10:00:00Z');
  const clock: Clock = { now: () => new Date(now) };
  const app = codecApp(TOKEN, codec, clock);
  const SELF = 'http://localhost';

  const cookieOf = (res: Response) => (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const attributesOf = (res: Response) =>
    (res.headers.get('set-cookie') ?? '')
      .split(';')
      .slice(1)
      .map((a) => a.trim().toLowerCase());
  /** The cookie value as the brief specifies it, computed here independently of the route. */
  const signed = (token: string, expiresAtSeconds: number) => {
    const key = createHmac('sha256', token).update('temporal-codec-session').digest();
    return `${String(expiresAtSeconds)}.${createHmac('sha256', key).update(String(expiresAtSeconds)).digest('base64url')}`;
  };

  const openWithBearer = (token = TOKEN, url = '/ops/temporal-codec/session') =>
    app.request(url, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
  const postForm = (token: string, headers: Record<string, string>) =>
    app.request('/ops/temporal-codec/session', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ token }).toString(),
    });
  async function decodeWith(cookie: string) {
    const sealed = toJson((await codec.encode([defaultPayloadConverter.toPayload(input)]))[0]!);
    const res = await app.request('/ops/temporal-codec/decode', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', Origin: UI_ORIGIN, Cookie: cookie },
      body: JSON.stringify({ payloads: [sealed] }),
    });
    return { res, body: (await res.json()) as Body };
  }

  it('opens a session for a bearer call: an HttpOnly, SameSite=Strict cookie on the codec path for 8 hours, HMAC-signed', async () => {
    const res = await openWithBearer();
    assert.equal(res.status, 200);
    const expiresAt = now / SECOND + 8 * 3600;
    assert.deepEqual(await res.json(), { expiresAt: new Date(expiresAt * SECOND).toISOString() });
    assert.equal(cookieOf(res), `temporal_codec_session=${signed(TOKEN, expiresAt)}`);
    const attributes = attributesOf(res);
    for (const attribute of ['httponly', 'samesite=strict', 'path=/ops/temporal-codec', 'max-age=28800']) {
      assert.ok(attributes.includes(attribute), `${attribute} in ${attributes.join('; ')}`);
    }
    assert.ok(!attributes.includes('secure'), 'Secure over plain http would make the browser drop it');
    assert.ok(attributesOf(await openWithBearer(TOKEN, 'https://codec.example/ops/temporal-codec/session')).includes('secure'));
  });

  it('decodes for the Web UI with the session cookie alone, answering with Allow-Credentials for its origin', async () => {
    const { res, body } = await decodeWith(cookieOf(await openWithBearer()));
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(res.headers.get('access-control-allow-origin'), UI_ORIGIN);
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
    assert.deepEqual(dataValue((body.payloads as PayloadJson[])[0]!), input);
  });

  it('refuses an expired, tampered or foreign-signed cookie with 401, and nothing decoded', async () => {
    const start = now;
    const cookie = cookieOf(await openWithBearer());
    const [name, value] = cookie.split('=') as [string, string];
    const [expiry, signature] = value.split('.') as [string, string];
    now = start + (8 * 3600 - 1) * SECOND;
    assert.equal((await decodeWith(cookie)).res.status, 200, 'still live a second before expiry');
    now = start + 8 * 3600 * SECOND;
    const refused = [
      cookie,
      `${name}=${String(Number(expiry) + 3600)}.${signature}`,
      `${name}=${expiry}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
      `${name}=${signed('another-admin-token', Number(expiry) + 3600)}`,
      `${name}=${String(Number(expiry) + 3600)}`,
      `${name}=`,
    ];
    for (const sent of refused) {
      const { res, body } = await decodeWith(sent);
      assert.equal(res.status, 401, sent);
      assert.equal(body.code, 'ADMIN_UNAUTHORIZED');
      assert.ok(!JSON.stringify(body).includes(NAME));
    }
    assert.equal((await decodeWith(`${name}=${signed(TOKEN, Number(expiry) + 3600)}`)).res.status, 200, 'a properly signed one works');
    now = start;
  });

  it('refuses to open a session for a wrong bearer or form token: 401, no cookie', async () => {
    for (const res of [
      await openWithBearer(`${TOKEN}x`),
      await app.request('/ops/temporal-codec/session', { method: 'POST' }),
      await postForm(TOKEN.slice(0, -1), { Origin: SELF }),
      await postForm('', { Origin: SELF }),
    ]) {
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as Body).code, 'ADMIN_UNAUTHORIZED');
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  it('refuses the login form posted from anywhere but this service, even with the right token: 403, no cookie', async () => {
    const foreign: Record<string, string>[] = [
      { Origin: 'http://evil.example' },
      { Origin: 'http://localhost:8233' },
      { Origin: 'null' },
      { Referer: 'http://evil.example/ops/temporal-codec/login' },
      { Origin: 'http://evil.example', Referer: `${SELF}/ops/temporal-codec/login` },
      {},
    ];
    for (const headers of foreign) {
      const res = await postForm(TOKEN, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(((await res.json()) as Body).code, 'CSRF_TOKEN_INVALID');
      assert.equal(res.headers.get('set-cookie'), null);
    }
  });

  it('opens a session from its own login form (Origin or Referer of this service) with an HTML answer', async () => {
    const fromHere: Record<string, string>[] = [{ Origin: SELF }, { Referer: `${SELF}/ops/temporal-codec/login` }];
    for (const headers of fromHere) {
      const res = await postForm(TOKEN, headers);
      assert.equal(res.status, 200, JSON.stringify(headers));
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const page = await res.text();
      assert.match(page, /8 hours/);
      assert.match(page, /Include cross-origin credentials/);
      assert.equal(cookieOf(res), `temporal_codec_session=${signed(TOKEN, now / SECOND + 8 * 3600)}`);
      assert.ok(attributesOf(res).includes('samesite=strict'));
      assert.equal((await decodeWith(cookieOf(res))).res.status, 200);
    }
  });

  it('after 5 wrong tokens, form or bearer, refuses every token from that address with 429 for the minute; a live session still decodes', async () => {
    const start = now;
    const session = cookieOf(await openWithBearer());
    const from = { [CLIENT]: '192.0.2.77' };
    for (const res of [
      await postForm(`${TOKEN}-1`, { Origin: SELF, ...from }),
      await postForm(`${TOKEN}-2`, { Origin: SELF, ...from }),
      await app.request('/ops/temporal-codec/session', { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}-3`, ...from } }),
      await postForm(`${TOKEN}-4`, { Origin: SELF, ...from }),
      await app.request('/ops/temporal-codec/decode', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TOKEN}-5`, ...from },
        body: JSON.stringify({ payloads: [] }),
      }),
    ]) {
      assert.equal(res.status, 401);
    }
    for (const res of [
      await postForm(TOKEN, { Origin: SELF, ...from }),
      await app.request('/ops/temporal-codec/session', { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, ...from } }),
    ]) {
      assert.equal(res.status, 429);
      const body = (await res.json()) as Body;
      assert.equal(body.code, 'RATE_LIMITED');
      assert.equal(res.headers.get('retry-after'), String(body.retryAfter));
      assert.equal(res.headers.get('set-cookie'), null);
    }
    const decoded = await app.request('/ops/temporal-codec/decode', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: session, ...from },
      body: JSON.stringify({ payloads: [] }),
    });
    assert.equal(decoded.status, 200);
    assert.equal((await postForm(TOKEN, { Origin: SELF, [CLIENT]: '192.0.2.78' })).status, 200, 'another address is unaffected');
    now = start + 60 * SECOND;
    assert.equal((await postForm(TOKEN, { Origin: SELF, ...from })).status, 200, 'the next minute');
    now = start;
  });

  it('serves a self-contained login form that posts the token to the session route', async () => {
    const res = await app.request('/ops/temporal-codec/login');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/);
    const page = await res.text();
    assert.match(page, /<form method="post" action="\/ops\/temporal-codec\/session">/);
    assert.match(page, /<input type="password" name="token"/);
    assert.doesNotMatch(page, /(src|href)=/, 'no external assets');
  });

  it('ends the session on DELETE: the cookie is cleared on the same path', async () => {
    const res = await app.request('/ops/temporal-codec/session', { method: 'DELETE' });
    assert.equal(res.status, 204);
    assert.equal(cookieOf(res), 'temporal_codec_session=');
    const attributes = attributesOf(res);
    assert.ok(attributes.includes('max-age=0'), attributes.join('; '));
    assert.ok(attributes.includes('path=/ops/temporal-codec'));
  });
});

describe('the Web UI the embedded default started: its exact loopback origin needs no credentials', () => {
  /** Not among the configured origins (TEMPORAL_UI_ORIGIN): the UI port is TEMPORAL_UI_PORT's. */
  const LOCAL_UI = 'http://127.0.0.1:18233';
  const localUi = {
    origin: LOCAL_UI,
    socketAddress: (c: { req: { header(name: string): string | undefined } }) => c.req.header(CLIENT) ?? '127.0.0.1',
  };
  const app = codecApp(TOKEN, codec, systemClock, { localUi });

  async function call(operation: 'decode' | 'encode', headers: Record<string, string>, target: App = app) {
    const plain = defaultPayloadConverter.toPayload(input);
    const payloads = operation === 'decode' ? await codec.encode([plain]) : [plain];
    const res = await target.request(`/ops/temporal-codec/${operation}`, {
      method: 'POST',
      // What the UI sends: no Authorization, no cookie.
      headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
      body: JSON.stringify({ payloads: payloads.map(toJson) }),
    });
    return { res, body: (await res.json()) as Body };
  }

  it('decodes and encodes for exactly that origin over a loopback socket, readable there (CORS), with no token or cookie', async () => {
    for (const socket of ['127.0.0.1', '::1']) {
      const { res, body } = await call('decode', { Origin: LOCAL_UI, [CLIENT]: socket });
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(res.headers.get('access-control-allow-origin'), LOCAL_UI);
      assert.deepEqual(dataValue((body.payloads as PayloadJson[])[0]!), input);
    }
    const encoded = await call('encode', { Origin: LOCAL_UI });
    assert.equal(encoded.res.status, 200, JSON.stringify(encoded.body));
    assert.equal(metadataText((encoded.body.payloads as PayloadJson[])[0]!, 'encoding'), ENCRYPTED_ENCODING);

    const preflight = await app.request('/ops/temporal-codec/decode', {
      method: 'OPTIONS',
      headers: { Origin: LOCAL_UI, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-namespace' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), LOCAL_UI);
  });

  it('refuses with 401 as before any other origin, however close, or none', async () => {
    const others = [
      'http://localhost:18233',
      'http://127.0.0.1:18234',
      'https://127.0.0.1:18233',
      'http://127.0.0.2:18233',
      UI_ORIGIN,
      'null',
    ];
    const refused: Record<string, string>[] = [
      ...others.map((Origin) => ({ Origin })),
      {},
      { Referer: `${LOCAL_UI}/namespaces/default/workflows` },
    ];
    for (const headers of refused) {
      const { res, body } = await call('decode', headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(body.code, 'ADMIN_UNAUTHORIZED');
      assert.ok(!JSON.stringify(body).includes(NAME));
    }
  });

  it('refuses that origin with 401 when the call may come from another machine: another socket, a forwarding header, a proxy', async () => {
    const relayed: Record<string, string>[] = [
      { [CLIENT]: '192.0.2.10' },
      { [CLIENT]: '::ffff:192.0.2.10' },
      { 'X-Forwarded-For': '192.0.2.10' },
      { Forwarded: 'for=192.0.2.10' },
    ];
    for (const headers of relayed) {
      const { res } = await call('decode', { Origin: LOCAL_UI, ...headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
    }
    const behindProxy = codecApp(TOKEN, codec, systemClock, { localUi, trustProxy: true });
    assert.equal((await call('decode', { Origin: LOCAL_UI }, behindProxy)).res.status, 401, 'TRUSTED_PROXIES set');
  });

  it('trusts no origin without a UI started by the service (a cluster, as in production): 401, and the token still works', async () => {
    const production = codecApp(TOKEN);
    for (const Origin of [LOCAL_UI, 'http://127.0.0.1:8233', UI_ORIGIN]) {
      assert.equal((await call('decode', { Origin }, production)).res.status, 401, Origin);
    }
    const withToken = await call('decode', { Origin: LOCAL_UI, Authorization: `Bearer ${TOKEN}` });
    assert.equal(withToken.res.status, 200);
  });
});

const cliMissing = TEMPORAL ? false : NO_TEMPORAL_CLI;
if (cliMissing) console.log(`temporal codec against a real dev server skipped: ${cliMissing}`);

describe('payload encryption on a real Temporal dev server', { timeout: 180_000 }, () => {
  const taskQueue = 'codec-probe';
  const workflowId = `codec-probe-${randomIds.next()}`;
  const expectedResult = `timeline requested for ${NAME} in ${input.caseId}`;
  let env: TestWorkflowEnvironment | undefined;
  let server: ServerType | undefined;
  let endpoint: string;

  before(async () => {
    if (cliMissing) return;
    Runtime.install({ logger: new DefaultLogger('WARN') });
    env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, ip: '127.0.0.1' },
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: 'default',
      taskQueue,
      workflowsPath: fileURLToPath(new URL('../support/temporal/codec-probe-workflow.ts', import.meta.url)),
      dataConverter: dataConverterFor(codec),
    });
    const client = new Client({ connection: env.connection, namespace: 'default', dataConverter: dataConverterFor(codec) });
    const result = await worker.runUntil(client.workflow.execute(codecProbe, { args: [input], taskQueue, workflowId }));
    assert.equal(result, expectedResult);

    server = serve({ fetch: codecApp(TOKEN).fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server!.once('listening', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ops/temporal-codec`;
  });

  after(async () => {
    if (server) await new Promise((resolve) => server!.close(resolve));
    await env?.teardown();
  });

  it(
    'leaves no plaintext anywhere in the stored history; a client without the codec sees only sealed payloads',
    { skip: cliMissing },
    async () => {
      const history = await env!.client.workflow.getHandle(workflowId).fetchHistory();
      const raw = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish());
      assert.ok(raw.length > 0);
      assert.ok(!raw.includes(NAME), 'the party name is in the raw history bytes');
      assert.ok(!raw.includes(input.caseId), 'the case id is in the raw history bytes');

      const events = history.events ?? [];
      const started = events.find((e) => e.workflowExecutionStartedEventAttributes)!.workflowExecutionStartedEventAttributes!;
      const completed = events.find((e) => e.workflowExecutionCompletedEventAttributes)!.workflowExecutionCompletedEventAttributes!;
      const stored = [...(started.input?.payloads ?? []), ...(completed.result?.payloads ?? [])];
      assert.equal(stored.length, 2);
      for (const payload of stored) {
        assert.equal(new TextDecoder().decode(payload.metadata!.encoding), ENCRYPTED_ENCODING);
        assert.equal(new TextDecoder().decode(payload.metadata![KEY_ID_METADATA]), 'k2');
      }
      await assert.rejects(env!.client.workflow.getHandle(workflowId).result(), /binary\/encrypted/);
    },
  );

  it('reports no Web UI for a cluster (TEMPORAL_ADDRESS), so the codec trusts no origin there', { skip: cliMissing }, async () => {
    const cluster = await openTemporal({
      address: env!.address,
      namespace: 'default',
      dataConverter: dataConverterFor(codec),
      devServer: {
        dbFilename: undefined,
        cli: TEMPORAL ?? { path: undefined, source: 'download' },
        port: undefined,
        uiPort: 8233,
        codecEndpoint: endpoint,
      },
    });
    try {
      assert.equal(cluster.uiUrl, null);
    } finally {
      await cluster.close();
    }
  });

  it('decodes the same history with the codec: the input and the result come back whole', { skip: cliMissing }, async () => {
    const history = await env!.client.workflow.getHandle(workflowId).fetchHistory();
    const events = history.events ?? [];
    const started = events.find((e) => e.workflowExecutionStartedEventAttributes)!.workflowExecutionStartedEventAttributes!;
    const completed = events.find((e) => e.workflowExecutionCompletedEventAttributes)!.workflowExecutionCompletedEventAttributes!;
    const [decodedInput] = await codec.decode(started.input!.payloads!);
    const [decodedResult] = await codec.decode(completed.result!.payloads!);
    assert.deepEqual(defaultPayloadConverter.fromPayload(decodedInput!), input);
    assert.equal(defaultPayloadConverter.fromPayload(decodedResult!), expectedResult);
    const withCodec = new Client({ connection: env!.connection, namespace: 'default', dataConverter: dataConverterFor(codec) });
    assert.equal(await withCodec.workflow.getHandle(workflowId).result(), expectedResult);
  });

  it(
    'shows the history decoded in the Temporal CLI through the endpoint, and sealed without it; a wrong token decodes nothing',
    { skip: cliMissing },
    async () => {
      const show = async (...extra: string[]) => {
        const args = ['workflow', 'show', '--workflow-id', workflowId, '--address', env!.address, '--namespace', 'default', '-o', 'json'];
        // Only the flags given here: no codec endpoint or address from this machine's environment or config file.
        args.push('--disable-config-env', '--disable-config-file');
        try {
          const { stdout } = await promisify(execFile)(TEMPORAL_CLI, [...args, ...extra], { timeout: 30_000 });
          return { ok: true, out: stdout };
        } catch (error) {
          return { ok: false, out: `${String((error as { stdout?: string }).stdout)} ${String(error)}` };
        }
      };
      const firstPayloads = (out: string) => {
        const shown = JSON.parse(out) as {
          events: Record<string, { input?: { payloads: PayloadJson[] }; result?: { payloads: PayloadJson[] } }>[];
        };
        const started = shown.events.find((e) => e.workflowExecutionStartedEventAttributes)!.workflowExecutionStartedEventAttributes!;
        const completed = shown.events.find((e) => e.workflowExecutionCompletedEventAttributes)!.workflowExecutionCompletedEventAttributes!;
        return [started.input!.payloads[0]!, completed.result!.payloads[0]!] as const;
      };

      const decoded = await show('--codec-endpoint', endpoint, '--codec-auth', `Bearer ${TOKEN}`);
      assert.ok(decoded.ok, decoded.out);
      const [decodedInput, decodedResult] = firstPayloads(decoded.out);
      assert.equal(metadataText(decodedInput, 'encoding'), 'json/plain');
      assert.deepEqual(dataValue(decodedInput), input);
      assert.equal(dataValue(decodedResult), expectedResult);

      const sealed = await show();
      assert.ok(sealed.ok, sealed.out);
      for (const payload of firstPayloads(sealed.out)) {
        assert.equal(metadataText(payload, 'encoding'), ENCRYPTED_ENCODING);
        assert.ok(!Buffer.from(payload.data, 'base64').includes(NAME));
      }

      // The CLI retries a refused codec call until its deadline; a short one keeps the test quick.
      const refused = await show('--codec-endpoint', endpoint, '--codec-auth', 'Bearer not-the-admin-token', '--command-timeout', '3s');
      assert.equal(refused.ok, false, refused.out);
      assert.ok(!refused.out.includes(Buffer.from(JSON.stringify(input)).toString('base64')), refused.out);
    },
  );
});
