/**
 * One delivery attempt, and the bookkeeping around it. Each attempt is signed afresh
 * (a new webhook-timestamp, so a receiver's replay window holds for retries too) under
 * the same webhook-id; during a rotation's grace window it carries a signature by each
 * secret. Every attempt is counted and its outcome kept on the delivery row before the retry
 * policy decides what happens next: the coarse outcome the account sees, and beside it, for
 * the operator only, the exact status or the kind of error. Neither the payload nor a secret
 * is ever logged or put in an error message.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { outcomeOfStatus, type DeliveryOutcome } from '../../domain/webhook/delivery-outcome.ts';
import { disablingReason, type EndpointDisabling, type WaitingDelivery } from '../../domain/webhook/fair-delivery.ts';
import type { Clock } from '../../ports/clock.ts';
import { WebhookAddressRefusedError, type WebhookSecrets, type WebhookSender } from '../../ports/webhooks.ts';

export type AttemptOutcome =
  /** 2xx: the delivery is done. */
  | { kind: 'delivered'; status: number }
  /** The delivery was not pending any more (delivered, failed, or its endpoint removed): nothing sent. */
  | { kind: 'settled' }
  /** Any other answer, or no answer: worth another attempt. */
  | { kind: 'retry'; reason: string }
  /** The endpoint's address is one deliveries may not reach: retrying cannot help. */
  | { kind: 'refused'; reason: string };

export interface DeliveryRef {
  readonly deliveryId: string;
  readonly accountId: string;
}

/** Longest error text kept on a delivery row. */
const MAX_ERROR_TEXT = 200;

