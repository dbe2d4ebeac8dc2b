/**
 * Case restriction under the removal policy. Case records are facts ingested from the
 * courts, not event-sourced; the decision to withhold one is ours, so it is recorded as an
 * event in the case's own stream: who restricted it and when stays on the record.
 */
import { accept, refuse, type Decision } from '../decider.ts';

export type CaseRestrictionEvent = { type: 'CaseRestricted'; data: { caseId: string; restrictedAt: string } };

/** `caseHeld`: whether the case store holds the case (it lives outside the stream). */
export type CaseRestrictionCommand = { type: 'RestrictCase'; caseId: string; at: string; caseHeld: boolean };

export interface CaseRestrictionState {
  readonly restricted: boolean;
}

export type CaseRestrictionError = { tag: 'CaseNotFound' };

export const initialCaseRestriction: CaseRestrictionState = { restricted: false };

// One command and one event so far, so no switch; a second variant brings the exhaustive switch.
export function decideCaseRestriction(
  command: CaseRestrictionCommand,
  state: CaseRestrictionState,
): Decision<CaseRestrictionEvent, CaseRestrictionError> {
  if (!command.caseHeld) return refuse({ tag: 'CaseNotFound' });
  // Restricting twice changes nothing, so it records nothing.
  return state.restricted ? accept() : accept({ type: 'CaseRestricted', data: { caseId: command.caseId, restrictedAt: command.at } });
}

export function evolveCaseRestriction(_state: CaseRestrictionState, _event: CaseRestrictionEvent): CaseRestrictionState {
  return { restricted: true };
}
