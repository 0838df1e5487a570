import { SystemSettingsStore } from '../services/system-settings.ts';
import type { Db } from '../db/client.ts';
import type { TaskContext, TaskOutcome } from './types.ts';

// How long the purge tasks keep records, one reading for the audit trail and the server's log.

export const MAX_RETENTION_DAYS = 36_500;

/** args.days (a staff launch may name it), else the system setting log_retention_days. */
export async function retentionDays(raw: unknown, ctx: TaskContext): Promise<number> {
  if (raw === undefined) return (await SystemSettingsStore.of(ctx.database.db).get()).log_retention_days;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_RETENTION_DAYS) {
    throw new Error(`Paramètre « days » invalide : un entier entre 1 et ${MAX_RETENTION_DAYS} est attendu.`);
  }
  return raw;
}

const number = new Intl.NumberFormat('fr-FR');

/**
 * A purge task: deletes what `purge` finds older than the retention and reports how many went, in French
 * (`describe` gets both counts already formatted).
 */
export function purgeOlderThan(
  purge: (db: Db, days: number) => Promise<number>,
  describe: (removed: string, days: string) => string,
): (ctx: TaskContext) => Promise<TaskOutcome> {
  return async (ctx) => {
    const days = await retentionDays(ctx.args.days, ctx);
    const removed = await purge(ctx.database.db, days);
    await ctx.progress(100, { removed, retention_days: days });
    return { result: describe(number.format(removed), number.format(days)), meta: { removed, retention_days: days } };
  };
}