/** The kind of failure, without anything the receiver or the payload put in it. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const name = error instanceof Error ? error.name : 'Error';
  return (typeof code === 'string' ? `${name} ${code}` : error instanceof Error ? `${name}: ${error.message}` : name).slice(
    0,
    MAX_ERROR_TEXT,
  );
}

export class WebhookDeliveries {
  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly sender: WebhookSender;
      readonly secrets: WebhookSecrets;
      readonly clock: Clock;
      readonly disabling: EndpointDisabling;
    },
  ) {}

  async attempt(deliveryId: string): Promise<AttemptOutcome> {
    const { db, clock } = this.deps;
    const target = await db
      .selectFrom('webhookDeliveries as d')
      .innerJoin('webhookEndpoints as e', 'e.endpointId', 'd.endpointId')
      .select([
        'd.status',
        'd.payload',
        'd.endpointId',
        'e.url',
        'e.sealedSecret',
        'e.previousSealedSecret',
        'e.previousValidUntil',
        'e.disabledAt',
      ])
      .where('d.deliveryId', '=', deliveryId)
      .executeTakeFirst();
    if (!target || target.status !== 'pending') return { kind: 'settled' };
    // Recorded as its endpoint was being disabled: cancelled like the endpoint's other pending ones.
    if (target.disabledAt !== null) {
      await this.#cancel(db, target.endpointId, clock.now());
      return { kind: 'settled' };
    }
    const now = clock.now();
    await db
      .updateTable('webhookDeliveries')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), lastAttemptAt: now }))
      .where('deliveryId', '=', deliveryId)
      .execute();
    const body = JSON.stringify(target.payload);
    const timestamp = Math.floor(now.getTime() / 1000);
    const sealed = [target.sealedSecret];
    if (target.previousSealedSecret !== null && target.previousValidUntil !== null && target.previousValidUntil > now)
      sealed.push(target.previousSealedSecret);
    const signature = sealed
      .map((s) => this.deps.secrets.sign({ id: deliveryId, timestamp, body, secret: this.deps.secrets.open(s) }))
      .join(' ');
    const headers = { 'webhook-id': deliveryId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    let status: number;
    try {
      ({ status } = await this.deps.sender.post(target.url, headers, body));
    } catch (error) {
      const reason = describe(error);
      const refused = error instanceof WebhookAddressRefusedError;
      await this.#record(deliveryId, {
        lastError: reason,
        lastResponseStatus: null,
        lastOutcome: refused ? 'address_refused' : 'no_answer',
      });
      await this.#failed(target.endpointId);
      return refused ? { kind: 'refused', reason } : { kind: 'retry', reason };
    }
    const lastOutcome = outcomeOfStatus(status);
    if (lastOutcome === 'delivered') {
      await this.#record(deliveryId, {
        lastError: null,
        lastResponseStatus: status,
        lastOutcome,
        status: 'delivered',
        finishedAt: clock.now(),
      });
      await db
        .updateTable('webhookEndpoints')
        .set({ consecutiveFailures: 0, failingSince: null })
        .where('endpointId', '=', target.endpointId)
        .where('consecutiveFailures', '>', 0)
        .execute();
      return { kind: 'delivered', status };
    }
    const reason = `the receiver answered ${String(status)}`;
    await this.#record(deliveryId, { lastError: reason, lastResponseStatus: status, lastOutcome });
    await this.#failed(target.endpointId);
    return { kind: 'retry', reason };
  }

  /**
   * Counts a failed attempt against its endpoint; once the run of failures passes the
   * disabling policy, the endpoint is disabled with the reason and its pending deliveries
   * are cancelled (their workflows find them settled). One statement each, so attempts on
   * several workers count every failure.
   */
  async #failed(endpointId: string): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const run = await db
      .updateTable('webhookEndpoints')
      .set((eb) => ({
        consecutiveFailures: eb('consecutiveFailures', '+', 1),
        failingSince: eb.fn.coalesce('failingSince', eb.val(now)),
      }))
      .where('endpointId', '=', endpointId)
      .where('disabledAt', 'is', null)
      .returning(['consecutiveFailures', 'failingSince'])
      .executeTakeFirst();
    if (!run?.failingSince) return;
    const reason = disablingReason({ consecutive: run.consecutiveFailures, since: run.failingSince }, now, this.deps.disabling);
    if (reason === null) return;
    await db.transaction().execute(async (trx) => {
      const disabled = await trx
        .updateTable('webhookEndpoints')
        .set({ disabledAt: now, disabledReason: reason })
        .where('endpointId', '=', endpointId)
        .where('disabledAt', 'is', null)
        .executeTakeFirst();
      if (Number(disabled.numUpdatedRows) === 0) return;
      await this.#cancel(trx, endpointId, now);
    });
  }

  async #cancel(db: Db, endpointId: string, now: Date): Promise<void> {
    await db
      .updateTable('webhookDeliveries')
      .set({ status: 'cancelled', finishedAt: now, lastError: 'its endpoint was disabled' })
      .where('endpointId', '=', endpointId)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Gives up on a delivery whose attempts are spent, or, with `reason`, whose workflow ended
   * without settling it; one already settled stays as it is.
   */
  async fail(deliveryId: string, reason?: string): Promise<void> {
    await this.deps.db
      .updateTable('webhookDeliveries')
      .set({ status: 'failed', finishedAt: this.deps.clock.now(), ...(reason === undefined ? {} : { lastError: reason }) })
      .where('deliveryId', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  }

  /** Pending deliveries with a started workflow and nothing heard of since `quietSince` (created, attempted or watched). */
  async startedAndQuiet(quietSince: Date, limit: number): Promise<DeliveryRef[]> {
    return this.deps.db
      .selectFrom('webhookDeliveries')
      .select(['deliveryId', 'accountId'])
      .where('workflowStarted', '=', true)
      .where('status', '=', 'pending')
      .where(sql<Date>`greatest(created_at, last_attempt_at, watched_at)`, '<', quietSince)
      .orderBy('createdAt')
      .orderBy('deliveryId')
      .limit(limit)
      .execute();
  }

  /** Its workflow was found running: not asked about again for a while. */
  async markWatched(deliveryId: string): Promise<void> {
    await this.deps.db
      .updateTable('webhookDeliveries')
      .set({ watchedAt: this.deps.clock.now() })
      .where('deliveryId', '=', deliveryId)
      .execute();
  }

  /** Its workflow is unknown to the engine: back in the outbox, to be started again under the same webhook-id. */
  async restart(deliveryId: string): Promise<void> {
    await this.deps.db
      .updateTable('webhookDeliveries')
      .set({ workflowStarted: false, watchedAt: null })
      .where('deliveryId', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Deliveries the projector recorded whose workflow was not started (the outbox): each
   * account's `perAccount` oldest, oldest first, at most `limit`; an account's long backlog
   * thus never hides another account's waiting deliveries from the dispatcher.
   */
  async unstarted(perAccount: number, limit: number): Promise<WaitingDelivery[]> {
    const ranked = this.deps.db
      .selectFrom('webhookDeliveries')
      .select(['deliveryId', 'accountId', 'createdAt'])
      .select(sql<number>`row_number() over (partition by account_id order by created_at, delivery_id)`.as('rank'))
      .where('workflowStarted', '=', false)
      .where('status', '=', 'pending')
      .as('ranked');
    return this.deps.db
      .selectFrom(ranked)
      .select(['deliveryId', 'accountId'])
      .where('rank', '<=', perAccount)
      .orderBy('createdAt')
      .orderBy('deliveryId')
      .limit(limit)
      .execute();
  }

  /** Each account's deliveries whose workflows run (started and still pending). */
  async inFlight(accountIds: readonly string[]): Promise<Map<string, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = await this.deps.db
      .selectFrom('webhookDeliveries')
      .select(['accountId', (eb) => eb.fn.countAll<string>().as('n')])
      .where('accountId', 'in', accountIds)
      .where('workflowStarted', '=', true)
      .where('status', '=', 'pending')
      .groupBy('accountId')
      .execute();
    return new Map(rows.map((r) => [r.accountId, Number(r.n)]));
  }

  /**
   * Marks the delivery started if its account has fewer than `limit` running, under a lock
   * per account, so dispatchers on several instances together never exceed the limit. Taken
   * before the workflow starts: a crash in between leaves a started row whose workflow the
   * engine does not know, which the watchdog puts back in the outbox.
   */
  async claimStart(delivery: WaitingDelivery, limit: number): Promise<boolean> {
    return this.deps.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`webhook-dispatch:${delivery.accountId}`}))`.execute(trx);
      const running = await trx
        .selectFrom('webhookDeliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('accountId', '=', delivery.accountId)
        .where('workflowStarted', '=', true)
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      if (Number(running.n) >= limit) return false;
      const claimed = await trx
        .updateTable('webhookDeliveries')
        .set({ workflowStarted: true })
        .where('deliveryId', '=', delivery.deliveryId)
        .where('workflowStarted', '=', false)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(claimed.numUpdatedRows) === 1;
    });
  }

  /**
   * Deletes deliveries that ended before `endedBefore`, `batch` rows a statement so no
   * statement holds many locks; a pending one is never deleted. How many went.
   */
  async prune(endedBefore: Date, batch = 1_000): Promise<number> {
    let pruned = 0;
    for (;;) {
      const gone = await this.deps.db
        .deleteFrom('webhookDeliveries')
        .where('deliveryId', 'in', (eb) =>
          eb
            .selectFrom('webhookDeliveries')
            .select('deliveryId')
            .where('status', '<>', 'pending')
            .where('finishedAt', '<', endedBefore)
            .limit(batch),
        )
        .executeTakeFirst();
      const count = Number(gone.numDeletedRows);
      pruned += count;
      if (count < batch) return pruned;
    }
  }

  async #record(
    deliveryId: string,
    fields: {
      lastError: string | null;
      lastResponseStatus: number | null;
      lastOutcome: DeliveryOutcome;
      status?: 'delivered';
      finishedAt?: Date;
    },
  ): Promise<void> {
    await this.deps.db.updateTable('webhookDeliveries').set(fields).where('deliveryId', '=', deliveryId).execute();
  }
}
