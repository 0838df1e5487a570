import { and, eq, isNull, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { serverProcesses, type ProcessRole } from '../db/schema.ts';

export type ServerProcessRow = typeof serverProcesses.$inferSelect;

/**
 * A process is live while it is not marked stopped and its heartbeat is younger than `staleSeconds`; every time is
 * the database's own clock, so hosts whose clocks differ agree.
 */
export const isLiveProcess = (id: SQL | string, staleSeconds: number): SQL =>
  sql`exists (select 1 from ${serverProcesses} p where p.id = ${id} and p.stopped_at is null
    and p.heartbeat_at > now() - make_interval(secs => ${staleSeconds}))`;

/** Stopped rows are kept this long (what the status and the logs may still name), then deleted. */
const KEEP_STOPPED = sql`interval '7 days'`;

/** The registry of open processes (platform table, owner connection). */
export const serverProcessRepo = {
  /** A live process keeping its files in another data directory than `dataVolume`, if there is one. */
  async otherVolume(
    db: Db,
    dataVolume: string,
    staleSeconds: number,
  ): Promise<Pick<ServerProcessRow, 'hostname' | 'pid' | 'role'> | undefined> {
    const [other] = await db
      .select({ hostname: serverProcesses.hostname, pid: serverProcesses.pid, role: serverProcesses.role })
      .from(serverProcesses)
      .where(
        and(
          isNull(serverProcesses.stoppedAt),
          sql`${serverProcesses.heartbeatAt} > now() - make_interval(secs => ${staleSeconds})`,
          ne(serverProcesses.dataVolume, dataVolume),
        ),
      )
      .limit(1);
    return other;
  },

  async register(
    db: Db,
    row: { id: string; role: ProcessRole; hostname: string; pid: number; dataVolume: string | null },
  ): Promise<Date> {
    const [inserted] = await db.insert(serverProcesses).values(row).returning({ startedAt: serverProcesses.startedAt });
    return inserted!.startedAt;
  },

  /** The heartbeat; false when the row is gone or was marked stopped (another process found this one dead). */
  async beat(db: Db, id: string): Promise<boolean> {
    const rows = await db
      .update(serverProcesses)
      .set({ heartbeatAt: sql`now()` })
      .where(and(eq(serverProcesses.id, id), isNull(serverProcesses.stoppedAt)))
      .returning({ id: serverProcesses.id });
    return rows.length > 0;
  },

  /** Live again after being found dead (a long pause): same id, so the runs it still owns stay its own. */
  async revive(db: Db, id: string): Promise<void> {
    await db
      .update(serverProcesses)
      .set({ heartbeatAt: sql`now()`, stoppedAt: null })
      .where(eq(serverProcesses.id, id));
  },

  async markStopped(db: Db, id: string): Promise<void> {
    await db
      .update(serverProcesses)
      .set({ stoppedAt: sql`now()` })
      .where(and(eq(serverProcesses.id, id), isNull(serverProcesses.stoppedAt)));
  },

  /** Every other process is dead (PGlite: its lock file lets one process open the data at a time). */
  async markOthersStopped(db: Db, self: string): Promise<void> {
    await db
      .update(serverProcesses)
      .set({ stoppedAt: sql`now()` })
      .where(and(ne(serverProcesses.id, self), isNull(serverProcesses.stoppedAt)));
  },

  /** Marks stopped the processes whose heartbeat is older than `staleSeconds`; answers their ids. */
  async markStale(db: Db, staleSeconds: number): Promise<string[]> {
    const rows = await db
      .update(serverProcesses)
      .set({ stoppedAt: sql`now()` })
      .where(
        and(
          isNull(serverProcesses.stoppedAt),
          lt(serverProcesses.heartbeatAt, sql`now() - make_interval(secs => ${staleSeconds})`),
        ),
      )
      .returning({ id: serverProcesses.id });
    return rows.map((r) => r.id);
  },

  async deleteOldStopped(db: Db): Promise<void> {
    await db.delete(serverProcesses).where(lt(serverProcesses.stoppedAt, sql`now() - ${KEEP_STOPPED}`));
  },
};
