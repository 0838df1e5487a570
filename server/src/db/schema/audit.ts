import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { tenants } from './identity.ts';
import { bigId, createdAt, userRef } from './columns.ts';

// Records of what happened: backups taken, the audit trail, and the answers kept for idempotent replays.

export const BACKUP_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];

/** A backup archive (database snapshot and documents) written to the data dir or a configured location. */
export const backups = pgTable('backups', {
  id: uuid('id').primaryKey(),
  filename: text('filename').notNull(),
  /** 'pglite' or 'postgres': a backup restores only onto the same kind. */
  engine: text('engine').notNull(),
  status: text('status').$type<BackupStatus>().notNull().default('RUNNING'),
  size: bigint('size', { mode: 'number' }),
  sha256: text('sha256'),
  note: text('note').notNull().default(''),
  error: text('error'),
  createdBy: userRef('created_by'),
  createdAt: createdAt(),
  completedAt: timestamp('completed_at', { withTimezone: true }),
});

export const AUDIT_SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type AuditSeverity = (typeof AUDIT_SEVERITIES)[number];

/**
 * The audit trail (spec §3 server audit event). tenant_id is null only for platform events that belong to
 * no tenant (a failed sign-in for an unknown account); those are visible to superusers alone.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigId(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    timestamp: timestamp('timestamp', { withTimezone: true }).notNull().defaultNow(),
    eventType: text('event_type').notNull(),
    userId: userRef('user_id'),
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
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.scopeHash, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    check('idempotency_keys_state', sql`${t.state} in ('in_progress', 'done')`),
  ],
);
