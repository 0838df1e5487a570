import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

// Identity: organisations (tenants) and accounts, which nearly every other table names.

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
  /** Soft delete (issue 9): the tenant is closed to everyone, its data kept until purged. */
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
  deletedBy: integer('deleted_by'),
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
