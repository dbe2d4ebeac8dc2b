/**
 * Inline projection of the analysis-request events into analysis_runs and the stored
 * analyses, in the appending transaction: a run's row and its stored analysis change
 * together with the events, so GET /cases/:id/analysis and the concurrency cap read what
 * the stream says. `workflow_started` is outbox bookkeeping, not a fact of the domain: the
 * dispatcher sets it, and starting a run's workflow twice is refused by Temporal anyway.
 */
import type { InlineProjection, RecordedEvent } from '../../ports/event-store.ts';
import type { Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { assertNever } from '../../domain/decider.ts';
import { ANALYSIS_REQUEST_EVENT_TYPES, type AnalysisRequestEvent } from '../../domain/analysis-request/analysis-request.ts';

async function apply(trx: Trx, event: AnalysisRequestEvent): Promise<void> {
  switch (event.type) {
    case 'AnalysisRunAdmitted': {
      const d = event.data;
      await trx
        .insertInto('analysisRuns')
        .values({
          runId: d.runId,
          kind: d.kind,
          caseId: d.caseId,
          caseNumberNormalised: d.caseNumberNormalised,
          accountId: d.accountId,
          status: 'running',
          paymentId: d.paymentId,
          price: d.price,
          allowRemoteFetch: d.allowRemoteFetch,
          remoteFetchPlanned: d.remoteFetchPlanned,
          requestId: d.requestId,
          admittedAt: new Date(d.admittedAt),
        })
        .execute();
      return;
    }
    case 'RemoteDocumentFetched':
      await trx.updateTable('analysisRuns').set({ remoteFetched: true }).where('runId', '=', event.data.runId).execute();
      return;
    case 'RemoteFetchSurchargeReturned':
      // The refund is the ledger's ChargeReversed, written in this transaction; the run's row keeps what it was admitted with.
      return;
    case 'AnalysisStored': {
      const d = event.data;
      const run = await trx
        .updateTable('analysisRuns')
        .set({ status: 'stored', finishedAt: new Date(d.storedAt) })
        .where('runId', '=', d.runId)
        .returning(['kind', 'caseId', 'caseNumberNormalised'])
        .executeTakeFirstOrThrow();
      const stored = { runId: d.runId, model: d.model, analysis: jsonb(d.analysis), storedAt: new Date(d.storedAt) };
      if (run.kind === 'single') {
        await trx
          .insertInto('caseAnalyses')
          .values({ caseId: run.caseId, ...stored })
          .onConflict((oc) => oc.column('caseId').doUpdateSet(stored))
          .execute();
      } else {
        const row = { ...stored, caseIds: jsonb(d.caseIds) };
        await trx
          .insertInto('consolidatedAnalyses')
          .values({ caseNumberNormalised: run.caseNumberNormalised, ...row })
          .onConflict((oc) => oc.column('caseNumberNormalised').doUpdateSet(row))
          .execute();
      }
      return;
    }
    case 'AnalysisRunFailed':
      await trx
        .updateTable('analysisRuns')
        .set({ status: 'failed', failure: event.data.reason, finishedAt: new Date(event.data.failedAt) })
        .where('runId', '=', event.data.runId)
        .execute();
      return;
    default:
      assertNever(event);
  }
}

export const analysisReadModel: InlineProjection<Trx> = {
  name: 'analysis-runs',
  handles: ANALYSIS_REQUEST_EVENT_TYPES,
  async apply(trx: Trx, events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) await apply(trx, { type: event.type, data: event.data } as AnalysisRequestEvent);
  },
};
