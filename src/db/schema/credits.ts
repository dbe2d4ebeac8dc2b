/**
 * Read models of the credit ledger streams, kept by an inline projection in the appending
 * transaction. `credit_balances` is the row every ledger command locks first, so commands
 * on one account serialise on it; its `version` is the ledger stream's version. The
 * reservation and charge rows let a command load only the entry it names instead of
 * folding a busy account's whole stream. `credit_lots` holds what is left of each grant
 * (see domain/credits/lots.ts); the reservation and charge rows carry the lots they drew
 * from. A balance row with `lots_ready` false predates lots: the credits service rebuilds
 * that account's lots from its stream before its next command.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const creditBalances = pgTable(
  'credit_balances',
  {
    accountId: text('account_id').primaryKey(),
    balance: bigint('balance', { mode: 'number' }).notNull(),
    reserved: bigint('reserved', { mode: 'number' }).notNull(),
    version: bigint('version', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    lotsReady: boolean('lots_ready').notNull().default(false),
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
    /** The lots the still-held credits came from: LotDraw[]. */
    held: jsonb('held').notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    /** Past it, a hold still open is released by the sweep; null on holds made before holds lapsed. */
    holdUntil: timestamp('hold_until', { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.reservationId] }),
    index('credit_reservations_open_idx').on(t.status, t.createdAt),
    // The hold sweep's question: which open holds have lapsed.
    index('credit_reservations_lapsing_idx')
      .on(t.holdUntil)
      .where(sql`${t.status} = 'open' and ${t.holdUntil} is not null`),
  ],
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
    /** The lots the charge was paid from: LotDraw[]. */
    lots: jsonb('lots').notNull().default([]),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.chargeId] })],
);

export const creditLots = pgTable(
  'credit_lots',
  {
    accountId: text('account_id').notNull(),
    grantId: text('grant_id').notNull(),
    remaining: bigint('remaining', { mode: 'number' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.grantId] }),
    check('credit_lots_not_negative', sql`${t.remaining} >= 0`),
    // The expiry sweep's question: which accounts hold credits past their expiry.
    index('credit_lots_due_idx')
      .on(t.expiresAt)
      .where(sql`${t.remaining} > 0 and ${t.expiresAt} is not null`),
  ],
);

/**
 * The external payment reference of a grant or purchase (an invoice or payment id), claimed
 * once: a grant naming a reference already here is the same payment again and credits
 * nothing. The claim is inserted before the grant in one transaction, so concurrent
 * duplicates meet on this primary key and exactly one of them grants.
 */
export const creditPaymentReferences = pgTable('credit_payment_references', {
  paymentReference: text('payment_reference').primaryKey(),
  accountId: text('account_id').notNull(),
  grantId: text('grant_id').notNull(),
  amount: bigint('amount', { mode: 'number' }).notNull(),
  source: text('source').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
});
