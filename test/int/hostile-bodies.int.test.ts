/**
 * Every operation of the whole OpenAPI document (API, dashboard, admin, ops) that takes a
 * JSON body gets hostile bodies: empty, blank, whitespace, `null`, an array, a string, a
 * number, a boolean, a body nested 40,000 levels deep (inside a field the route knows,
 * so a lenient schema cannot drop it), with and without a JSON content type, each past
 * the route's gate (a valid key with credits, a dashboard session with its CSRF token, the
 * admin token). Each must be a 400 in the spec's coded shape, MALFORMED_JSON or
 * VALIDATION_ERROR, never a 5xx, and nothing may be charged. The operations are read from
 * the served document, so a new route is covered the day it is registered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { databases } from '../support/databases.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;
const ADMIN_TOKEN = 'hostile-bodies-admin-token-0001';
const PASSWORD = 'a long and careful passphrase';
/** Deep enough to overflow any recursive walk of the parsed body, small enough to stay under 256 kb. */
const DEPTH = 40_000;

interface Operation {
  readonly method: string;
  readonly path: string;
  /** A property the body schema names, so a nested value lands where the route looks. */
  readonly field: string | undefined;
}

const nested = (field: string | undefined) => `{${field ? JSON.stringify(field) : '"x"'}:${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;
const nestedObject = (field: string | undefined) =>
  `{${field ? JSON.stringify(field) : '"x"'}:${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}`;

function hostileBodies(field: string | undefined): [string, string][] {
  return [
    ['empty', ''],
    ['blank line', '\n'],
    ['whitespace', ' \t \r\n '],
    ['null', 'null'],
    ['array', '[]'],
    ['array of objects', '[{}]'],
    ['string', '"hello"'],
    ['number', '42'],
    ['boolean', 'true'],
    ['deeply nested array', nested(field)],
    ['deeply nested object', nestedObject(field)],
  ];
}

for (const factory of databases)
  describe(`hostile JSON bodies on every operation, on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let t: TestApp;
    let key: string;
    let account: string;
    let cookie: string;
    let csrf: string;
    let keyId: string;
    const operations: Operation[] = [];

    before(async () => {
      database = await factory.open();
      t = buildTestApp({ db: database.db, adminToken: ADMIN_TOKEN });
      const registered = await t.application.accounts.registerUser(
        enterpriseUser('hostile@bodies.example', { password: PASSWORD }),
        operator,
      );
      assert.ok(registered.ok);
      account = registered.value.userId;
      const created = await t.application.accounts.createKey(account, 'hostile', operator);
      assert.ok(created.ok);
      key = created.value.fullKey;
      keyId = created.value.id;
      await t.application.credits.grantToUser(account, { amount: 100_000, source: 'grant' });
      const login = await t.app.request('http://localhost/api/settings/login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'hostile@bodies.example', password: PASSWORD }),
      });
      assert.equal(login.status, 200);
      cookie = /^(session=[^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!;
      csrf = ((await login.json()) as { data: { csrfToken: string } }).data.csrfToken;

      // The operator's document: it alone lists the admin and ops routes.
      const doc = (await (await t.app.request('/openapi.json', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
        paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
        components?: { schemas?: Record<string, unknown> };
      };
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const schema = op.requestBody?.content?.['application/json']?.schema;
          if (schema === undefined) continue;
          operations.push({ method: method.toUpperCase(), path, field: firstProperty(schema, doc.components?.schemas ?? {}) });
        }
      }
    });
    after(async () => database.close());

    function concrete(path: string): string {
      return path
        .replace('{id}', path.startsWith('/api/settings') ? keyId : 'sc-inabs-5861')
        .replace('{caseId}', 'sc-inabs-5861')
        .replace('{userId}', account)
        .replace('{organizationId}', 'org_none')
        .replace(/\{[^}]+\}/g, 'x');
    }

    function gateHeaders(path: string): Record<string, string> {
      if (path.startsWith('/api/settings')) return { Cookie: cookie, 'X-CSRF-Token': csrf };
      if (path.startsWith('/admin') || path.startsWith('/ops')) return { Authorization: `Bearer ${ADMIN_TOKEN}` };
      return { 'X-API-Key': key };
    }

    it('finds the JSON operations in the served document', () => {
      assert.ok(operations.length >= 15, `found ${String(operations.length)}`);
      assert.ok(operations.some((o) => o.path === '/api/v1/prod/search/cases/semantic'));
    });

    it('answers every hostile body with a coded 400 and charges nothing', async () => {
      const before = (await t.application.credits.balance(account)).balance;
      const failures: string[] = [];
      for (const op of operations) {
        for (const [label, body] of hostileBodies(op.field)) {
          for (const contentType of ['application/json', 'text/plain', undefined]) {
            const started = performance.now();
            const res = await t.app.request(`http://localhost${concrete(op.path)}`, {
              method: op.method,
              headers: { ...gateHeaders(op.path), ...(contentType ? { 'Content-Type': contentType } : {}) },
              // A string body would be sent as text/plain; bytes go out with no content type at all.
              body: contentType ? body : new TextEncoder().encode(body),
            });
            const elapsed = performance.now() - started;
            const text = await res.text();
            let code: unknown;
            try {
              code = (JSON.parse(text) as Json).code;
            } catch {
              code = undefined;
            }
            const what = `${op.method} ${op.path} ${label} (${contentType ?? 'no content type'})`;
            // Nothing at all, untyped, is no body: a route whose body is optional rightly runs.
            const noBody = body === '' && contentType === undefined;
            const refused = res.status === 400 && (code === 'MALFORMED_JSON' || code === 'VALIDATION_ERROR');
            if (noBody ? res.status >= 500 : !refused) failures.push(`${what}: ${String(res.status)} ${text.slice(0, 200)}`);
            if (elapsed > 2_000) failures.push(`${what}: took ${elapsed.toFixed(0)} ms`);
          }
        }
      }
      assert.deepEqual(failures, []);
      // Only the bodiless calls may have run (an analysis refused for want of a workflow engine charges nothing).
      assert.equal((await t.application.credits.balance(account)).balance, before);
    });
  });

/** The first property an object schema names (following a local $ref), if any. */
function firstProperty(schema: unknown, components: Record<string, unknown>): string | undefined {
  let current = schema as { $ref?: string; properties?: Record<string, unknown> } | undefined;
  for (let hops = 0; hops < 5 && current?.$ref !== undefined; hops += 1) {
    current = components[current.$ref.split('/').pop() ?? ''] as typeof current;
  }
  return current?.properties ? Object.keys(current.properties)[0] : undefined;
}
