/**
 * The settings commands and queries on an account's webhook endpoints: register (the
 * plaintext secret is returned this once; the stream keeps it sealed), rotate, remove,
 * list, and the endpoint's recent deliveries. Each command runs through the account's
 * webhook aggregate, so the per-account bound holds under concurrent registrations.
 */
import type { Db, Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { admitsDelivery } from '../../domain/webhook/fair-delivery.ts';
import type { KeyMode } from '../../domain/api-key/api-key.ts';
import type { DeliveryOutcome } from '../../domain/webhook/delivery-outcome.ts';
import {
  EVENT_API_VERSION,
  sampleEventData,
  decideWebhookEndpoints,
  evolveWebhookEndpoints,
  initialWebhookEndpoints,
  webhookStreamId,
  type SealedSecret,
  type WebhookEndpointsCommand,
  type WebhookEndpointsError,
  type WebhookEndpointsEvent,
  type WebhookEndpointsState,
  type WebhookEventType,
  type WebhookPayload,
} from '../../domain/webhook/webhook-endpoints.ts';
import type { Clock, IdGenerator } from '../../ports/clock.ts';
import type { EventStore } from '../../ports/event-store.ts';
import type { WebhookSecrets } from '../../ports/webhooks.ts';
import { handleCommand, type Aggregate } from '../command-handler.ts';
import { deliveryIdOf } from './webhook-outbox.ts';

export const WEBHOOK_STREAM_TYPE = 'webhook-endpoints';

const aggregate: Aggregate<WebhookEndpointsCommand, WebhookEndpointsEvent, WebhookEndpointsState, WebhookEndpointsError> = {
  streamType: WEBHOOK_STREAM_TYPE,
  initial: initialWebhookEndpoints,
  decide: decideWebhookEndpoints,
  evolve: evolveWebhookEndpoints,
};

export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly eventTypes: WebhookEventType[];
  /** Which mode's events it hears. */
  readonly mode: KeyMode;
  /** `whsec_…` and the secret's last 4 characters. */
  readonly secretHint: string;
  readonly createdAt: string;
  /** Set when deliveries kept failing and the service stopped sending (domain/webhook/fair-delivery.ts); its owner enables it again. */
  readonly disabled: { readonly at: string; readonly reason: string } | null;
}

export interface DeliveryView {
  readonly id: string;
  readonly eventType: WebhookEventType;
  readonly status: 'pending' | 'delivered' | 'failed' | 'cancelled' | 'dropped';
  readonly attempts: number;
  /** The last attempt's coarse outcome; null before the first. */
  readonly lastOutcome: DeliveryOutcome | null;
  readonly createdAt: string;
  readonly lastAttemptAt: string | null;
  readonly finishedAt: string | null;
}

export type EndpointResult<T> = { ok: true; value: T } | { ok: false; error: WebhookEndpointsError };

