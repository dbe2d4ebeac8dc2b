/**
 * Where a billing account's ledger lives in the event store: one stream per account. A
 * module of its own so the service, its projection and the folding readers share it
 * without importing one another.
 */
export const LEDGER_STREAM_TYPE = 'credit-ledger';
export const ledgerStream = (accountId: string): string => `${LEDGER_STREAM_TYPE}-${accountId}`;
