/**
 * The SDK as it ships: `npm run sdk:build`'s package passes publint (strict) and
 * arethetypeswrong (every resolution mode: node10, node16 from CommonJS and from ESM,
 * bundler); installed from its tarball into a fresh CommonJS project it loads with
 * require() and calls the real service; and its ES modules run under Deno
 * (node_modules/.bin/deno) against the same service, auto-paginating across a page
 * boundary, with Deno named in the User-Agent the service received.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { serve, type ServerType } from '@hono/node-server';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { runCommand } from '../support/service-process.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');
const SDK_VERSION = (JSON.parse(readFileSync(join(ROOT, 'sdk', 'package.json'), 'utf8')) as { version: string }).version;
const SEARCH_PRICE = 5;

const pglite = databases.find((d) => d.name === 'pglite')!;

describe('the SDK package', { timeout: 300_000 }, () => {
  let database: OpenedDatabase;
  let t: TestApp;
  let server: ServerType;
  let apiRoot: string;
  let account: { userId: string; key: string };
  const userAgents: string[] = [];
  const clock = new SettableClock(new Date('2026-11-20T10:00:30Z'));
  const work = mkdtempSync(join(tmpdir(), 'sdk-package-'));

  /** Runs to the end without blocking this process's event loop (the service answers from it). */
  const run = async (command: string, args: string[], cwd: string, env: Record<string, string> = {}) => {
    const done = await runCommand(command, args, env, cwd);
    assert.equal(done.code, 0, `${command} ${args.join(' ')}:\n${done.stdout}\n${done.stderr}`);
    return done.stdout;
  };
  const balance = async () => (await t.application.credits.balance(account.userId)).balance;

  before(async () => {
    database = await pglite.open();
    const index = new PostgresSearchIndex(database.db);
    server = serve({
      fetch: (request) => {
        userAgents.push(request.headers.get('user-agent') ?? '');
        return t.app.fetch(request);
      },
      port: 0,
      hostname: '127.0.0.1',
    });
    await new Promise((resolve) => server.once('listening', resolve));
    apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE}`;
    t = buildTestApp({ db: database.db, clock, index, publicBaseUrl: apiRoot, version: '0.1.0' });
    await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource] });
    await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
    account = await keyedUser(t.application.accounts, 'sdk-package', { requestsPerMinute: 1_000 });
    await t.application.credits.grant(account.userId, { amount: 1_000, source: 'grant' });
    await run('npm', ['run', 'sdk:build'], ROOT);
  });
  after(async () => {
    rmSync(work, { recursive: true, force: true });
    await new Promise((resolve) => server.close(resolve));
    await database.close();
  });

  it('passes publint (strict) and arethetypeswrong in every resolution mode', async () => {
    assert.match(await run(join(BIN, 'publint'), ['--strict'], join(ROOT, 'sdk', 'dist')), /All good!/);
    const report = await run(join(BIN, 'attw'), ['--pack', '.', '--format', 'json'], join(ROOT, 'sdk', 'dist'));
    const { analysis } = JSON.parse(report) as { analysis: { problems: unknown[]; entrypoints: Record<string, unknown> } };
    assert.deepEqual(analysis.problems, []);
    assert.ok('.' in analysis.entrypoints);
    const manifest = JSON.parse(readFileSync(join(ROOT, 'sdk', 'dist', 'package.json'), 'utf8')) as { license: string };
    assert.equal(manifest.license, 'MIT');
    assert.match(readFileSync(join(ROOT, 'sdk', 'dist', 'LICENSE'), 'utf8'), /^MIT License/);
  });

  it('loads with require() in a CommonJS project installed from the tarball, and calls the service', async () => {
    const project = join(work, 'cjs');
    await run('mkdir', ['-p', project], work);
    const tarball = (await run('npm', ['pack', '--pack-destination', project, './sdk/dist'], ROOT)).trim().split('\n').at(-1)!;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-cjs-consumer', private: true, type: 'commonjs' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(project, tarball)], project);
    writeFileSync(
      join(project, 'search.js'),
      [
        "const { createCourtRecordsClient, NotFoundError } = require('@court-records/sdk');",
        "if (typeof require('@court-records/sdk/package.json').version !== 'string') throw new Error('no manifest');",
        'const client = createCourtRecordsClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });',
        '(async () => {',
        "  const found = await client.search.cases({ query: 'union of india', limit: 2 });",
        "  const missing = await client.cases.get('sc-inabs-does-not-exist').catch((error) => error);",
        '  console.log(JSON.stringify({ charged: found.lastResponse.creditsCharged, hits: found.data.length, notFound: missing instanceof NotFoundError }));',
        '})();',
      ].join('\n'),
    );
    const before = await balance();
    const answer = JSON.parse(await run(process.execPath, ['search.js'], project, { BASE_URL: apiRoot, API_KEY: account.key })) as {
      charged: number;
      hits: number;
      notFound: boolean;
    };
    assert.deepEqual(answer, { charged: SEARCH_PRICE, hits: 2, notFound: true });
    assert.equal(await balance(), before - SEARCH_PRICE);
    assert.match(userAgents.at(-1) ?? '', new RegExp(`^court-records-sdk/${SDK_VERSION} \\(node `));
  });

  it('runs under Deno: its ES modules auto-paginate across a page boundary against the service, with Deno in the User-Agent', async () => {
    const script = join(work, 'deno-search.ts');
    const sdk = pathToFileURL(join(ROOT, 'sdk', 'dist', 'esm', 'index.js')).href;
    writeFileSync(
      script,
      [
        `import { createCourtRecordsClient, NotFoundError } from '${sdk}';`,
        "const client = createCourtRecordsClient({ baseUrl: Deno.env.get('BASE_URL')!, apiKey: Deno.env.get('API_KEY') });",
        "const hits = await client.search.casesAutoPaginate({ query: 'union of india', limit: 2, sortBy: 'recent' }).toArray({ limit: 3 });",
        "const missing = await client.cases.get('sc-inabs-does-not-exist').catch((error) => error);",
        'console.log(JSON.stringify({ ids: hits.map((h) => h.caseId), notFound: missing instanceof NotFoundError }));',
      ].join('\n'),
    );
    const port = new URL(apiRoot).port;
    const onePage = await t.app.request(`${BASE}/search/cases`, {
      method: 'POST',
      headers: { 'X-API-Key': account.key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'union of india', limit: 4, sortBy: 'recent' }),
    });
    const expected = ((await onePage.json()) as { data: { caseId: string }[] }).data.map((hit) => hit.caseId);
    const before = await balance();
    const answer = JSON.parse(
      await run(
        join(BIN, 'deno'),
        ['run', '--no-prompt', `--allow-net=127.0.0.1:${port}`, '--allow-env=BASE_URL,API_KEY', '--allow-read', script],
        work,
        { BASE_URL: apiRoot, API_KEY: account.key, NO_COLOR: '1' },
      ),
    ) as { ids: string[]; notFound: boolean };
    assert.deepEqual(answer, { ids: expected.slice(0, 3), notFound: true });
    assert.equal(await balance(), before - 2 * SEARCH_PRICE, 'two pages of two for three hits');
    assert.match(userAgents.at(-1) ?? '', new RegExp(`^court-records-sdk/${SDK_VERSION} \\(deno \\d`));
  });
});
