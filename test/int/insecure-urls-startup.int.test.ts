/**
 * The development setting for outbound requests (WEBHOOK_ALLOW_INSECURE_URLS) is refused off
 * loopback: the service started with it on and HOST=0.0.0.0 says so in one line on stderr
 * and exits 1 before it listens or opens anything. The API and the standalone worker alike.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCommand } from '../support/service-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'insecure-urls-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

const REFUSAL =
  'not started: Invalid configuration: WEBHOOK_ALLOW_INSECURE_URLS: true only while HOST is loopback (127.0.0.1, ::1 or localhost), and HOST is 0.0.0.0\n';

describe('insecure outbound URLs off loopback', () => {
  const env = { HOST: '0.0.0.0', PORT: '0', DATA_DIR: dataDir, WEBHOOK_ALLOW_INSECURE_URLS: 'true', DATABASE_URL: '', LOG_LEVEL: 'info' };

  it('the API refuses to start, in one line', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
    assert.deepEqual(run, { code: 1, stdout: '', stderr: `court-records: ${REFUSAL}` });
  });

  it('the standalone worker refuses to start, in one line', async () => {
    const run = await runCommand(process.execPath, ['--import', 'tsx', 'workflows/worker/main.ts'], {
      ...env,
      DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:5432/postgres',
      KEY_HASH_SECRET: 'k'.repeat(32),
    });
    assert.deepEqual(run, { code: 1, stdout: '', stderr: `court-records-worker: ${REFUSAL}` });
  });
});
