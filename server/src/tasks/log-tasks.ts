import { purgeServerLogs } from '../repositories/server-logs.ts';
import { purgeOlderThan } from './retention.ts';
import type { TaskDefinition } from './types.ts';

export const PURGE_SERVER_LOGS = 'system.tasks.purge_server_logs';

/** Deletes the server's log lines older than the retention (server_logs, owner connection). */
export const purgeServerLogLines = purgeOlderThan(
  purgeServerLogs,
  (removed, days) => `${removed} lignes de journal du serveur de plus de ${days} jours supprimées`,
);

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
