/**
 * Read models of the credit ledger streams, kept by an inline projection in the appending
 * transaction. `credit_balances` is the row every ledger command locks first, so commands
 * on one account serialise on it; its `version` is the ledger stream's version. The
 * reservation and charge rows let a command load only the entry it names instead of
 * folding a busy account's whole stream.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const creditBalances = pgTable(
  'credit_balances',
  {
    accountId: text('account_id').primaryKey(),
    balance: bigint('balance', { mode: 'number' }).notNull(),
    reserved: bigint('reserved', { mode: 'number' }).notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  // The decider already refuses overdrafts; the database refuses them too, as a backstop.
  (t) => [check('credit_balances_not_negative', sql`${t.balance} >= 0 and ${t.reserved} >= 0`)],
);

export const creditReservations = pgTable(
  'credit_reservations',
  {
    accountId: text('account_id').notNull(),
    reservationId: text('reservation_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    requestRef: text('request_ref').notNull(),
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.reservationId] }), index('credit_reservations_open_idx').on(t.status, t.createdAt)],
);

export const creditCharges = pgTable(
  'credit_charges',
  {
    accountId: text('account_id').notNull(),
    chargeId: text('charge_id').notNull(),
    reservationId: text('reservation_id'),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    requestRef: text('request_ref').notNull(),
    reversed: boolean('reversed').notNull(),
    chargedAt: timestamp('charged_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.chargeId] })],
);
