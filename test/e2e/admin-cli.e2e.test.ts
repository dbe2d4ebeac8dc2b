/**
 * Black-box: the `court-records admin` bin, run as an operator runs it, against the real
 * service started with an ADMIN_TOKEN on embedded defaults (first start ingests the real
 * corpus), and against one on PostgreSQL started without a token, where the admin API does
 * not exist (on the embedded default it does, with a local token: quickstart.e2e.test.ts).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { corpusDir } from '../support/corpus.ts';
import { runCommand, startService, type CommandRun, type RunningService } from '../support/service-process.ts';

const TOKEN = 'e2e-admin-token-0123456789abcdef';

function cli(args: string[], env: Record<string, string>): Promise<CommandRun> {
  return runCommand(process.execPath, ['bin/court-records.mjs', 'admin', ...args], env);
}

/** Exit 0, nothing on stderr, and stdout exactly one JSON object on one line. */
function oneObject(result: CommandRun): Record<string, unknown> {
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.match(result.stdout, /^[^\n]+\n$/);
  const value = JSON.parse(result.stdout) as unknown;
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), result.stdout);
  return value as Record<string, unknown>;
}

/** A case the first-start ingest loads: the first eCourts fixture row that maps. */
async function realCaseId(): Promise<string> {
  for await (const result of ecourtsHcSource.read({ folderPath: join(corpusDir, ecourtsHcSource.folder), corpusDir })) {
    if ('ok' in result) return result.ok.caseId;
  }
  throw new Error('no eCourts fixture row maps to a case');
}

describe('court-records admin against the service with ADMIN_TOKEN', () => {
  let service: RunningService;
  let env: Record<string, string>;

  before(async () => {
    service = await startService('node', { ADMIN_TOKEN: TOKEN, AUTO_INGEST: 'true', CORPUS_DIR: corpusDir });
    env = { COURT_RECORDS_URL: service.url, ADMIN_TOKEN: TOKEN };
  });
  after(async () => service.stop());

  it('provisions an organisation, a user and a key, then manages them', async () => {
    const { organizationId } = oneObject(await cli(['org', 'create', '--name', 'E2E Chambers', '--allowlist', '203.0.113.0/24'], env));
    assert.equal(typeof organizationId, 'string');
    const orgId = organizationId as string;

    const user = oneObject(
      await cli(
        ['user', 'create', '--email', 'counsel@e2e-chambers.example', '--name', 'E2E Counsel', '--tier', 'enterprise', '--org', orgId],
        env,
      ),
    );
    assert.equal(user.organizationId, orgId);
    const userId = user.userId as string;

    const key = oneObject(await cli(['key', 'create', '--user', userId, '--name', 'e2e'], env));
    assert.deepEqual(Object.keys(key).sort(), ['displayKey', 'fullKey', 'id', 'mode', 'name']);
    assert.match(key.fullKey as string, /^crk_live-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/);
    const testKey = oneObject(await cli(['key', 'create', '--user', userId, '--name', 'sandbox', '--mode', 'test'], env));
    assert.equal(testKey.mode, 'test');
    assert.match(testKey.fullKey as string, /^crk_test-[A-Za-z0-9]{32}-[A-Za-z0-9]{4}$/);
    assert.deepEqual(oneObject(await cli(['key', 'revoke', '--key', testKey.id as string], env)), { keyId: testKey.id, status: 'revoked' });

    assert.deepEqual(oneObject(await cli(['user', 'set-standing', '--user', userId, '--standing', 'billing_inactive'], env)), {
      userId,
      standing: 'billing_inactive',
    });
    assert.deepEqual(
      oneObject(await cli(['org', 'allowlist', '--org', orgId, '--set', '198.51.100.0/24,2001:db8::/32', '--strict'], env)),
      {
        organizationId: orgId,
        allowlist: ['198.51.100.0/24', '2001:db8::/32'],
        strict: true,
      },
    );
    assert.deepEqual(oneObject(await cli(['org', 'allowlist', '--org', orgId, '--set', ''], env)), {
      organizationId: orgId,
      allowlist: [],
      strict: true,
    });
    assert.deepEqual(oneObject(await cli(['org', 'deactivate', '--org', orgId], env)), { organizationId: orgId, status: 'deactivated' });

    const late = await cli(
      ['user', 'create', '--email', 'late@e2e-chambers.example', '--name', 'Late', '--tier', 'enterprise', '--org', orgId],
      env,
    );
    assert.deepEqual([late.code, late.stdout], [1, '']);
    assert.match(late.stderr, /^court-records admin: ORGANIZATION_DEACTIVATED: /);
  });

  it('prints a refusal on stderr and exits 1', async () => {
    oneObject(await cli(['user', 'create', '--email', 'once@e2e.example', '--name', 'Once', '--tier', 'payg', '--no-api-access'], env));
    const twice = await cli(['user', 'create', '--email', 'once@e2e.example', '--name', 'Once', '--tier', 'payg'], env);
    assert.deepEqual(twice, { code: 1, stdout: '', stderr: 'court-records admin: EMAIL_TAKEN: A user with this email already exists.\n' });

    const wrongToken = await cli(['org', 'create', '--name', 'Nope'], { ...env, ADMIN_TOKEN: 'x'.repeat(TOKEN.length) });
    assert.equal(wrongToken.code, 1);
    assert.equal(wrongToken.stdout, '');
    assert.match(wrongToken.stderr, /^court-records admin: ADMIN_UNAUTHORIZED: /);

    const unreachable = await cli(['org', 'create', '--name', 'Nope'], { ...env, COURT_RECORDS_URL: 'http://127.0.0.1:9' });
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.stderr, /^court-records admin: cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it('exits 2 on a bad command line', async () => {
    const result = await cli(['user', 'create', '--email', 'x@e2e.example', '--name', 'X'], env);
    assert.deepEqual([result.code, result.stdout], [2, '']);
    assert.match(result.stderr, /missing --tier/);
  });

  it('restricts a case from the ingested corpus; an unknown case exits 1', async () => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && !service.output().includes('corpus ingested')) await new Promise((r) => setTimeout(r, 500));
    assert.ok(service.output().includes('corpus ingested'), 'first-start ingest finished');
    const caseId = await realCaseId();
    assert.deepEqual(oneObject(await cli(['case', 'restrict', '--case', caseId], env)), { caseId, restricted: true });
    assert.deepEqual(oneObject(await cli(['case', 'restrict', '--case', caseId], env)), { caseId, restricted: true });
    const missing = await cli(['case', 'restrict', '--case', 'hc-NOSUCHCASE0000'], env);
    assert.deepEqual(missing, { code: 1, stdout: '', stderr: 'court-records admin: CASE_NOT_FOUND: No case matches this identifier.\n' });
  });
});

