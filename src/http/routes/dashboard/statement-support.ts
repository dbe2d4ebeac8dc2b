/**
 * Where a monthly statement downloads from, and which months the billing page offers: shared
 * by the billing page and the statement routes.
 */
import { monthOf } from '../../../domain/credits/close.ts';
import { DASHBOARD_PATH } from './session-support.ts';

/** Months offered on the billing page, newest first. */
const MONTHS_LISTED = 12;

/** The last `count` IST months up to the one `now` is in, newest first. */
export function recentMonths(now: Date, count = MONTHS_LISTED): string[] {
  const [year, month] = monthOf(now).split('-').map(Number) as [number, number];
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(Date.UTC(year, month - 1 - i, 1));
    return d.toISOString().slice(0, 7);
  });
}

export const statementPath = (accountId: string, month: string, format: 'csv' | 'pdf') =>
  `${DASHBOARD_PATH}/billing/statements/${encodeURIComponent(accountId)}/${month}.${format}`;
