/**
 * The month-end close as people and spreadsheets read it: text (figures in credits and
 * rupees), JSON (the whole close, integers in credits, with the paise per credit), and CSV
 * (one figure a row, in credits and in paise, so nothing is ever a float).
 */
import {
  netMovements,
  PAISE_PER_CREDIT,
  rupees,
  type AccountClose,
  type CloseDifference,
  type MonthClose,
} from '../domain/credits/close.ts';
import { csvField } from '../domain/csv.ts';

export const CLOSE_CSV_COLUMNS = ['account', 'item', 'endpoint', 'credits', 'paise'] as const;
export const TOTAL = 'TOTAL';

type Figures = Omit<AccountClose, 'accountId' | 'credits'>;

/** The figures of a close, in order, as (item, endpoint, credits). */
function items(figures: Figures): [string, string, number][] {
  return [
    ['opening', '', figures.opening.total],
    ['purchases', '', figures.purchases],
    ['grants', '', figures.grants],
    ['corrections', '', figures.corrections],
    ...Object.entries(figures.consumption).map(([endpoint, credits]): [string, string, number] => ['consumption', endpoint, credits]),
    ['consumed', '', figures.consumed],
    ['refunds', '', figures.refunds],
    ['expiries', '', figures.expiries],
    ['closing', '', figures.closing.total],
    ['closing_held', '', figures.closing.reserved],
  ];
}

export function closeCsv(close: MonthClose): string {
  const lines = [CLOSE_CSV_COLUMNS.join(',')];
  const add = (account: string, figures: Figures) => {
    for (const [item, endpoint, credits] of items(figures))
      lines.push([account, item, endpoint, credits, credits * PAISE_PER_CREDIT].map(csvField).join(','));
  };
  for (const account of close.accounts) add(account.accountId, account);
  add(TOTAL, close.total);
  return `${lines.join('\n')}\n`;
}

export function closeJson(close: MonthClose): string {
  return `${JSON.stringify({ ...close, balanced: close.differences.length === 0, paisePerCredit: PAISE_PER_CREDIT })}\n`;
}

const LABELS: Record<string, string> = {
  opening: 'Opening balance',
  purchases: '+ Purchases',
  grants: '+ Grants',
  corrections: '+ Corrections',
  consumed: '- Consumption',
  refunds: '+ Refunds',
  expiries: '- Expiries',
  closing: '= Closing balance',
  closing_held: '  of which held by running calls',
};

function block(title: string, figures: Figures): string[] {
  const line = (label: string, credits: number) =>
    `  ${label.padEnd(36)} ${String(credits).padStart(12)} credits  ${rupees(credits).padStart(18)}`;
  const out = [title];
  for (const [item, endpoint, credits] of items(figures))
    out.push(item === 'consumption' ? line(`    ${endpoint}`, credits) : line(LABELS[item] ?? item, credits));
  return out;
}

export function differenceText(d: CloseDifference): string {
  const { kind, ...fields } = d;
  return `DIFFERENCE ${kind} ${Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' ')}`;
}

export function closeText(close: MonthClose): string {
  const out = [`Credit ledger close for ${close.month} (${close.timezone}: ${close.from} to ${close.to}); 10 credits = Rs 1`, ''];
  for (const account of close.accounts) {
    out.push(...block(`Account ${account.accountId}`, account));
    for (const c of account.credits)
      out.push(
        `    credited ${c.at} ${c.source} ${c.amount} ${c.grantId}${c.paymentReference === null ? '' : ` payment ${c.paymentReference}`}`,
      );
    out.push('');
  }
  out.push(...block(`Total (${close.accounts.length} accounts)`, close.total), '');
  for (const d of close.differences) out.push(differenceText(d));
  const net = netMovements({ ...close.total, accountId: TOTAL, credits: [] });
  out.push(
    close.differences.length === 0
      ? `BALANCED: opening ${close.total.opening.total} + movements ${net} = closing ${close.total.closing.total} credits, and every account's ledger matches its stored balance`
      : `NOT BALANCED: ${close.differences.length} difference(s) above; see docs/finance-guide.md, "When the close fails"`,
  );
  return `${out.join('\n')}\n`;
}
