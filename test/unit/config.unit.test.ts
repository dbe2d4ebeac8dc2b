/** Config: defaults select the embedded stack; bad values fail fast naming every variable. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { processCount } from '../../src/composition/api-processes.ts';
import { outboundAddresses } from '../../src/composition/settings.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

const secrets = mkdtempSync(join(tmpdir(), 'config-secrets-'));
after(() => rmSync(secrets, { recursive: true, force: true }));

function secretFile(name: string, content: string): string {
  const path = join(secrets, name);
  writeFileSync(path, content);
  return path;
}

describe('config', () => {
  it('defaults to the embedded stack', () => {
    const config = loadConfig({});
    assert.equal(config.DATABASE_URL, undefined);
    assert.equal(config.MEILI_URL, undefined);
    assert.equal(config.PORT, 3000);
    assert.equal(config.DATA_DIR, './data');
    assert.equal(config.API_BASE_PATH, '/api/v1/prod');
  });

  it('treats empty service URLs as unset and splits CORS origins', () => {
    const config = loadConfig({ DATABASE_URL: '', CORS_ORIGINS: 'https://a.in, https://b.in' });
    assert.equal(config.DATABASE_URL, undefined);
    assert.deepEqual(config.CORS_ORIGINS, ['https://a.in', 'https://b.in']);
  });

  it('names every bad variable in one message', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', ADMIN_TOKEN: 'short' }),
      (e: Error) => ['PORT', 'DATABASE_URL', 'ADMIN_TOKEN'].every((name) => e.message.includes(name)),
    );
  });

  it('treats every blank setting as unset: LLM_URL and LLM_MODEL passed through empty select the local analysers', () => {
    const config = loadConfig({ LLM_URL: '', LLM_MODEL: '', LLM_API_KEY: '', COURT_PORTAL_URL: ' ', HOST: '', TRUSTED_PROXIES: '' });
    assert.equal(config.LLM_MODEL, undefined);
    assert.equal(config.LLM_API_KEY, undefined);
    assert.equal(config.COURT_PORTAL_URL, undefined);
    assert.equal(config.HOST, '127.0.0.1');
    assert.deepEqual(config.TRUSTED_PROXIES, []);
  });

  it('runs one API process by default, and more only on PostgreSQL with an external workflow engine', () => {
    assert.equal(loadConfig({}).API_PROCESSES, 1);
    const shared = { DATABASE_URL: 'postgres://u:p@db.example/x', KEY_HASH_SECRET: 'k'.repeat(32) };
    assert.throws(() => loadConfig({ API_PROCESSES: '2' }), /API_PROCESSES: more than one process needs DATABASE_URL/);
    assert.throws(() => loadConfig({ API_PROCESSES: 'auto' }), /API_PROCESSES: more than one process needs DATABASE_URL/);
    assert.throws(() => loadConfig({ API_PROCESSES: '2', ...shared }), /API_PROCESSES: more than one process needs TEMPORAL_ADDRESS/);
    const temporal = { TEMPORAL_ADDRESS: 'temporal.example:7233', TEMPORAL_CODEC_KEYS: `k1:${Buffer.alloc(32).toString('base64')}` };
    assert.equal(loadConfig({ API_PROCESSES: 'auto', ...shared, ...temporal }).API_PROCESSES, 'auto');
    assert.equal(loadConfig({ API_PROCESSES: '3', ...shared, ...temporal }).API_PROCESSES, 3);
    assert.throws(() => loadConfig({ API_PROCESSES: '0' }), /API_PROCESSES/);
    assert.equal(processCount('auto', 4), 4);
    assert.equal(processCount(2, 4), 2);
  });

  it('still refuses an LLM_URL without a model', () => {
    assert.throws(() => loadConfig({ LLM_URL: 'https://llm.example/v1', LLM_MODEL: '' }), /LLM_MODEL: required when LLM_URL is set/);
  });

  it('reads secrets from <NAME>_FILE, trailing newline trimmed', () => {
    const config = loadConfig({
      DATABASE_URL_FILE: secretFile('database-url', 'postgres://app:s3cret@db:5432/app\n'),
      KEY_HASH_SECRET_FILE: secretFile('key-hash', `${'k'.repeat(40)}\n`),
      MEILI_API_KEY_FILE: secretFile('meili', 'scoped-key\n'),
    });
    assert.equal(config.DATABASE_URL, 'postgres://app:s3cret@db:5432/app');
    assert.equal(config.KEY_HASH_SECRET, 'k'.repeat(40));
    assert.equal(config.MEILI_API_KEY, 'scoped-key');
  });

  it('validates a secret read from a file like one set directly', () => {
    assert.throws(
      () => loadConfig({ ADMIN_TOKEN_FILE: secretFile('short-token', 'short\n') }),
      /ADMIN_TOKEN must be at least 16 characters/,
    );
  });

  it('refuses a secret set both ways, a missing file and an empty one, naming each with the schema problems', () => {
    assert.throws(
      () =>
        loadConfig({
          METRICS_TOKEN: 'm'.repeat(20),
          METRICS_TOKEN_FILE: secretFile('metrics', 'm'.repeat(20)),
          KEY_HASH_SECRET_FILE: join(secrets, 'absent'),
          ADMIN_TOKEN_FILE: secretFile('empty', '\n'),
          PORT: 'eighty',
        }),
      (e: Error) =>
        /METRICS_TOKEN: set METRICS_TOKEN or METRICS_TOKEN_FILE, not both/.test(e.message) &&
        /KEY_HASH_SECRET_FILE: cannot read .*absent \(ENOENT\)/.test(e.message) &&
        /ADMIN_TOKEN_FILE: .*empty is empty/.test(e.message) &&
        e.message.includes('PORT') &&
        !e.message.includes('m'.repeat(20)),
    );
  });

  it('allows insecure outbound URLs (http, loopback) only while the service listens on loopback', () => {
    assert.equal(outboundAddresses(loadConfig({})), 'public-or-loopback');
    assert.equal(outboundAddresses(loadConfig({ HOST: '::1', WEBHOOK_ALLOW_INSECURE_URLS: 'true' })), 'public-or-loopback');
    // Off by default where other machines can reach the service, or on a deployment.
    assert.equal(outboundAddresses(loadConfig({ HOST: '0.0.0.0' })), 'public');
    assert.equal(outboundAddresses(loadConfig({ DATABASE_URL: 'postgres://db/x', KEY_HASH_SECRET: 'k'.repeat(32) })), 'public');
    assert.equal(outboundAddresses(loadConfig({ WEBHOOK_ALLOW_INSECURE_URLS: 'false' })), 'public');
    for (const HOST of ['0.0.0.0', '::', '10.1.2.3', 'api.internal']) {
      assert.throws(
        () => loadConfig({ HOST, WEBHOOK_ALLOW_INSECURE_URLS: 'true' }),
        (e: Error) =>
          e instanceof ConfigError && e.message.includes('WEBHOOK_ALLOW_INSECURE_URLS') && e.message.includes(`HOST is ${HOST}`),
        HOST,
      );
    }
  });
});
