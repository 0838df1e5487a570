import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { bigId, userRef } from './columns.ts';

// Platform settings and the server's log: one-row tables an administrator changes, and the log store. Platform
// tables: never reachable by the tenant-scoped database role.

/**
 * System settings (spec §3), one row: only the values an administrator changed, the defaults live in code
 * (server/src/services/system-settings.ts). Platform table: never reachable by the tenant-scoped role.
 */
export const systemSettings = pgTable(
  'system_settings',
  {
    id: smallint('id').primaryKey().default(1),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: userRef('updated_by'),
  },
  (t) => [check('system_settings_singleton', sql`${t.id} = 1`)],
);

/** Operational configuration an administrator may change (issue 9, docs/api-admin.md "Configuration"). */
export const adminConfig = pgTable(
  'admin_config',
  {
    id: smallint('id').primaryKey().default(1),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: userRef('updated_by'),
  },
  (t) => [check('admin_config_singleton', sql`${t.id} = 1`)],
);

/** The server's structured log records, queryable by administrators, purged after log_retention_days. */
export const serverLogs = pgTable(
  'server_logs',
  {
    id: bigId(),
    time: timestamp('time', { withTimezone: true }).notNull().defaultNow(),
    level: text('level').notNull(),
    message: text('message').notNull().default(''),
    requestId: text('request_id'),
    method: text('method'),
    url: text('url'),
    statusCode: integer('status_code'),
    responseTimeMs: doublePrecision('response_time_ms'),
    tenantId: uuid('tenant_id'),
    userId: integer('user_id'),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index('server_logs_time_idx').on(t.time), index('server_logs_level_time_idx').on(t.level, t.time)],
);

/** Platform-wide security policies (one row); the administration issue adds its screens. */
export const securityPolicies = pgTable(
  'security_policies',
  {
    id: smallint('id').primaryKey().default(1),
    allowRegistration: boolean('allow_registration').notNull().default(true),
    passwordMinLength: integer('password_min_length').notNull().default(8),
    loginAttemptsPerMinute: integer('login_attempts_per_minute').notNull().default(10),
    // Issue 9: complexity, 2FA per role, session lifetime, lock-out after failed sign-ins.
    passwordRequireUppercase: boolean('password_require_uppercase').notNull().default(false),
    passwordRequireLowercase: boolean('password_require_lowercase').notNull().default(false),
    passwordRequireDigit: boolean('password_require_digit').notNull().default(false),
    passwordRequireSymbol: boolean('password_require_symbol').notNull().default(false),
    /** Membership roles ('admin', 'manager', 'user', 'readonly') and 'superuser'/'staff' that must use 2FA. */
    twoFactorRequiredRoles: text('two_factor_required_roles')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** How long a sign-in lasts (refresh token lifetime), in minutes. */
    sessionLifetimeMinutes: integer('session_lifetime_minutes').notNull().default(10_080),
    /** Failed sign-ins in a row before an account is locked, and for how long. */
    lockoutThreshold: integer('lockout_threshold').notNull().default(10),
    lockoutMinutes: integer('lockout_minutes').notNull().default(15),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('security_policies_singleton', sql`${t.id} = 1`)],
);
