import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from './identity.ts';
import { createdAt, userRef } from './columns.ts';

// Background task runs as the product reports them.

export const TASK_STATUSES = ['PENDING', 'STARTED', 'SUCCESS', 'FAILURE', 'REVOKED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskMeta {
  duration: number | null;
  new_cves: number;
  updated_cves: number;
  error: string | null;
  attempts: number;
  start_time: string | null;
  progress: number;
  revoked_by: string | null;
  reason: string | null;
  [key: string]: unknown;
}

/**
 * Background task runs (the spec's celery tasks) as the product reports them. pg-boss (schema pgboss) does
 * the queuing, locking and retries; this row carries the spec §4 status and the spec §3 meta. tenant_id is null for
 * platform tasks (CVE updates), set for a tenant's own work (a scan report).
 */
export const taskRuns = pgTable(
  'task_runs',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    taskName: text('task_name').notNull(),
    status: text('status').$type<TaskStatus>().notNull().default('PENDING'),
    meta: jsonb('meta').$type<TaskMeta>().notNull(),
    result: text('result'),
    args: jsonb('args').$type<Record<string, unknown>>().notNull().default({}),
    requestedBy: userRef('requested_by'),
    /** 'schedule' for cron runs, 'user' for a launch. */
    trigger: text('trigger').notNull().default('user'),
    createdAt: createdAt(),
    dateDone: timestamp('date_done', { withTimezone: true }),
    /** The process executing the run (server_processes), so a dead process's runs are recovered. */
    processId: uuid('process_id'),
  },
  (t) => [
    index('task_runs_created_idx').on(t.createdAt),
    index('task_runs_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('task_runs_status_process_idx').on(t.status, t.processId),
  ],
);
