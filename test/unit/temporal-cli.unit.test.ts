/**
 * Which Temporal CLI the embedded default runs: TEMPORAL_CLI_PATH, then `temporal` on PATH,
 * then ../shared/bin/temporal beside the working directory, and the SDK's download only
 * when none is there. The file system is a set of executable paths here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findTemporalCli, TemporalCliNotFoundError, type CliLookup } from '../../src/adapters/temporal/temporal-cli.ts';

const CWD = '/srv/checkout';
const SHARED = '/srv/shared/bin/temporal';

function lookup(executables: readonly string[], over: Partial<CliLookup> = {}): CliLookup {
  return { configured: undefined, searchPath: '/usr/local/bin:/usr/bin', cwd: CWD, isExecutable: (p) => executables.includes(p), ...over };
}

describe('finding the Temporal CLI', () => {
  it('takes TEMPORAL_CLI_PATH first, over PATH and ../shared', () => {
    const cli = findTemporalCli(lookup(['/opt/t/temporal', '/usr/bin/temporal', SHARED], { configured: '/opt/t/temporal' }));
    assert.deepEqual(cli, { path: '/opt/t/temporal', source: 'TEMPORAL_CLI_PATH' });
  });

  it('refuses a TEMPORAL_CLI_PATH that names nothing runnable rather than run another CLI', () => {
    assert.throws(() => findTemporalCli(lookup(['/usr/bin/temporal', SHARED], { configured: '/nope/temporal' })), TemporalCliNotFoundError);
  });

  it('treats an empty TEMPORAL_CLI_PATH as unset', () => {
    assert.deepEqual(findTemporalCli(lookup([SHARED], { configured: '' })), { path: SHARED, source: '../shared/bin/temporal' });
  });

  it('takes the first `temporal` on PATH, in PATH order, over ../shared', () => {
    const cli = findTemporalCli(lookup(['/usr/bin/temporal', '/usr/local/bin/temporal', SHARED]));
    assert.deepEqual(cli, { path: '/usr/local/bin/temporal', source: 'PATH' });
  });

  it('skips empty PATH entries (they are not the working directory)', () => {
    assert.deepEqual(findTemporalCli(lookup(['temporal', SHARED], { searchPath: '::' })), {
      path: SHARED,
      source: '../shared/bin/temporal',
    });
  });

  it('falls back to ../shared/bin/temporal beside the working directory', () => {
    assert.deepEqual(findTemporalCli(lookup([SHARED], { searchPath: undefined })), { path: SHARED, source: '../shared/bin/temporal' });
    assert.deepEqual(findTemporalCli(lookup([SHARED], { cwd: '/elsewhere/checkout' })), { path: undefined, source: 'download' });
  });

  it('leaves the download to the SDK only when no CLI is found', () => {
    assert.deepEqual(findTemporalCli(lookup([])), { path: undefined, source: 'download' });
  });
});
