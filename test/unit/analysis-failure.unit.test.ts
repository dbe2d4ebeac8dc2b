/**
 * What a customer is told of a failed analysis run: a documented code and its fixed
 * message, whatever raw text the recorded reason holds; the customer guide documents them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ANALYSIS_FAILURES, customerFailure, failureReason } from '../../src/domain/analysis-request/failure.ts';

describe('analysis failure codes', () => {
  it('tells a reason the service decided by its code, with the code’s message and not the detail', () => {
    for (const code of Object.keys(ANALYSIS_FAILURES) as (keyof typeof ANALYSIS_FAILURES)[]) {
      const told = customerFailure(failureReason(code, 'run r1 on worker 10.0.4.7: connect ECONNREFUSED'));
      assert.deepEqual(told, { code, message: ANALYSIS_FAILURES[code] });
    }
  });

  it('tells raw internal text as ANALYSIS_FAILED, or ANALYSIS_TIMED_OUT for a deadline, never echoing it', () => {
    const raw = [
      'relation "analysis_runs" does not exist',
      'connect ECONNREFUSED 10.0.0.5:5432',
      "Activity task failed: TypeError: Cannot read properties of undefined (reading 'paragraphs')",
      'NOT_A_CODE: something internal',
    ];
    for (const reason of raw) {
      const told = customerFailure(reason);
      assert.equal(told.code, 'ANALYSIS_FAILED', reason);
      assert.ok(!told.message.includes(reason), reason);
    }
    assert.equal(customerFailure('Activity task timed out').code, 'ANALYSIS_TIMED_OUT');
    assert.equal(customerFailure('Workflow execution deadline exceeded').code, 'ANALYSIS_TIMED_OUT');
  });

  it('gives every code a message a customer can act on, free of internal words', () => {
    for (const [code, message] of Object.entries(ANALYSIS_FAILURES)) {
      assert.match(code, /^[A-Z_]+$/);
      assert.match(message, /given back/, code);
      assert.doesNotMatch(message, /temporal|activity|workflow|postgres|exception|stack/i, code);
    }
  });

  it('is the table docs/customer-guide.md documents, code by code', () => {
    const guide = readFileSync('docs/customer-guide.md', 'utf8');
    for (const [code, message] of Object.entries(ANALYSIS_FAILURES)) assert.ok(guide.includes(`| \`${code}\` | ${message} |`), code);
  });
});
