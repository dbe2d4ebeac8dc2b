/**
 * The webhook delivery's activities as the workflow sees them: types only, so the bundle
 * never pulls in the database or the HTTP sender. Only the delivery id passes through
 * the workflow; the payload and the endpoint's secret stay in the database.
 */
export interface WebhookActivities {
  /** One signed POST; throws a retryable failure on any answer but 2xx, a non-retryable one for a refused address. */
  attemptWebhookDelivery(deliveryId: string): Promise<'delivered' | 'settled'>;
  /** Marks the delivery failed once its attempts are spent. */
  failWebhookDelivery(deliveryId: string): Promise<void>;
}

/** Failure types the attempt activity throws. */
export const WEBHOOK_FAILURES = { rejected: 'WebhookRejected', refused: 'WebhookAddressRefused' } as const;
