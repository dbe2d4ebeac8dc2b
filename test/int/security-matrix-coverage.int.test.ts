/**
 * Every route that takes an API key has a row in the shared security matrix. The keyed
 * routes come from the app itself (each operation of the served OpenAPI document whose
 * security names the API key), the rows from the int tests' `securityMatrix(...)` calls,
 * so a new keyed route without a row, or a row left behind by a removed route, fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { openPglite } from '../../src/db/open.ts';
import { BASE, buildTestApp, SettableClock } from '../support/app.ts';

interface OpenApiDocument {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `METHOD /path/{param}` for every operation the API key (header or Bearer) opens. */
async function keyedOperations(): Promise<string[]> {
  // Serving the document touches no table, so a closed database will do.
  const closed = await openPglite(undefined);
  await closed.close();
  const app = buildTestApp({ db: closed.db, clock: new SettableClock(new Date('2026-11-26T10:00:00Z')) }).app;
  const res = await app.request(`${BASE}/openapi.json`);
  assert.equal(res.status, 200);
  const document = (await res.json()) as OpenApiDocument;
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => (item[method]?.security ?? []).some((requirement) => 'ApiKeyHeader' in requirement)).map(
      (method) => `${method.toUpperCase()} ${path}`,
    ),
  );
}

/** The matrix rows as the int tests write them: `securityMatrix({ method: 'GET', path: '/cases/x', ... })`. */
const ROW = /securityMatrix\(\s*\{\s*method:\s*'([A-Z]+)',\s*path:\s*'([^']+)'/g;

function matrixRows(): { method: string; path: string; file: string }[] {
  const dir = import.meta.dirname;
  return readdirSync(dir)
    .filter((name) => name.endsWith('.int.test.ts'))
    .flatMap((file) =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(ROW)].map((match) => ({
        method: match[1] ?? '',
        path: (match[2] ?? '').split('?')[0] ?? '',
        file,
      })),
    );
}

/** Whether a concrete row path is an instance of the operation's templated path. */
function rowMatches(operation: string, row: { method: string; path: string }): boolean {
  const [method, template = ''] = operation.split(' ');
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
  return method === row.method && pattern.test(row.path);
}

describe('security matrix coverage', () => {
  let operations: string[];
  const rows = matrixRows();

  before(async () => {
    operations = await keyedOperations();
  });

  it('finds the keyed routes in the served OpenAPI document and the rows in the int tests', () => {
    assert.ok(operations.length >= 15, `only ${String(operations.length)} keyed operations: ${operations.join(', ')}`);
    assert.ok(rows.length >= 10, `only ${String(rows.length)} matrix rows found: is the pattern still right?`);
  });

  it('has a security matrix row for every route that takes an API key', () => {
    const uncovered = operations.filter((operation) => !rows.some((row) => rowMatches(operation, row)));
    assert.deepEqual(uncovered, [], `keyed routes without a securityMatrix row:\n${uncovered.join('\n')}`);
  });

  it('has no row for a route that is not keyed (a renamed or removed route)', () => {
    const stale = rows.filter((row) => !operations.some((operation) => rowMatches(operation, row)));
    assert.deepEqual(
      stale.map((row) => `${row.method} ${row.path} (${row.file})`),
      [],
    );
  });
});