// The service inherits the runner's environment, and an empty ADMIN_TOKEN is a config error, not "unset".
const adminUrl = process.env.TEST_DATABASE_URL;
const noTokenSkip = process.env.ADMIN_TOKEN ? 'ADMIN_TOKEN is set in the test environment' : adminUrl ? false : 'needs TEST_DATABASE_URL';

describe('court-records admin against the service on PostgreSQL without ADMIN_TOKEN', { skip: noTokenSkip }, () => {
  let service: RunningService;
  const name = `e2e_admin_${String(Date.now())}`;
  before(async () => {
    const root = postgres(adminUrl as string, { max: 1, onnotice: () => undefined });
    await root.unsafe(`create database ${name}`);
    await root.end();
    const url = new URL(adminUrl as string);
    url.pathname = `/${name}`;
    service = await startService('node', {
      AUTO_INGEST: 'false',
      DATABASE_URL: url.toString(),
      KEY_HASH_SECRET: 'e2e-key-hash-secret-of-at-least-32-chars',
    });
  });
  after(async () => {
    await service.stop();
    const root = postgres(adminUrl as string, { max: 1, onnotice: () => undefined });
    await root.unsafe(`drop database if exists ${name} with (force)`);
    // Test mode's database beside it, which the service creates (composition/test-mode-adapters.ts).
    await root.unsafe(`drop database if exists ${name}_test_mode with (force)`);
    await root.end();
  });

  it('finds no admin API: 404 like any unknown route', async () => {
    const res = await fetch(`${service.url}/admin/organizations`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, 'ROUTE_NOT_FOUND');
    const result = await cli(['org', 'create', '--name', 'Nope'], { COURT_RECORDS_URL: service.url, ADMIN_TOKEN: TOKEN });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^court-records admin: ROUTE_NOT_FOUND: .*\(is ADMIN_TOKEN set on the service\?\)\n$/);
  });
});
