/**
 * The OpenAPI documents the service serves (the API's, and the whole surface's with the
 * dashboard, admin and ops routes mounted: with the admin and ops paths for a caller
 * presenting ADMIN_TOKEN, without them for anyone else) pass Redocly CLI's recommended rules
 * (redocly.yaml) with no error and no warning, every operation has an operationId,
 * unique across the surface (the SDK's method names), and the headers clients read (request
 * id, rate limit, credits, Retry-After) are declared where the service sends them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPayloadCodec, parseCodecKeyring } from '../../src/adapters/temporal/payload-codec.ts';
import { buildTestApp } from '../support/app.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

interface Operation {
  operationId?: string;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

interface Document {
  readonly paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
}

function headersOf(document: Document, method: (typeof METHODS)[number], path: string, status: string): string[] {
  return Object.keys(document.paths[path]?.[method]?.responses?.[status]?.headers ?? {}).sort();
}

function operations(document: Document): { where: string; operationId: string | undefined }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation === undefined ? [] : [{ where: `${method.toUpperCase()} ${path}`, operationId: operation.operationId }];
    }),
  );
}

describe('OpenAPI documents', () => {
  let database: TestDatabase;
  let dir: string;
  let app: ReturnType<typeof buildTestApp>['app'];
  const served: Record<'api' | 'root' | 'open', Document> = { api: { paths: {} }, root: { paths: {} }, open: { paths: {} } };
  const ADMIN_TOKEN = 'openapi-lint-admin-token-0123456789';

  before(async () => {
    const pglite = databases.find((d) => d.name === 'pglite');
    assert.ok(pglite);
    database = await pglite.open();
    ({ app } = buildTestApp({
      db: database.db,
      adminToken: ADMIN_TOKEN,
      codec: createPayloadCodec(parseCodecKeyring(`k1:${Buffer.alloc(32, 7).toString('base64')}`)),
    }));
    dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    const operator = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const [name, path, headers] of [
      ['api', '/api/v1/prod/openapi.json', {}],
      ['root', '/openapi.json', operator],
      ['open', '/openapi.json', {}],
    ] as const) {
      const res = await app.request(path, { headers });
      assert.equal(res.status, 200);
      const text = await res.text();
      writeFileSync(join(dir, `${name}.json`), text);
      served[name] = JSON.parse(text) as Document;
    }
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.close();
  });

  it('mounts the admin and ops routes in the whole surface’s document the operator gets', () => {
    const paths = Object.keys(served.root.paths);
    assert.ok(paths.some((p) => p.startsWith('/admin/')));
    assert.ok(paths.some((p) => p.startsWith('/ops/temporal-codec')));
    assert.ok(paths.some((p) => p.startsWith('/api/settings/')));
  });

  it('leaves the admin and ops routes out of the document anyone else gets, and refuses a wrong token', async () => {
    const paths = Object.keys(served.open.paths);
    assert.deepEqual(
      paths.filter((p) => /^\/(admin|ops)\b/.test(p)),
      [],
    );
    assert.ok(paths.some((p) => p.startsWith('/api/settings/')));
    assert.deepEqual(
      Object.keys(served.root.paths).filter((p) => !paths.includes(p) && !/^\/(admin|ops)\//.test(p)),
      [],
      'only operator paths are left out',
    );
    assert.equal(JSON.stringify(served.open).includes('AdminToken'), false);
    const wrong = await app.request('/openapi.json', { headers: { Authorization: `Bearer ${'x'.repeat(ADMIN_TOKEN.length)}` } });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { code: string }).code, 'ADMIN_UNAUTHORIZED');
  });

  it('gives every operation an operationId, unique across the surface', () => {
    const all = operations(served.root);
    assert.ok(all.length >= 40, `${String(all.length)} operations`);
    assert.deepEqual(
      all.filter((o) => o.operationId === undefined).map((o) => o.where),
      [],
    );
    const ids = all.map((o) => o.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds repeat');
    // The API's own document is a subset with the same ids.
    const api = operations(served.api);
    assert.ok(api.every((o) => o.operationId !== undefined && ids.includes(o.operationId)));
  });

  it('declares the headers clients read where the service sends them', async () => {
    const api = served.api;
    assert.deepEqual(headersOf(api, 'get', '/health', '200'), ['X-Request-Id']);
    assert.deepEqual(headersOf(api, 'get', '/cases/{id}', '200'), [
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Credits-Charged',
      'X-Credits-Remaining',
      'X-Request-Id',
    ]);
    assert.deepEqual(headersOf(api, 'get', '/cases/{id}', '429'), [
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'X-Request-Id',
    ]);
    assert.ok(headersOf(api, 'get', '/reference/courts', '200').includes('RateLimit-Remaining'));
    assert.ok(headersOf(api, 'get', '/reference/courts', '200').includes('ETag'), 'a route’s own headers are kept');
    // What is declared is sent: the public routes' answers, as served.
    const health = await app.request('/api/v1/prod/health');
    assert.ok(health.headers.get('X-Request-Id'));
    const courts = await app.request('/api/v1/prod/reference/courts');
    for (const name of headersOf(api, 'get', '/reference/courts', '200')) {
      assert.ok(courts.headers.get(name), `${name} declared but not sent`);
    }
  });

  it('passes Redocly’s recommended rules with no error and no warning', () => {
    const run = spawnSync(
      process.execPath,
      [
        'node_modules/@redocly/cli/bin/cli.js',
        'lint',
        '--config',
        'redocly.yaml',
        '--format',
        'summary',
        join(dir, 'api.json'),
        join(dir, 'root.json'),
        join(dir, 'open.json'),
      ],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.doesNotMatch(output, /\b(error|warning)\s+[a-z-]+: \d+/, output);
    assert.match(output, /Your API descriptions are valid/, output);
  });
});
