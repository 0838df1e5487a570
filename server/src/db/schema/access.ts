import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tenantRef, userOwner } from './columns.ts';

// How accounts get in: their memberships of tenants, the tokens of signing in and resetting a password, and the mail.

export const MEMBERSHIP_ROLES = ['admin', 'manager', 'user', 'readonly'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

export const memberships = pgTable(
  'memberships',
  {
    tenantId: tenantRef(),
    userId: userOwner(),
    role: text('role').$type<MembershipRole>().notNull().default('user'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/**
 * Refresh tokens, one row per issued token (jti). Tokens of one sign-in share a family; presenting a
 * used token again revokes the whole family (reuse detection). Platform table: never reachable by the
 * tenant-scoped database role.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    jti: uuid('jti').primaryKey(),
    familyId: uuid('family_id').notNull(),
    userId: userOwner(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('refresh_tokens_family_idx').on(t.familyId), index('refresh_tokens_user_idx').on(t.userId)],
);

/**
 * Recovery codes of an account's second factor (issue 20): SHA-256 digests of codes shown once; a code used at
 * sign-in is deleted, a new set replaces the old, turning 2FA off deletes them all. Platform table.
 */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    userId: userOwner(),
    codeHash: text('code_hash').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/** Password reset tokens, stored as SHA-256 hashes; valid 1 h, single use. */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  userId: userOwner(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/**
 * A pending change of e-mail address: asked with the current password, made once the link mailed to the new address
 * is followed (the token's hash only is kept).
 */
export const emailChanges = pgTable('email_changes', {
  tokenHash: text('token_hash').primaryKey(),
  userId: userOwner(),
  newEmail: text('new_email').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** Outgoing mail when no SMTP server is configured (and the record of what was sent when one is). */
export const mailOutbox = pgTable('mail_outbox', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  recipient: text('recipient').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: createdAt(),
  sentAt: timestamp('sent_at', { withTimezone: true }),
});
