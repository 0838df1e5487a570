import { purgeServerLogs } from '../repositories/server-logs.ts';
import { SystemSettingsStore } from '../services/system-settings.ts';
import type { TaskContext, TaskDefinition, TaskOutcome } from './types.ts';

export const PURGE_SERVER_LOGS = 'system.tasks.purge_server_logs';
const MAX_RETENTION_DAYS = 36_500;

const number = new Intl.NumberFormat('fr-FR');

/** args.days (a staff launch may name it), else the system setting log_retention_days. */
async function retentionDays(raw: unknown, ctx: TaskContext): Promise<number> {
  if (raw === undefined) return (await SystemSettingsStore.of(ctx.database.db).get()).log_retention_days;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_RETENTION_DAYS) {
    throw new Error(`Paramètre « days » invalide : un entier entre 1 et ${MAX_RETENTION_DAYS} est attendu.`);
  }
  return raw;
}

/** Deletes the server's log lines older than the retention (server_logs, owner connection). */
export async function purgeServerLogLines(ctx: TaskContext): Promise<TaskOutcome> {
  const days = await retentionDays(ctx.args.days, ctx);
  const removed = await purgeServerLogs(ctx.database.db, days);
  await ctx.progress(100, { removed, retention_days: days });
  return {
    result: `${number.format(removed)} lignes de journal du serveur de plus de ${number.format(days)} jours supprimées`,
    meta: { removed, retention_days: days },
  };
}

export const logTasks: TaskDefinition[] = [
  {
    name: PURGE_SERVER_LOGS,
    label: 'Purge des journaux du serveur',
    description:
      'Supprime les lignes des journaux du serveur plus anciennes que la durée de conservation (paramètre système log_retention_days).',
    scope: 'platform',
    schedule: { cron: '15 3 * * *', label: 'Tous les jours à 03:15 (UTC)' },
    retryLimit: 2,
    expireInSeconds: 3600,
    run: purgeServerLogLines,
  },
];
