/**
 * A customer's monthly statement of one billing account: its figures from the month-end
 * close (opening balance, purchases, grants, corrections, consumption by endpoint, refunds,
 * expiries, closing balance), in credits and rupees, and the month's credits with their
 * payment references. The CSV is one figure a row (credits and paise, integers); the PDF
 * prints the text lines.
 */
import { PAISE_PER_CREDIT, rupees, type AccountClose, type MonthWindow } from '../../domain/credits/close.ts';
import { csvField } from '../../domain/csv.ts';

export const STATEMENT_CSV_COLUMNS = ['item', 'detail', 'credits', 'paise'] as const;

type Row = [item: string, detail: string, credits: number];

function rows(close: AccountClose): Row[] {
  return [
    ['opening_balance', '', close.opening.total],
    ...close.credits.map((c): Row => [c.source, [c.at, c.grantId, c.paymentReference ?? ''].join(' ').trim(), c.amount]),
    ['purchases', '', close.purchases],
    ['grants', '', close.grants],
    ['corrections', '', close.corrections],
    ...Object.entries(close.consumption).map(([endpoint, credits]): Row => ['consumption', endpoint, credits]),
    ['consumption_total', '', close.consumed],
    ['refunds', '', close.refunds],
    ['expiries', '', close.expiries],
    ['closing_balance', '', close.closing.total],
  ];
}

export function statementCsv(close: AccountClose): string {
  const lines = [STATEMENT_CSV_COLUMNS.join(',')];
  for (const [item, detail, credits] of rows(close))
    lines.push([item, detail, credits, credits * PAISE_PER_CREDIT].map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function statementTitle(accountId: string, window: MonthWindow): string {
  return `Credit statement ${window.month} - billing account ${accountId}`;
}

/** The statement as text lines (the PDF's body). `inProgress`: the month has not ended, so the closing balance is so far. */
export function statementLines(close: AccountClose, window: MonthWindow, inProgress: boolean): string[] {
  const figure = (label: string, credits: number) =>
    `${label.padEnd(34)}${String(credits).padStart(11)} credits ${rupees(credits).padStart(16)}`;
  const out = [
    `Period: ${window.month}, India Standard Time (${window.from.toISOString()} to ${window.to.toISOString()})`,
    '10 credits = Rs 1.',
    ...(inProgress ? ['The month has not ended: the closing balance is the balance so far.'] : []),
    '',
    figure('Opening balance', close.opening.total),
    figure('+ Purchases', close.purchases),
    figure('+ Grants', close.grants),
    figure('+ Corrections', close.corrections),
    figure('- Consumption', close.consumed),
    ...Object.entries(close.consumption).map(([endpoint, credits]) => figure(`    ${endpoint}`, credits)),
    figure('+ Refunds', close.refunds),
    figure('- Expired unspent', close.expiries),
    figure('= Closing balance', close.closing.total),
    ...(close.closing.reserved > 0 ? [figure('  of which held by running calls', close.closing.reserved)] : []),
    '',
    close.credits.length === 0 ? 'No credits were added this month.' : 'Credits added this month:',
    ...close.credits.map(
      (c) => `  ${c.at.slice(0, 10)} ${c.source.padEnd(10)} ${String(c.amount).padStart(9)} credits  ${c.paymentReference ?? c.grantId}`,
    ),
  ];
  return out;
}
