import { eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { attemptCounters, loginLockouts } from '../db/schema.ts';

// The counters every process shares (issue 17): rate limit windows and sign-in lock-outs live in the database, so
// a second process neither resets nor doubles a budget. Times come from the caller's clock (tests move it).

/** Fixed-window counters: `n` more attempts on `key`, a new window once `windowMs` has passed. */
export const attemptCounterRepo = {
  async hit(
    db: Db,
    key: string,
    n: number,
    windowMs: number,
    now: Date,
  ): Promise<{ count: number; windowStart: Date }> {
    const expired = sql`${attemptCounters.windowStart} <= ${new Date(now.getTime() - windowMs)}`;
    const [row] = await db
      .insert(attemptCounters)
      .values({ key, windowStart: now, count: n })
      .onConflictDoUpdate({
        target: attemptCounters.key,
        set: {
          count: sql`case when ${expired} then ${n} else ${attemptCounters.count} + ${n} end`,
          windowStart: sql`case when ${expired} then ${now} else ${attemptCounters.windowStart} end`,
        },
      })
      .returning({ count: attemptCounters.count, windowStart: attemptCounters.windowStart });
    return row!;
  },

  async reset(db: Db, key: string): Promise<void> {
    await db.delete(attemptCounters).where(eq(attemptCounters.key, key));
  },

  /** Forgets windows that ended before `before`. */
  async purge(db: Db, before: Date): Promise<number> {
    const gone = await db
      .delete(attemptCounters)
      .where(lt(attemptCounters.windowStart, before))
      .returning({ key: attemptCounters.key });
    return gone.length;
  },
};

/** Consecutive failed sign-ins of a key, and the lock they led to. */
export const loginLockoutRepo = {
  async lockedUntil(db: Db, key: string): Promise<Date | null | undefined> {
    const [row] = await db
      .select({ lockedUntil: loginLockouts.lockedUntil })
      .from(loginLockouts)
      .where(eq(loginLockouts.key, key));
    return row ? row.lockedUntil : undefined;
  },

  /**
   * One more failure, atomically: a lock that has run out starts the count again from zero; reaching `threshold`
   * locks until `until`.
   */
  async fail(db: Db, key: string, threshold: number, until: Date, now: Date): Promise<{ failures: number }> {
    const ranOut = sql`${loginLockouts.lockedUntil} is not null and ${loginLockouts.lockedUntil} <= ${now}`;
    const failures = sql`case when ${ranOut} then 1 else ${loginLockouts.failures} + 1 end`;
    const [row] = await db
      .insert(loginLockouts)
      .values({ key, failures: 1, lockedUntil: threshold <= 1 ? until : null, updatedAt: now })
      .onConflictDoUpdate({
        target: loginLockouts.key,
        set: {
          failures,
          lockedUntil: sql`case when ${failures} >= ${threshold} then ${until}::timestamptz else null end`,
          updatedAt: now,
        },
      })
      .returning({ failures: loginLockouts.failures });
    return row!;
  },

  async clear(db: Db, key: string): Promise<void> {
    await db.delete(loginLockouts).where(eq(loginLockouts.key, key));
  },

  /** Forgets counts untouched since `before` whose lock (if any) has run out. */
  async purge(db: Db, before: Date): Promise<number> {
    const gone = await db
      .delete(loginLockouts)
      .where(
        sql`${loginLockouts.updatedAt} < ${before} and (${loginLockouts.lockedUntil} is null or ${loginLockouts.lockedUntil} < ${before})`,
      )
      .returning({ key: loginLockouts.key });
    return gone.length;
  },
};
