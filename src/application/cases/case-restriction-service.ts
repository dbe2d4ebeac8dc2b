/**
 * Restricts a case under the removal policy: in one transaction, lock the case row, decide
 * against the case's restriction stream, append `CaseRestricted` (the audit trail: the
 * event metadata names the actor and the time) and set `cases.restricted`, the flag every
 * read path checks. The row is set even when the stream already says restricted, so a row
 * that drifted is repaired by restricting again.
 */
import type { EventMetadata, EventStore } from '../../ports/event-store.ts';
import type { Db, Trx } from '../../db/database.ts';
import {
  decideCaseRestriction,
  evolveCaseRestriction,
  initialCaseRestriction,
  type CaseRestrictionCommand,
  type CaseRestrictionError,
  type CaseRestrictionEvent,
  type CaseRestrictionState,
} from '../../domain/case/restriction.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Actor } from '../accounts/accounts-service.ts';
import { handleCommand, type Aggregate } from '../command-handler.ts';

const restrictions: Aggregate<CaseRestrictionCommand, CaseRestrictionEvent, CaseRestrictionState, CaseRestrictionError> = {
  streamType: 'case',
  initial: initialCaseRestriction,
  decide: decideCaseRestriction,
  evolve: evolveCaseRestriction,
};

export const caseStream = (caseId: string) => `case-${caseId}`;

export interface CaseRestrictionDeps {
  readonly db: Db;
  readonly store: EventStore<Trx>;
  readonly clock: Clock;
}

export type RestrictResult = { ok: true; value: { caseId: string; restricted: true } } | { ok: false; error: CaseRestrictionError };

export class CaseRestrictionService {
  constructor(private readonly deps: CaseRestrictionDeps) {}

  async restrict(caseId: string, actor: Actor, requestId?: string): Promise<RestrictResult> {
    const occurredAt = this.deps.clock.now().toISOString();
    const metadata: EventMetadata = {
      occurredAt,
      actor: actor.kind === 'operator' ? 'operator' : `user:${actor.userId}`,
      ...(requestId ? { requestId } : {}),
    };
    return this.deps.db.transaction().execute(async (trx) => {
      // Row lock: a concurrent re-ingest or second restriction of this case waits for us.
      const row = await trx.selectFrom('cases').select('caseId').where('caseId', '=', caseId).forUpdate().executeTakeFirst();
      const command: CaseRestrictionCommand = { type: 'RestrictCase', caseId, at: occurredAt, caseHeld: row !== undefined };
      const decided = await handleCommand(this.deps.store, restrictions, caseStream(caseId), command, metadata, trx);
      if (!decided.ok) return decided;
      await trx.updateTable('cases').set({ restricted: true }).where('caseId', '=', caseId).execute();
      return { ok: true, value: { caseId, restricted: true } };
    });
  }
}
