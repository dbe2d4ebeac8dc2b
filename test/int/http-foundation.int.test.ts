/**
 * The HTTP model every endpoint stands on, through the real app and a real database:
 * request ids, the error shapes, body limits (also chunked), malformed JSON, validation
 * details, unknown routes, crashes that leak nothing, the OpenAPI document and /docs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createRoute, z } from '@hono/zod-openapi';
import { serve } from '@hono/node-server';
import type { App } from '../../src/http/app-types.ts';
import { ERROR_STATUS } from '../../src/http/error-codes.ts';
import { databases, type TestDatabase } from '../support/databases.ts';
import { BASE, buildTestApp } from '../support/app.ts';

const echo = createRoute({
  method: 'post',
  path: '/test/echo',
  request: {
    body: {
      content: { 'application/json': { schema: z.object({ query: z.string().min(1), page: z.number().int().min(1).optional() }) } },
      required: true,
    },
  },
  responses: { 200: { description: 'echo', content: { 'application/json': { schema: z.object({ success: z.literal(true) }) } } } },
});

describe('HTTP foundation', () => {
  let database: TestDatabase;
  let app: App;
  let logs: string[];

  before(async () => {
    database = await databases[0]!.open();
    ({ app, logs } = buildTestApp({ db: database.db }));
    app.openapi(echo, (c) => c.json({ success: true as const }, 200));
    app.get('/test/crash', () => {
      throw new Error('select secret_column from users -- at Object.<anonymous> (/srv/app.ts:1:1)');
    });
  });
  after(async () => database.close());

  async function expectCoded(res: Response, status: number, code: string) {
    assert.equal(res.status, status);
    const id = res.headers.get('x-request-id');
    assert.ok(id, 'X-Request-Id header present');
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.success, false);
    assert.equal(body.code, code);
    assert.equal(typeof body.message, 'string');
    assert.equal(body.error, body.message);
    assert.equal(body.requestId, id);
    return body;
  }

  it('gives every response a request id of its own, and echoes a caller-supplied one apart', async () => {
    const res = await app.request(`${BASE}/health`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('x-client-request-id'), null);
    const own = await app.request(`${BASE}/health`, { headers: { 'X-Request-Id': 'client-trace-0001' } });
    assert.match(own.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(own.headers.get('x-client-request-id'), 'client-trace-0001');
    const again = await app.request(`${BASE}/health`, { headers: { 'X-Request-Id': 'client-trace-0001' } });
    assert.notEqual(again.headers.get('x-request-id'), own.headers.get('x-request-id'));
    const hostile = await app.request(`${BASE}/health`, { headers: { 'X-Request-Id': 'bad id <script>' } });
    assert.match(hostile.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(hostile.headers.get('x-client-request-id'), null);
  });

  it('answers an unknown route with a coded 404', async () => {
    await expectCoded(await app.request(`${BASE}/no-such-thing`), 404, 'ROUTE_NOT_FOUND');
    await expectCoded(await app.request('/'), 404, 'ROUTE_NOT_FOUND');
  });

  it('answers a known path with an unsupported method with a coded 405 and an Allow header', async () => {
    const res = await app.request(`${BASE}/reference/courts`, { method: 'DELETE' });
    await expectCoded(res, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.get('allow'), 'GET, HEAD');
  });

  it('refuses a body over 256 kb with 413 before parsing, with or without Content-Length', async () => {
    const big = JSON.stringify({ query: 'x'.repeat(256 * 1024) });
    await expectCoded(
      await app.request('/test/echo', {
        method: 'POST',
        body: big,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(big.length) },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    const chunks = [new TextEncoder().encode('{"query":"'), new Uint8Array(300 * 1024).fill(97), new TextEncoder().encode('"}')];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const chunked = new Request('http://local/test/echo', {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      duplex: 'half',
    } as RequestInit);
    await expectCoded(await app.request(chunked), 413, 'PAYLOAD_TOO_LARGE');
    const justUnder = JSON.stringify({ query: 'y'.repeat(200 * 1024) });
    assert.equal(
      (await app.request('/test/echo', { method: 'POST', body: justUnder, headers: { 'Content-Type': 'application/json' } })).status,
      200,
    );
  });

  it('reads bodies from the socket under @hono/node-server by the same rules: declared or streamed, over the limit or not JSON', async () => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    // A raw exchange: fetch would not send a chunked body of our choosing, nor keep a declared length.
    const exchange = (head: string, body: string) =>
      new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(`${head}\r\n\r\n${body}`));
        let reply = '';
        socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
        socket.on('error', reject);
        socket.on('close', () => {
          const json = reply.slice(reply.indexOf('\r\n\r\n') + 4);
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
          const code = json.startsWith('{') ? ((JSON.parse(json) as { code?: string }).code ?? undefined) : undefined;
          resolve({ status, code });
        });
      });
    const post = (headers: string) =>
      `POST /test/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n${headers}`;
    try {
      const ok = '{"query":"bail"}';
      assert.deepEqual(await exchange(post(`Content-Length: ${String(ok.length)}`), ok), { status: 200, code: undefined });
      const big = JSON.stringify({ query: 'x'.repeat(256 * 1024) });
      assert.deepEqual(await exchange(post(`Content-Length: ${String(big.length)}`), big), { status: 413, code: 'PAYLOAD_TOO_LARGE' });
      const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
      const streamed = chunk('{"query":"') + chunk('a'.repeat(300 * 1024)) + chunk('"}') + '0\r\n\r\n';
      assert.deepEqual(await exchange(post('Transfer-Encoding: chunked'), streamed), { status: 413, code: 'PAYLOAD_TOO_LARGE' });
      const small = chunk('{"query":') + chunk('"bail"}') + '0\r\n\r\n';
      assert.deepEqual(await exchange(post('Transfer-Encoding: chunked'), small), { status: 200, code: undefined });
      const broken = '{"query": ';
      assert.deepEqual(await exchange(post(`Content-Length: ${String(broken.length)}`), broken), { status: 400, code: 'MALFORMED_JSON' });
      const wrong = '{"query":"bail","page":"2"}';
      assert.deepEqual(await exchange(post(`Content-Length: ${String(wrong.length)}`), wrong), { status: 400, code: 'VALIDATION_ERROR' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers unparseable JSON with 400 MALFORMED_JSON', async () => {
    await expectCoded(
      await app.request('/test/echo', { method: 'POST', body: '{"query": ', headers: { 'Content-Type': 'application/json' } }),
      400,
      'MALFORMED_JSON',
    );
  });

  it('names field, expected and received type in validation details', async () => {
    const res = await app.request('/test/echo', {
      method: 'POST',
      body: JSON.stringify({ query: 'bail', page: '2' }),
      headers: { 'Content-Type': 'application/json' },
    });
    const body = await expectCoded(res, 400, 'VALIDATION_ERROR');
    assert.deepEqual(body.details, ['page: expected number, received string']);
    const missing = await app.request('/test/echo', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
    const details = (await expectCoded(missing, 400, 'VALIDATION_ERROR')).details as string[];
    assert.deepEqual(details, ['query: required (expected string)']);
  });

  it('turns a crash into 500 INTERNAL_ERROR with nothing internal in the body, and logs it', async () => {
    const res = await app.request('/test/crash');
    const text = await res.clone().text();
    await expectCoded(res, 500, 'INTERNAL_ERROR');
    assert.doesNotMatch(text, /secret_column|select|\/srv\/|at Object/i);
    assert.ok(logs.some((l) => l.includes('unhandled error')));
  });

  it('logs one line per request with id, route, status and duration, and never the body', async () => {
    const marker = 'Sensitive Party Name 7731';
    await app.request('/test/echo', {
      method: 'POST',
      body: JSON.stringify({ query: marker }),
      headers: { 'Content-Type': 'application/json' },
    });
    const line = logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.route === '/test/echo')
      .at(-1);
    assert.ok(line);
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, 'number');
    assert.equal(typeof line.requestId, 'string');
    assert.ok(!logs.some((l) => l.includes(marker)));
  });

  it('serves an OpenAPI 3.1 document whose error responses come from the error table', async () => {
    const res = await app.request(`${BASE}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties: { code: { enum: string[] } } }> };
    };
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['/health', '/reference/courts', '/reference/case-types', '/coverage'])
      assert.ok(doc.paths[path]?.get, `${path} documented`);
    assert.ok(doc.paths['/reference/courts']?.get?.responses['429']);
    assert.deepEqual([...doc.components.schemas.CodedError!.properties.code.enum].sort(), Object.keys(ERROR_STATUS).sort());
  });

  it('serves the interactive reference at /docs with its own script bundle', async () => {
    const page = await app.request('/docs');
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /\/docs\/scalar\.js/);
    assert.match(html, /\/api\/v1\/prod\/openapi\.json/);
    const script = await app.request('/docs/scalar.js');
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
  });
});
