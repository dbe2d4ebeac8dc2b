/**
 * Read models of the account streams (organisations, users, API keys), kept by an inline
 * projection in the appending transaction so key lookups never lag behind a revocation.
 * Dashboard sessions are short-lived login state, not domain facts, so they are plain rows.
 */
import { boolean, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const organizations = pgTable('organizations', {
  organizationId: text('organization_id').primaryKey(),
  name: text('name').notNull(),
  status: text('status').notNull(),
  allowlist: jsonb('allowlist').notNull(),
  strictAllowlist: boolean('strict_allowlist').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});

export const users = pgTable(
  'users',
  {
    userId: text('user_id').primaryKey(),
    email: text('email').notNull().unique('users_email_unique'),
    name: text('name').notNull(),
    tier: text('tier').notNull(),
    organizationId: text('organization_id'),
    role: text('role').notNull(),
    trial: boolean('trial').notNull(),
    emailVerified: boolean('email_verified').notNull(),
    apiAccess: boolean('api_access').notNull(),
    passwordHash: text('password_hash'),
    limitOverrides: jsonb('limit_overrides').notNull(),
    standing: text('standing').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('users_organization_idx').on(t.organizationId)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    keyId: text('key_id').primaryKey(),
    keyHash: text('key_hash').notNull().unique('api_keys_hash_unique'),
    userId: text('user_id').notNull(),
    organizationId: text('organization_id'),
    name: text('name').notNull(),
    displayKey: text('display_key').notNull(),
    status: text('status').notNull(),
    graceEndsAt: timestamp('grace_ends_at', { withTimezone: true }),
    rotatedFrom: text('rotated_from'),
    replacedBy: text('replaced_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [index('api_keys_user_idx').on(t.userId), index('api_keys_organization_idx').on(t.organizationId)],
);

export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    sessionHash: text('session_hash').primaryKey(),
    userId: text('user_id').notNull(),
    csrfToken: text('csrf_token').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('dashboard_sessions_user_idx').on(t.userId)],
);

/**
 * Per-subject data keys for personal fields sealed in events (crypto-shredding). They live
 * here, outside the events table, so erasing a person deletes `material` and every sealed
 * field of theirs becomes unreadable without touching the immutable log. A shredded row
 * stays (material null) so the subject can never be given a fresh key by mistake.
 */
export const subjectKeys = pgTable('subject_keys', {
  subjectId: text('subject_id').primaryKey(),
  material: text('material'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  shreddedAt: timestamp('shredded_at', { withTimezone: true }),
});
