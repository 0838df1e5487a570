import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Organisations. Every tenant-owned table carries tenant_id as the first column of its keys. */
export const tenants = pgTable('tenants', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  name: text('name').notNull(),
  domain: text('domain').notNull().unique(),
  subscriptionPlan: text('subscription_plan').notNull().default('Business'),
  status: text('status').notNull().default('active'),
  contactEmail: text('contact_email'),
  logoUrl: text('logo_url'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Accounts are global (one person may belong to several tenants); access goes through memberships. */
export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  username: text('username').notNull().unique(),
  email: text('email').notNull().unique(),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  passwordHash: text('password_hash').notNull(),
  isActive: boolean('is_active').notNull().default(true),
  isStaff: boolean('is_staff').notNull().default(false),
  isSuperuser: boolean('is_superuser').notNull().default(false),
  defaultTenantId: uuid('default_tenant_id').references(() => tenants.id, { onDelete: 'set null' }),
  dateJoined: timestamp('date_joined', { withTimezone: true }).notNull().defaultNow(),
  lastLogin: timestamp('last_login', { withTimezone: true }),
  /** AES-256-GCM ciphertext of the TOTP secret (key from configuration), never the secret itself. */
  totpSecret: text('totp_secret'),
  totpEnabled: boolean('totp_enabled').notNull().default(false),
});

export const MEMBERSHIP_ROLES = ['admin', 'manager', 'user', 'readonly'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

export const memberships = pgTable(
  'memberships',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MembershipRole>().notNull().default('user'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
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
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('refresh_tokens_family_idx').on(t.familyId), index('refresh_tokens_user_idx').on(t.userId)],
);

/** Password reset tokens, stored as SHA-256 hashes; valid 1 h, single use. */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** Outgoing mail when no SMTP server is configured (and the record of what was sent when one is). */
export const mailOutbox = pgTable('mail_outbox', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  recipient: text('recipient').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  sentAt: timestamp('sent_at', { withTimezone: true }),
});

export const AUDIT_SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type AuditSeverity = (typeof AUDIT_SEVERITIES)[number];

/**
 * The audit trail (§3 server audit event). tenant_id is null only for platform events that belong to
 * no tenant (a failed sign-in for an unknown account); those are visible to superusers alone.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    timestamp: timestamp('timestamp', { withTimezone: true }).notNull().defaultNow(),
    eventType: text('event_type').notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    username: text('username'),
    ipAddress: text('ip_address'),
    description: text('description').notNull().default(''),
    severity: text('severity').$type<AuditSeverity>().notNull().default('INFO'),
    source: text('source').notNull().default('server'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    /** The client's own id for a frontend event: a beacon re-sent after a crash is stored once. */
    clientEventId: text('client_event_id'),
  },
  (t) => [
    index('audit_events_tenant_time_idx').on(t.tenantId, t.timestamp),
    uniqueIndex('audit_events_client_event_idx').on(t.clientEventId),
  ],
);

/** Platform-wide security policies (one row); the administration issue adds its screens. */
export const securityPolicies = pgTable(
  'security_policies',
  {
    id: smallint('id').primaryKey().default(1),
    allowRegistration: boolean('allow_registration').notNull().default(true),
    passwordMinLength: integer('password_min_length').notNull().default(8),
    loginAttemptsPerMinute: integer('login_attempts_per_minute').notNull().default(10),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('security_policies_singleton', sql`${t.id} = 1`)],
);

export const IDEMPOTENCY_STATES = ['in_progress', 'done'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * Idempotency-Key answers (offline writes replayed by the service worker), kept 24 h. Platform table,
 * not granted to vigie_app. The caller appears only as a SHA-256 of its credential and the request only
 * as a keyed hash: no token and no request body is ever stored, only the answer of a finished request.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** SHA-256 hex of the Authorization header, else of the access cookie, else of 'anonymous'. */
    scopeHash: text('scope_hash').notNull(),
    key: text('key').notNull(),
    method: text('method').notNull(),
    /** URL path without the query string. */
    path: text('path').notNull(),
    /** HMAC-SHA-256 (keyed by the caller's credential) of the full URL, X-Tenant-ID and the body. */
    requestHash: text('request_hash').notNull(),
    state: text('state').$type<IdempotencyState>().notNull().default('in_progress'),
    /** Which attempt holds an in_progress row, so a late attempt never finalizes another's claim. */
    attemptId: uuid('attempt_id').notNull(),
    statusCode: integer('status_code'),
    /** The answer as text, or null when it was not kept (too large or not JSON): replayed as JSON null. */
    responseBody: text('response_body'),
    contentType: text('content_type'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.scopeHash, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    check('idempotency_keys_state', sql`${t.state} in ('in_progress', 'done')`),
  ],
);

export const schema = {
  tenants,
  users,
  memberships,
  refreshTokens,
  passwordResetTokens,
  mailOutbox,
  auditEvents,
  securityPolicies,
  idempotencyKeys,
};