/** Why a test event or a resend was not queued. */
export type ExtraDeliveryRefusal = 'EndpointNotFound' | 'DeliveryNotFound' | 'EndpointDisabled' | 'PendingLimit';
export type ExtraDeliveryResult = { ok: true; value: DeliveryView } | { ok: false; error: ExtraDeliveryRefusal };

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export class WebhookEndpoints {
  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly store: EventStore<Trx>;
      readonly secrets: WebhookSecrets;
      readonly clock: Clock;
      readonly ids: IdGenerator;
      /** Development setting: http and non-public hosts may be registered. */
      readonly allowInsecureUrls: boolean;
      /** Pending deliveries one account may have: a test event or a resend beyond it is refused. */
      readonly pendingCap: number;
    },
  ) {}

  async register(
    accountId: string,
    input: { url: string; eventTypes: readonly WebhookEventType[]; mode: KeyMode },
    requestId: string,
  ): Promise<EndpointResult<EndpointView & { secret: string }>> {
    const plain = this.deps.secrets.generate();
    const endpointId = `whe_${this.deps.ids.next()}`;
    const decided = await this.#handle(accountId, requestId, {
      type: 'RegisterEndpoint',
      accountId,
      endpointId,
      url: input.url,
      eventTypes: input.eventTypes,
      mode: input.mode,
      secret: this.#seal(plain),
      allowInsecureUrls: this.deps.allowInsecureUrls,
      at: this.#now(),
    });
    if (!decided.ok) return decided;
    const view = await this.#endpoint(accountId, endpointId);
    if (!view) throw new Error(`endpoint ${endpointId} missing after registration`);
    return { ok: true, value: { ...view, secret: plain } };
  }

  async rotateSecret(accountId: string, endpointId: string, requestId: string): Promise<EndpointResult<{ id: string; secret: string }>> {
    const plain = this.deps.secrets.generate();
    const decided = await this.#handle(accountId, requestId, {
      type: 'RotateSecret',
      accountId,
      endpointId,
      secret: this.#seal(plain),
      at: this.#now(),
    });
    return decided.ok ? { ok: true, value: { id: endpointId, secret: plain } } : decided;
  }

  async remove(accountId: string, endpointId: string, requestId: string): Promise<EndpointResult<{ id: string }>> {
    const decided = await this.#handle(accountId, requestId, { type: 'RemoveEndpoint', accountId, endpointId, at: this.#now() });
    return decided.ok ? { ok: true, value: { id: endpointId } } : decided;
  }

  async list(accountId: string): Promise<EndpointView[]> {
    const rows = await this.deps.db
      .selectFrom('webhookEndpoints')
      .select(['endpointId', 'url', 'eventTypes', 'mode', 'secretHint', 'createdAt', 'disabledAt', 'disabledReason'])
      .where('accountId', '=', accountId)
      .orderBy('createdAt')
      .orderBy('endpointId')
      .execute();
    return rows.map((r) => ({
      id: r.endpointId,
      url: r.url,
      eventTypes: r.eventTypes as WebhookEventType[],
      mode: r.mode as KeyMode,
      secretHint: r.secretHint,
      createdAt: r.createdAt.toISOString(),
      disabled: r.disabledAt === null ? null : { at: r.disabledAt.toISOString(), reason: r.disabledReason ?? '' },
    }));
  }

  /**
   * Sends to a disabled endpoint again, its run of failures forgotten; an enabled one stays
   * as it is. Deliveries cancelled while it was disabled are not sent: only facts from now on.
   */
  async enable(accountId: string, endpointId: string): Promise<EndpointResult<EndpointView>> {
    await this.deps.db
      .updateTable('webhookEndpoints')
      .set({ disabledAt: null, disabledReason: null, consecutiveFailures: 0, failingSince: null })
      .where('accountId', '=', accountId)
      .where('endpointId', '=', endpointId)
      .where('disabledAt', 'is not', null)
      .execute();
    const view = await this.#endpoint(accountId, endpointId);
    return view ? { ok: true, value: view } : { ok: false, error: { tag: 'EndpointNotFound' } };
  }

  /** The endpoint's latest deliveries, newest first; null when the account has no such endpoint. */
  async deliveries(accountId: string, endpointId: string, limit: number): Promise<DeliveryView[] | null> {
    if (!(await this.#endpoint(accountId, endpointId))) return null;
    const rows = await this.deps.db
      .selectFrom('webhookDeliveries')
      // Never the operator's columns (exact status, error kind): an account sees the coarse outcome only.
      .select(['deliveryId', 'eventType', 'status', 'attempts', 'lastOutcome', 'createdAt', 'lastAttemptAt', 'finishedAt'])
      .where('accountId', '=', accountId)
      .where('endpointId', '=', endpointId)
      .orderBy('createdAt', 'desc')
      .orderBy('deliveryId')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.deliveryId,
      eventType: r.eventType as WebhookEventType,
      status: r.status as DeliveryView['status'],
      attempts: r.attempts,
      lastOutcome: r.lastOutcome as DeliveryOutcome | null,
      createdAt: r.createdAt.toISOString(),
      lastAttemptAt: iso(r.lastAttemptAt),
      finishedAt: iso(r.finishedAt),
    }));
  }

  /**
   * "Send test event": a delivery to the endpoint of a sample event of `type` (by default its
   * first subscribed type), signed and retried like any other. Its id is `evt_test_…`; it is
   * no fact of the account, so GET /events does not list it.
   */
  async sendTest(accountId: string, endpointId: string, type?: WebhookEventType): Promise<ExtraDeliveryResult> {
    const endpoint = await this.#endpoint(accountId, endpointId);
    if (!endpoint) return { ok: false, error: 'EndpointNotFound' };
    const eventType = type ?? endpoint.eventTypes[0] ?? 'analysis.stored';
    const createdAt = this.#now();
    const payload: WebhookPayload = {
      id: `evt_test_${this.deps.ids.next().replaceAll('-', '')}`,
      object: 'event',
      type: eventType,
      createdAt,
      timestamp: createdAt,
      apiVersion: EVENT_API_VERSION,
      mode: endpoint.mode,
      data: sampleEventData(eventType),
    };
    return this.#queue(accountId, endpoint, `ping:${payload.id}`, eventType, payload);
  }

  /**
   * "Resend": the delivery's event sent to its endpoint again, as a new delivery (its own
   * webhook-id) carrying the same event (the same evt_ id, which receivers deduplicate on).
   */
  async resend(accountId: string, deliveryId: string, mode?: KeyMode): Promise<ExtraDeliveryResult> {
    const original = await this.deps.db
      .selectFrom('webhookDeliveries')
      .select(['endpointId', 'eventType', 'payload'])
      .where('accountId', '=', accountId)
      .where('deliveryId', '=', deliveryId)
      .executeTakeFirst();
    const endpoint = original ? await this.#endpoint(accountId, original.endpointId) : null;
    // With `mode` (an API key's), a delivery to the other mode's endpoint is as unknown as a forged id.
    if (!original || !endpoint || (mode !== undefined && endpoint.mode !== mode)) return { ok: false, error: 'DeliveryNotFound' };
    const source = `resend:${deliveryId}:${this.deps.ids.next()}`;
    return this.#queue(accountId, endpoint, source, original.eventType as WebhookEventType, original.payload);
  }

  async #queue(
    accountId: string,
    endpoint: EndpointView,
    sourceEventId: string,
    eventType: WebhookEventType,
    payload: unknown,
  ): Promise<ExtraDeliveryResult> {
    if (endpoint.disabled !== null) return { ok: false, error: 'EndpointDisabled' };
    const pending = await this.deps.db
      .selectFrom('webhookDeliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('accountId', '=', accountId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    if (!admitsDelivery(Number(pending.n), this.deps.pendingCap)) return { ok: false, error: 'PendingLimit' };
    const now = this.deps.clock.now();
    const deliveryId = deliveryIdOf(sourceEventId, endpoint.id);
    await this.deps.db
      .insertInto('webhookDeliveries')
      .values({
        deliveryId,
        accountId,
        endpointId: endpoint.id,
        sourceEventId,
        eventType,
        payload: jsonb(payload),
        createdAt: now,
        status: 'pending',
      })
      .execute();
    return {
      ok: true,
      value: {
        id: deliveryId,
        eventType,
        status: 'pending',
        attempts: 0,
        lastOutcome: null,
        createdAt: now.toISOString(),
        lastAttemptAt: null,
        finishedAt: null,
      },
    };
  }

  async #endpoint(accountId: string, endpointId: string): Promise<EndpointView | null> {
    const all = await this.list(accountId);
    return all.find((e) => e.id === endpointId) ?? null;
  }

  #handle(accountId: string, requestId: string, command: WebhookEndpointsCommand) {
    return handleCommand(this.deps.store, aggregate, webhookStreamId(accountId), command, { occurredAt: this.#now(), requestId });
  }

  #seal(plain: string): SealedSecret {
    return { sealed: this.deps.secrets.seal(plain), hint: `whsec_…${plain.slice(-4)}` };
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }
}
