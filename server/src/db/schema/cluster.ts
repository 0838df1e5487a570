import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

// What several Vigie processes on one database share (issue 17, docs/SCALING.md): who is alive, the keys every
// process signs and seals with, and the attempt counters of rate limits and lock-outs. Platform tables: never
// reachable by the tenant-scoped database role.

export const PROCESS_ROLES = ['all', 'web', 'worker'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

/**
 * The processes open on this database, each beating its heart; one whose heartbeat stopped is dead, and the work
 * it owned (task runs, a scan, a backup) is recovered by the others or the next start.
 */
export const serverProcesses = pgTable(
  'server_processes',
  {
    id: uuid('id').primaryKey(),
    role: text('role').$type<ProcessRole>().notNull(),
    hostname: text('hostname').notNull().default(''),
    pid: integer('pid').notNull(),
    /**
     * The id of the data directory it keeps files in (reports, documents, images, backups): every live process of
     * a database must share one directory, and a process on another is refused at start.
     */
    dataVolume: text('data_volume'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true }).notNull().defaultNow(),
    /** Set when the process closed cleanly, or when another found it dead and recovered its work. */
    stoppedAt: timestamp('stopped_at', { withTimezone: true }),
  },
  (t) => [index('server_processes_heartbeat_idx').on(t.heartbeatAt)],
);

export const KEY_PURPOSES = ['access', 'seal'] as const;
export type KeyPurpose = (typeof KEY_PURPOSES)[number];

/**
 * Signing keys of the tokens (`access`) and the key sealing secrets at rest (`seal`), by key id. `secret` is held
 * here only when the environment gives none; otherwise only the fingerprint, so a process started with another key
 * is refused. The current key of a purpose has no retired_at; a retired one is still accepted until what it signed
 * has expired (tokens), or kept while anything is sealed with it.
 */
export const signingKeys = pgTable(
  'signing_keys',
  {
    kid: text('kid').primaryKey(),
    purpose: text('purpose').$type<KeyPurpose>().notNull(),
    secret: text('secret'),
    fingerprint: text('fingerprint').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (t) => [
    check('signing_keys_purpose', sql`${t.purpose} in ('access', 'seal')`),
    index('signing_keys_purpose_idx').on(t.purpose, t.createdAt),
    // One current key per purpose, even when two processes start at once.
    uniqueIndex('signing_keys_current_idx')
      .on(t.purpose)
      .where(sql`${t.retiredAt} is null`),
  ],
);

/** Fixed-window attempt counters of the rate limits (sign-in, reset, 2FA…), by scope and IP or account. */
export const attemptCounters = pgTable(
  'attempt_counters',
  {
    key: text('key').primaryKey(),
    windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [index('attempt_counters_window_idx').on(t.windowStart)],
);

/** Consecutive failed sign-ins of an account (or of an unknown name), and the lock they led to. */
export const loginLockouts = pgTable(
  'login_lockouts',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('login_lockouts_updated_idx').on(t.updatedAt)],
);

/**
 * One row per write statement on the tables the dashboards read (migration 0019's triggers): a tenant's data
 * version is the largest `seq` of its rows, a platform write (a task run, the CWE names) is filed under
 * PLATFORM_WRITES. Inserts only, so concurrent writers never wait on each other; older rows are pruned. Read through
 * tenant_data_version() only.
 */
export const tenantWrites = pgTable(
  'tenant_writes',
  {
    tenantId: uuid('tenant_id').notNull(),
    seq: bigint('seq', { mode: 'number' })
      .notNull()
      .default(sql`nextval('tenant_writes_seq')`),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.seq] })],
);

/** The tenant_id of platform writes in tenant_writes. */
export const PLATFORM_WRITES = '00000000-0000-0000-0000-000000000000';
