/**
 * Which engine `npm run worker` joins: TEMPORAL_ADDRESS when set; else the dev server the
 * API on this machine started, whose address the API records in its DATA_DIR (the dev
 * server moves off TEMPORAL_DEV_PORT when that port is taken); else that port.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { devServerAddressFile, workerTemporalAddress } from '../../src/compose-workflows.ts';
import { loadConfig } from '../../src/config.ts';

describe('the engine a worker apart from the API joins', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'worker-address-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = (env: Record<string, string> = {}) => loadConfig({ DATA_DIR: dataDir, TEMPORAL_DEV_PORT: '7300', ...env });

  it('is the dev server port when no API recorded an address', () => {
    assert.equal(workerTemporalAddress(config()), '127.0.0.1:7300');
  });

  it('is the address the API recorded for the dev server it started', () => {
    writeFileSync(devServerAddressFile(dataDir), '127.0.0.1:41234\n');
    assert.equal(workerTemporalAddress(config()), '127.0.0.1:41234');
  });

  it('is TEMPORAL_ADDRESS whenever it is set', () => {
    const keys = `k1:${randomBytes(32).toString('base64')}`;
    assert.equal(
      workerTemporalAddress(config({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_CODEC_KEYS: keys })),
      'temporal.internal:7233',
    );
  });
});
