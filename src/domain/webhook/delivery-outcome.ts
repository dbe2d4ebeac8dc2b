/**
 * What an account is told about a delivery attempt: a coarse outcome, never a socket error
 * or an exact status. A tenant chooses the URL, so anything finer (connection refused versus
 * timed out, 401 versus 404) would turn deliveries into a probe of whatever network the URL
 * reaches. The raw reason stays with the operator.
 */
export const DELIVERY_OUTCOMES = ['delivered', 'no_answer', 'http_3xx', 'http_4xx', 'http_5xx', 'address_refused'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** The outcome of an answer with this status; anything outside 2xx to 4xx reads as a server error. */
export function outcomeOfStatus(status: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 300 && status < 400) return 'http_3xx';
  if (status >= 400 && status < 500) return 'http_4xx';
  return 'http_5xx';
}
