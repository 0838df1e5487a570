import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { backups, users } from '../db/schema.ts';
import { isLiveProcess } from './server-processes.ts';

/** A backup row with the username of its author (null when none or since deleted). */
export type BackupRow = typeof backups.$inferSelect & { createdByUsername: string | null };

const columns = {
  id: backups.id,
  filename: backups.filename,
  engine: backups.engine,
  status: backups.status,
  size: backups.size,
  sha256: backups.sha256,
  note: backups.note,
  error: backups.error,
  createdBy: backups.createdBy,
  createdAt: backups.createdAt,
  completedAt: backups.completedAt,
  createdByUsername: users.username,
};

/** The backups table (platform data, owner connection). */
export const backupRepo = {
  async list(db: Db): Promise<BackupRow[]> {
    return db
      .select(columns)
      .from(backups)
      .leftJoin(users, eq(users.id, backups.createdBy))
      .orderBy(desc(backups.createdAt), desc(backups.id));
  },

  async byId(db: Db, id: string): Promise<BackupRow | undefined> {
    const [row] = await db
      .select(columns)
      .from(backups)
      .leftJoin(users, eq(users.id, backups.createdBy))
      .where(eq(backups.id, id));
    return row;
  },

  async insert(db: Db, values: typeof backups.$inferInsert): Promise<void> {
    await db.insert(backups).values(values);
  },

  /** RUNNING → COMPLETED; false when the row is gone or no longer running. */
  async complete(db: Db, id: string, file: { size: number; sha256: string }): Promise<boolean> {
    const done = await db
      .update(backups)
      .set({ status: 'COMPLETED', size: file.size, sha256: file.sha256, error: null, completedAt: sql`now()` })
      .where(and(eq(backups.id, id), eq(backups.status, 'RUNNING')))
      .returning({ id: backups.id });
    return done.length > 0;
  },

  async fail(db: Db, id: string, error: string): Promise<void> {
    await db
      .update(backups)
      .set({ status: 'FAILED', error, completedAt: sql`now()` })
      .where(and(eq(backups.id, id), eq(backups.status, 'RUNNING')));
  },

  async remove(db: Db, id: string): Promise<void> {
    await db.delete(backups).where(eq(backups.id, id));
  },

  /** Completed backups past the newest `keep`, oldest last. */
  async beyondRetention(db: Db, keep: number): Promise<{ id: string; filename: string }[]> {
    return db
      .select({ id: backups.id, filename: backups.filename })
      .from(backups)
      .where(eq(backups.status, 'COMPLETED'))
      .orderBy(desc(backups.createdAt), desc(backups.id))
      .offset(keep);
  },

  /**
   * A RUNNING backup no live run will finish is FAILED: its task run ended without completing it (process stopped,
   * run revoked or failed before it could say so: the run's error), the process executing the run is dead (not live
   * for `staleSeconds`: `interrupted`), or no run was created for it within a minute (the launch died).
   */
  async settleAbandoned(db: Db, opts: { staleSeconds: number; interrupted: string }): Promise<void> {
    await db.execute(sql`
      update backups b set status = 'FAILED', completed_at = coalesce(s.done, now()), error = s.error
      from (
        select a.id, r.date_done as done,
          case when r.id is null then 'Sauvegarde interrompue : sa tâche n’a pas été lancée.'
            when r.status = 'STARTED' then ${opts.interrupted}::text
            else coalesce(r.meta->>'error', 'Sauvegarde interrompue.') end as error
        from backups a left join task_runs r on r.args->>'backup_id' = a.id::text
        where a.status = 'RUNNING' and (
          (r.id is null and a.created_at < now() - interval '1 minute')
          or r.status in ('SUCCESS', 'FAILURE', 'REVOKED')
          or (r.status = 'STARTED' and r.process_id is not null
            and not ${isLiveProcess(sql`r.process_id`, opts.staleSeconds)}))
      ) s
      where b.id = s.id and b.status = 'RUNNING'`);
  },

  async running(db: Db): Promise<number> {
    const [row] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(backups)
      .where(eq(backups.status, 'RUNNING'));
    return Number(row?.n ?? 0);
  },
};
