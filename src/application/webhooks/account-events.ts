/**
 * The account's events (GET /events, GET /events/{id}): what the webhook projector recorded
 * for it, in the order it was recorded, so a receiver that missed deliveries pages on from
 * the last event it saw. An account reads its own mode's events only; another account's id
 * reads as unknown, never as forbidden, so ids reveal nothing.
 */
import type { Db } from '../../db/database.ts';
import type { Clock } from '../../ports/clock.ts';
import type { KeyMode } from '../../domain/api-key/api-key.ts';
import type { WebhookEventType, WebhookPayload } from '../../domain/webhook/webhook-endpoints.ts';

export interface EventFilter {
  readonly types?: readonly WebhookEventType[];
  /** Inclusive. */
  readonly createdFrom?: Date;
  /** Exclusive. */
  readonly createdBefore?: Date;
}

export interface EventPageQuery extends EventFilter {
  readonly limit: number;
  /** `desc`: newest first; `asc`: oldest first, the order a receiver catches up in. */
  readonly order: 'asc' | 'desc';
  /** The page continues after this event, in `order`. */
  readonly startingAfter?: string;
}

export type EventPage =
  | { ok: true; events: WebhookPayload[]; hasMore: boolean }
  /** `startingAfter` names no event of this account and mode (never one, or past retention). */
  | { ok: false; error: 'UnknownCursor' };

interface EventRow {
  eventId: string;
  type: string;
  apiVersion: string;
  mode: string;
  data: unknown;
  createdAt: Date;
}

function toEvent(row: EventRow): WebhookPayload {
  const createdAt = row.createdAt.toISOString();
  return {
    id: row.eventId,
    object: 'event',
    type: row.type as WebhookEventType,
    createdAt,
    timestamp: createdAt,
    apiVersion: row.apiVersion,
    mode: row.mode as KeyMode,
    data: row.data as WebhookPayload['data'],
  };
}

const COLUMNS = ['eventId', 'type', 'apiVersion', 'mode', 'data', 'createdAt'] as const;

export class AccountEvents {
  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly clock: Clock;
      /** Events recorded longer ago than this are deleted by the sweep. */
      readonly retentionDays: number;
    },
  ) {}

  async page(accountId: string, mode: KeyMode, query: EventPageQuery): Promise<EventPage> {
    const { db } = this.deps;
    let after: number | undefined;
    if (query.startingAfter !== undefined) {
      const cursor = await db
        .selectFrom('accountEvents')
        .select('seq')
        .where('eventId', '=', query.startingAfter)
        .where('accountId', '=', accountId)
        .where('mode', '=', mode)
        .executeTakeFirst();
      if (!cursor) return { ok: false, error: 'UnknownCursor' };
      after = cursor.seq;
    }
    let select = db.selectFrom('accountEvents').select(COLUMNS).where('accountId', '=', accountId).where('mode', '=', mode);
    if (after !== undefined) select = select.where('seq', query.order === 'asc' ? '>' : '<', after);
    if (query.types !== undefined && query.types.length > 0) select = select.where('type', 'in', query.types);
    if (query.createdFrom !== undefined) select = select.where('createdAt', '>=', query.createdFrom);
    if (query.createdBefore !== undefined) select = select.where('createdAt', '<', query.createdBefore);
    // One more than asked: whether another page follows, without a count.
    const rows = await select
      .orderBy('seq', query.order)
      .limit(query.limit + 1)
      .execute();
    return { ok: true, events: rows.slice(0, query.limit).map(toEvent), hasMore: rows.length > query.limit };
  }

  async get(accountId: string, mode: KeyMode, eventId: string): Promise<WebhookPayload | null> {
    const row = await this.deps.db
      .selectFrom('accountEvents')
      .select(COLUMNS)
      .where('eventId', '=', eventId)
      .where('accountId', '=', accountId)
      .where('mode', '=', mode)
      .executeTakeFirst();
    return row ? toEvent(row) : null;
  }

  /**
   * The retention sweep: deletes events recorded more than `retentionDays` ago, `batch` rows a
   * statement so none holds many locks. How many went, and the bound.
   */
  async sweep(batch = 1_000): Promise<{ pruned: number; before: Date }> {
    const before = new Date(this.deps.clock.now().getTime() - this.deps.retentionDays * 86_400_000);
    let pruned = 0;
    for (;;) {
      const gone = await this.deps.db
        .deleteFrom('accountEvents')
        .where('eventId', 'in', (eb) => eb.selectFrom('accountEvents').select('eventId').where('createdAt', '<', before).limit(batch))
        .executeTakeFirst();
      const count = Number(gone.numDeletedRows);
      pruned += count;
      if (count < batch) return { pruned, before };
    }
  }
}
