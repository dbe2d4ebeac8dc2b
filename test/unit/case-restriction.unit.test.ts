/**
 * The case-restriction decider under the removal policy, given events, when a command,
 * then events or a refusal: a held case is restricted once, with who-and-when left to the
 * event; restricting it again records nothing; a case the store does not hold is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideCaseRestriction,
  evolveCaseRestriction,
  initialCaseRestriction,
  type CaseRestrictionCommand,
  type CaseRestrictionEvent,
} from '../../src/domain/case/restriction.ts';
import { spec } from '../support/decider-spec.ts';

const AT = '2026-11-26T10:00:00.000Z';
const LATER = '2026-11-27T08:30:00.000Z';
const CASE = 'sc-inabs-5861';

const restriction = spec({ decide: decideCaseRestriction, evolve: evolveCaseRestriction, initialState: initialCaseRestriction });
const restrict = (over: Partial<CaseRestrictionCommand> = {}): CaseRestrictionCommand => ({
  type: 'RestrictCase',
  caseId: CASE,
  at: AT,
  caseHeld: true,
  ...over,
});
const restricted: CaseRestrictionEvent = { type: 'CaseRestricted', data: { caseId: CASE, restrictedAt: AT } };

describe('case restriction decider', () => {
  it('restricts a held case, recording when', () => {
    restriction.given([]).when(restrict()).then([restricted]);
  });

  it('records nothing when the case is restricted again, whenever that is', () => {
    restriction
      .given([restricted])
      .when(restrict({ at: LATER }))
      .thenNothing();
  });

  it('refuses a case the store does not hold, restricted on the stream or not', () => {
    restriction
      .given([])
      .when(restrict({ caseHeld: false }))
      .thenRefuses({ tag: 'CaseNotFound' });
    restriction
      .given([restricted])
      .when(restrict({ caseHeld: false }))
      .thenRefuses({ tag: 'CaseNotFound' });
  });
});

describe('case restriction evolve', () => {
  it('starts unrestricted and stays restricted once a restriction is recorded', () => {
    assert.deepEqual(initialCaseRestriction, { restricted: false });
    assert.deepEqual(restriction.given([]).when(restrict()).thenState(), { restricted: true });
    assert.deepEqual(
      restriction
        .given([restricted])
        .when(restrict({ at: LATER }))
        .thenState(),
      { restricted: true },
    );
    assert.deepEqual(evolveCaseRestriction({ restricted: true }, { type: 'CaseRestricted', data: { caseId: CASE, restrictedAt: LATER } }), {
      restricted: true,
    });
  });
});
