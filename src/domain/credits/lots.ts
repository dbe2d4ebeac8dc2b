/**
 * Credit lots: what is left of each grant, so that a grant's expiry can be enforced. Every
 * credit spent or held is drawn from named lots, soonest expiry first and never-expiring
 * last, so a customer never loses a credit they could have spent; the grant id breaks ties
 * so that every fold (the service's slice, reconcile, a rebuild) draws the same lots.
 * Times are ISO 8601 strings compared as instants; a lot has expired at or after its time.
 */

export interface Lot {
  readonly remaining: number;
  readonly expiresAt: string | null;
}

/** Part of a debit or credit taken from (or returned to) one lot. */
export interface LotDraw {
  readonly grantId: string;
  readonly amount: number;
  readonly expiresAt: string | null;
}

export type Lots = Readonly<Record<string, Lot>>;

export function hasExpired(expiresAt: string | null, at: string): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= Date.parse(at);
}

function expiryKey(expiresAt: string | null): number {
  if (expiresAt === null) return Number.POSITIVE_INFINITY;
  const t = Date.parse(expiresAt);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

export function spendingOrder(a: { grantId: string; expiresAt: string | null }, b: { grantId: string; expiresAt: string | null }): number {
  const byExpiry = expiryKey(a.expiresAt) - expiryKey(b.expiresAt);
  if (byExpiry !== 0 && !Number.isNaN(byExpiry)) return byExpiry;
  return a.grantId < b.grantId ? -1 : a.grantId > b.grantId ? 1 : 0;
}

export const totalOf = (draws: readonly LotDraw[]): number => draws.reduce((n, d) => n + d.amount, 0);

/** The lots holding credits, in the order they are spent. */
export function liveLots(lots: Lots): LotDraw[] {
  return Object.entries(lots)
    .filter(([, lot]) => lot.remaining > 0)
    .map(([grantId, lot]) => ({ grantId, amount: lot.remaining, expiresAt: lot.expiresAt }))
    .sort(spendingOrder);
}

/** Takes `amount` from `sources` in spending order; `taken` falls short only if they do. */
export function take(sources: readonly LotDraw[], amount: number): { taken: LotDraw[]; rest: LotDraw[] } {
  const taken: LotDraw[] = [];
  const rest: LotDraw[] = [];
  let left = amount;
  for (const source of [...sources].sort(spendingOrder)) {
    const part = Math.min(left, source.amount);
    left -= part;
    if (part > 0) taken.push({ ...source, amount: part });
    if (source.amount > part) rest.push({ ...source, amount: source.amount - part });
  }
  return { taken, rest };
}

/** `held` less `draws`, lot by lot; entries that reach zero are dropped. */
export function without(held: readonly LotDraw[], draws: readonly LotDraw[]): LotDraw[] {
  const left = new Map(held.map((d) => [d.grantId, d]));
  for (const draw of draws) {
    const entry = left.get(draw.grantId);
    if (!entry) continue;
    if (entry.amount > draw.amount) left.set(draw.grantId, { ...entry, amount: entry.amount - draw.amount });
    else left.delete(draw.grantId);
  }
  return [...left.values()];
}

/** Lots after `draws` are taken out (sign -1) or put back (sign +1); a lot put back that is missing is recreated. */
export function moveLots(lots: Lots, draws: readonly LotDraw[], sign: 1 | -1): Lots {
  if (draws.length === 0) return lots;
  const next: Record<string, Lot> = { ...lots };
  for (const draw of draws) {
    const lot = next[draw.grantId];
    next[draw.grantId] = { remaining: (lot?.remaining ?? 0) + sign * draw.amount, expiresAt: lot?.expiresAt ?? draw.expiresAt };
  }
  return next;
}
