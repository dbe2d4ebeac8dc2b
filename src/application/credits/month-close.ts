/**
 * Loads what the month-end close (domain/credits/close.ts) decides over: every ledger
 * stream in stream order, the balance rows, and the endpoint of each request charged in
 * the month from its audit event. Streams and balance rows are read in one repeatable-read
 * transaction, so a call charged while the close runs cannot pair a stream of one moment
 * with a balance row of the next. Streams are read in pages and closed one at a time, so
 * an account's history is the most held at once (with the month's request endpoints).
 */
import type { Db, Trx } from '../../db/database.ts';
import { AUDIT_EVENT_TYPE, type ApiRequestRecorded } from '../../domain/audit/audit.ts';
import {
  closeAccount,
  closeTotal,
  type AccountClose,
  type CloseDifference,
  type MonthClose,
  type MonthWindow,
  type RecordedLedgerEvent,
  type StoredBalance,
} from '../../domain/credits/close.ts';
import type { LedgerEvent } from '../../domain/credits/ledger.ts';
import type { EventStore } from '../../ports/event-store.ts';
import { LEDGER_STREAM_TYPE, ledgerStream } from './streams.ts';

const PAGE = 1_000;
/** Audit events are written at the answer, a little after the charge: read this far either side of the month. */
const AUDIT_MARGIN_MS = 24 * 60 * 60 * 1000;

export interface MonthCloseDeps {
  readonly db: Db;
  readonly events: EventStore<Trx>;
}

/** `METHOD /path` of every request audited around the month, by request id (and by the call id charges name after a takeover). */
async function endpoints(events: EventStore<Trx>, window: MonthWindow): Promise<Map<string, string>> {
  const named = new Map<string, string>();
  for (let after = 0; ;) {
    const rows = await events.readEventTypeByPosition({
      type: AUDIT_EVENT_TYPE,
      after,
      limit: PAGE,
      recordedFrom: new Date(window.from.getTime() - AUDIT_MARGIN_MS),
      recordedBefore: new Date(window.to.getTime() + AUDIT_MARGIN_MS),
    });
    for (const row of rows) {
      const audit = row.data as ApiRequestRecorded;
      const endpoint = `${audit.method} ${audit.endpoint}`;
      named.set(audit.requestId, endpoint);
      if (audit.callId !== undefined) named.set(audit.callId, endpoint);
    }
    const last = rows[rows.length - 1];
    if (!last || rows.length < PAGE) return named;
    after = last.globalPosition;
  }
}

const accountOf = (streamId: string) => streamId.slice(LEDGER_STREAM_TYPE.length + 1);

/** Closes the month for every account with ledger events before its end (or one account). */
export async function closeMonth(deps: MonthCloseDeps, window: MonthWindow, accountId?: string): Promise<MonthClose> {
  const named = await endpoints(deps.events, window);
  const endpointOf = (requestRef: string) => named.get(requestRef);
  return deps.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const rows = await trx
        .selectFrom('creditBalances')
        .select(['accountId', 'balance', 'reserved'])
        .$if(accountId !== undefined, (qb) => qb.where('accountId', '=', accountId ?? ''))
        .execute();
      const stored = new Map<string, StoredBalance>(rows.map((r) => [r.accountId, { available: r.balance, reserved: r.reserved }]));
      const accounts: AccountClose[] = [];
      const differences: CloseDifference[] = [];
      const finish = (id: string, events: readonly RecordedLedgerEvent[]) => {
        const closed = closeAccount(id, events, window, stored.get(id) ?? null, endpointOf);
        stored.delete(id);
        differences.push(...closed.differences);
        if (events.some((e) => e.recordedAt < window.to)) accounts.push(closed.close);
      };
      let currentId: string | null = null;
      let currentEvents: RecordedLedgerEvent[] = [];
      for (let after: [string, number] = ['', 0]; ;) {
        const page = await deps.events.readStreamTypeByStream({
          streamType: LEDGER_STREAM_TYPE,
          ...(accountId === undefined ? {} : { streamId: ledgerStream(accountId) }),
          after,
          limit: PAGE,
          trx,
        });
        for (const row of page) {
          const id = accountOf(row.streamId);
          if (currentId !== id) {
            if (currentId !== null) finish(currentId, currentEvents);
            currentId = id;
            currentEvents = [];
          }
          const event = { type: row.type, data: row.data } as LedgerEvent;
          currentEvents.push({ event, streamPosition: row.streamPosition, recordedAt: row.recordedAt });
        }
        const last = page[page.length - 1];
        if (!last || page.length < PAGE) break;
        after = [last.streamId, last.streamPosition];
      }
      if (currentId !== null) finish(currentId, currentEvents);
      // Balance rows with no ledger stream at all.
      for (const id of [...stored.keys()]) finish(id, []);
      accounts.sort((a, b) => a.accountId.localeCompare(b.accountId));
      return closeTotal(window, accounts, differences);
    });
}
