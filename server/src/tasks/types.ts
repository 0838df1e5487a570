import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/client.ts';
import type { TaskMeta, TaskStatus } from '../db/schema.ts';

/** What a task's run function gets: its arguments, a progress reporter and a signal aborted on revoke. */
export interface TaskContext {
  taskId: string;
  /** null for platform tasks. */
  tenantId: string | null;
  args: Record<string, unknown>;
  requestedBy: number | null;
  /** Owner connection; tenant work must go through withTenant(database.db, tenantId, …). */
  database: Database;
  /** Writable directory of the app's files (scanner reports live below it). */
  filesDir: string;
  log: FastifyBaseLogger;
  /** Aborted when the run is revoked (cancel): long loops check it and stop. */
  signal: AbortSignal;
  /** Records meta.progress (0–100) and any other meta keys; throttled by the queue. */
  progress(percent: number, meta?: Partial<TaskMeta>): Promise<void>;
}

export interface TaskOutcome {
  /** Human-readable French summary shown as the task's result. */
  result: string;
  meta?: Partial<TaskMeta>;
}

/**
 * What a task's recover hook gets: a run of it that was executing in a process that died (killed, crashed, lost)
 * and was just recovered by another process or the next start.
 */
export interface RecoveryContext {
  taskId: string;
  tenantId: string | null;
  args: Record<string, unknown>;
  database: Database;
  filesDir: string;
  log: FastifyBaseLogger;
  /** True when no attempt remains (the run is FAILURE); false when pg-boss runs it again. */
  final: boolean;
  /** The French reason written to the run's meta.error. */
  reason: string;
}

export interface TaskDefinition {
  /** The full name, e.g. 'vulnerabilities.tasks.update_cve_database' (spec §3 full_name). */
  name: string;
  /** French label shown in the task manager (spec §3 name). */
  label: string;
  description: string;
  /** platform: one run for everyone, launched by staff; tenant: runs inside the caller's tenant. */
  scope: 'platform' | 'tenant';
  /** Recurring schedule (cron, UTC) with its French description. */
  schedule?: { cron: string; label: string };
  /** Extra attempts after a failure (default 2). */
  retryLimit?: number;
  /** Seconds before a run is considered lost and retried (default 3600; pg-boss caps it below 24 h). */
  expireInSeconds?: number;
  /** Runs of this task one process may execute at the same time (default 1). */
  concurrency?: number;
  run(ctx: TaskContext): Promise<TaskOutcome>;
  /**
   * Puts right what a run left half-done when its process died (rows it left RUNNING, scratch files), before the
   * job is retried or failed for good. Called once per recovered run; it must tolerate finding nothing to do.
   */
  recover?(ctx: RecoveryContext): Promise<void>;
}

/** The product's view of one run (spec §3 recent task). */
export interface TaskRunView {
  id: string;
  name: string;
  full_name: string;
  status: TaskStatus;
  date_done: string | null;
  result: string | null;
  meta: TaskMeta;
  created_at: string;
  tenant_id: string | null;
}

export interface LaunchOptions {
  /** Required (non-null) for tenant-scoped tasks, null for platform tasks. */
  tenantId: string | null;
  requestedBy: number | null;
  trigger?: 'user' | 'schedule' | 'system';
}

/** The job queue as routes and services see it (app.jobs). */
export interface JobQueue {
  /** Creates the task_runs row (PENDING) and enqueues the job; returns the new run. */
  launch(taskName: string, args: Record<string, unknown>, opts: LaunchOptions): Promise<TaskRunView>;
  /** Revokes a PENDING or STARTED run (REVOKED, meta.revoked_by, meta.reason); null when unknown or finished. */
  cancel(taskId: string, opts: { by: string; reason?: string | undefined }): Promise<TaskRunView | null>;
  get(taskId: string): Promise<TaskRunView | null>;
  /** Resolves when the run reaches SUCCESS, FAILURE or REVOKED (tests and CLI); rejects after timeoutMs (default 30 s). */
  waitFor(taskId: string, timeoutMs?: number): Promise<TaskRunView>;
  /** The task definitions this queue knows (routes list them and check a name before launching). */
  readonly tasks: readonly TaskDefinition[];
  find(taskName: string): TaskDefinition | undefined;
}

/** launch() of a name the queue does not know. */
export class UnknownTaskError extends Error {
  constructor(readonly taskName: string) {
    super(`unknown task: ${taskName}`);
  }
}

/** The statuses after which a run never changes again. */
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['SUCCESS', 'FAILURE', 'REVOKED'];
