import { and, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { taskRuns, type TaskMeta, type TaskStatus } from '../db/schema.ts';
import { isLiveProcess } from './server-processes.ts';

export type TaskRunRow = typeof taskRuns.$inferSelect;

/** spec §3 meta of a run that has not started yet: every key present. */
export function initialMeta(): TaskMeta {
  return {
    duration: null,
    new_cves: 0,
    updated_cves: 0,
    error: null,
    attempts: 0,
    start_time: null,
    progress: 0,
    revoked_by: null,
    reason: null,
  };
}

/** meta || patch, so concurrent writers of different keys do not overwrite each other's whole object. */
const mergeMeta = (patch: Record<string, unknown>): SQL => sql`${taskRuns.meta} || ${JSON.stringify(patch)}::jsonb`;

/** Writes of one attempt only land while that attempt owns the run (not revoked, not superseded by a retry). */
const ownedBy = (id: string, attempt: number): SQL | undefined =>
  and(eq(taskRuns.id, id), eq(taskRuns.status, 'STARTED'), sql`(${taskRuns.meta}->>'attempts')::int = ${attempt}`);

export interface NewTaskRun {
  id: string;
  taskName: string;
  tenantId: string | null;
  args: Record<string, unknown>;
  requestedBy: number | null;
  trigger: string;
}

/**
 * Writes of the job queue (owner connection: runs are written by the platform, read by tenants through RLS).
 */
export const taskRunWrites = {
  async insert(db: Db, run: NewTaskRun): Promise<TaskRunRow> {
    const [row] = await db
      .insert(taskRuns)
      .values({ ...run, status: 'PENDING', meta: initialMeta() })
      .returning();
    return row!;
  },

  /** A job pg-boss created itself (a schedule): give it its row if it has none yet. */
  async ensure(db: Db, run: NewTaskRun): Promise<void> {
    await db
      .insert(taskRuns)
      .values({ ...run, status: 'PENDING', meta: initialMeta() })
      .onConflictDoNothing({ target: taskRuns.id });
  },

  /**
   * PENDING (or STARTED by a lost attempt) → STARTED by `processId`; undefined when the run was revoked meanwhile.
   */
  async start(
    db: Db,
    id: string,
    attempt: number,
    startTime: string,
    processId: string,
  ): Promise<TaskRunRow | undefined> {
    const [row] = await db
      .update(taskRuns)
      .set({
        status: 'STARTED',
        processId,
        dateDone: null,
        meta: mergeMeta({ attempts: attempt, start_time: startTime, progress: 0, duration: null, error: null }),
      })
      .where(and(eq(taskRuns.id, id), inArray(taskRuns.status, ['PENDING', 'STARTED'])))
      .returning();
    return row;
  },

  async patchMeta(db: Db, id: string, attempt: number, patch: Record<string, unknown>): Promise<void> {
    await db
      .update(taskRuns)
      .set({ meta: mergeMeta(patch) })
      .where(ownedBy(id, attempt));
  },

  /** End of an attempt: SUCCESS/FAILURE (final, dated) or back to PENDING for a retry. */
  async finish(
    db: Db,
    id: string,
    attempt: number,
    outcome: {
      status: Exclude<TaskStatus, 'STARTED' | 'REVOKED'>;
      result: string | null;
      meta: Record<string, unknown>;
    },
  ): Promise<TaskRunRow | undefined> {
    const [row] = await db
      .update(taskRuns)
      .set({
        status: outcome.status,
        result: outcome.result,
        meta: mergeMeta(outcome.meta),
        dateDone: outcome.status === 'PENDING' ? null : sql`now()`,
      })
      .where(ownedBy(id, attempt))
      .returning();
    return row;
  },

  /** PENDING/STARTED → REVOKED; undefined when the run is unknown or already finished. */
  async revoke(db: Db, id: string, by: string, reason: string | null): Promise<TaskRunRow | undefined> {
    const [row] = await db
      .update(taskRuns)
      .set({
        status: 'REVOKED',
        result: 'Tâche annulée',
        dateDone: sql`now()`,
        // Duration of the attempt that was running, computed by the database (the run may be in another process).
        meta: sql`${taskRuns.meta} || jsonb_build_object(
          'revoked_by', ${by}::text,
          'reason', ${reason}::text,
          'duration', CASE WHEN ${taskRuns.status} = 'STARTED' AND ${taskRuns.meta}->>'start_time' IS NOT NULL
            THEN round(extract(epoch FROM now() - (${taskRuns.meta}->>'start_time')::timestamptz)::numeric, 1)
            ELSE NULL END)`,
      })
      .where(and(eq(taskRuns.id, id), inArray(taskRuns.status, ['PENDING', 'STARTED'])))
      .returning();
    return row;
  },

  /**
   * A run whose process died, claimed by one recoverer (the update only lands while it is still STARTED by that
   * process): back to PENDING for pg-boss's retry, or FAILURE when none remains.
   */
  async recover(
    db: Db,
    run: { id: string; processId: string | null },
    outcome: { status: 'PENDING' | 'FAILURE'; result: string | null; error: string },
  ): Promise<TaskRunRow | undefined> {
    const [row] = await db
      .update(taskRuns)
      .set({
        status: outcome.status,
        result: outcome.result,
        dateDone: outcome.status === 'PENDING' ? null : sql`now()`,
        // How long the lost attempt had been running when it was found, by the database's clock.
        meta: sql`${taskRuns.meta} || jsonb_build_object(
          'error', ${outcome.error}::text,
          'duration', CASE WHEN ${taskRuns.meta}->>'start_time' IS NOT NULL
            THEN round(extract(epoch FROM now() - (${taskRuns.meta}->>'start_time')::timestamptz)::numeric, 1)
            ELSE NULL END)`,
      })
      .where(
        and(
          eq(taskRuns.id, run.id),
          eq(taskRuns.status, 'STARTED'),
          run.processId === null ? isNull(taskRuns.processId) : eq(taskRuns.processId, run.processId),
        ),
      )
      .returning();
    return row;
  },

  /** A run whose job could not be queued. */
  async failToQueue(db: Db, id: string, error: string): Promise<void> {
    await db
      .update(taskRuns)
      .set({ status: 'FAILURE', result: 'Échec de la mise en file', dateDone: sql`now()`, meta: mergeMeta({ error }) })
      .where(eq(taskRuns.id, id));
  },
};

export const taskRunReads = {
  /** Any run (platform view: the queue, tests, CLI). */
  async byId(db: Db, id: string): Promise<TaskRunRow | undefined> {
    const [row] = await db.select().from(taskRuns).where(eq(taskRuns.id, id));
    return row;
  },

  /**
   * Runs left STARTED by a process that is no longer live (stopped, or silent for `staleSeconds`), never `self`'s;
   * with `unownedBefore`, also those that name no process and were created before it (a single-process database:
   * runs of a version that did not record the process).
   */
  async orphaned(
    db: Db,
    opts: { self: string; staleSeconds: number; unownedBefore: Date | null },
  ): Promise<TaskRunRow[]> {
    const unowned = opts.unownedBefore
      ? sql`(${taskRuns.processId} is null and ${taskRuns.createdAt} < ${opts.unownedBefore.toISOString()}::timestamptz)`
      : sql`false`;
    return db
      .select()
      .from(taskRuns)
      .where(
        and(
          eq(taskRuns.status, 'STARTED'),
          sql`((${taskRuns.processId} is not null and ${taskRuns.processId} <> ${opts.self}
            and not ${isLiveProcess(sql`${taskRuns.processId}`, opts.staleSeconds)}) or ${unowned})`,
        ),
      )
      .orderBy(taskRuns.createdAt);
  },

  async statusOf(db: Db, id: string): Promise<TaskStatus | undefined> {
    const [row] = await db.select({ status: taskRuns.status }).from(taskRuns).where(eq(taskRuns.id, id));
    return row?.status;
  },

  /** A run the current tenant may see (its own or a platform run; row-level security decides). */
  async visible(tx: TenantDb, id: string): Promise<TaskRunRow | undefined> {
    const [row] = await tx.select().from(taskRuns).where(eq(taskRuns.id, id));
    return row;
  },

  /** Newest first, as far as the current tenant may see. */
  async recent(tx: TenantDb, limit: number): Promise<TaskRunRow[]> {
    return tx.select().from(taskRuns).orderBy(desc(taskRuns.createdAt), desc(taskRuns.id)).limit(limit);
  },
};
