/**
 * Replays the saved histories of every workflow type (success, remote fetch, retries,
 * failure with reversal, consolidated) against today's workflow code. A change that
 * makes a workflow decide differently on an old history (a non-determinism error) fails
 * here. Histories are recorded by `npm run history:record` (test/int/analysis.int.test.ts
 * with RECORD_HISTORIES=1) with the test codec key, so payloads decode as in production.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { HISTORIES_DIR, readHistory, testDataConverter, workflowBundle } from '../support/temporal.ts';

const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.history.pb'));

describe('saved workflow histories replay on the current workflow code', () => {
  it('has a history of every workflow type and outcome', () => {
    for (const name of [
      'analysis-success',
      'analysis-remote-fetch',
      'analysis-retries',
      'analysis-failure-reversal',
      'consolidated-success',
      'webhook-retries',
    ]) {
      assert.ok(files.includes(`${name}.history.pb`), `missing ${name}.history.pb in ${HISTORIES_DIR}`);
    }
  });

  for (const file of files)
    it(`replays ${file} deterministically`, async () => {
      const history = readHistory(readFileSync(join(HISTORIES_DIR, file)));
      const { dataConverter } = await testDataConverter();
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter }, history, file.replace(/\.history\.pb$/, ''));
    });
});
