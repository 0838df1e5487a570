import { purgeExpiredAuditEvents } from '../repositories/audit-events.ts';
import { SETTING_RULES } from '../services/system-settings.ts';
import { purgeOlderThan } from './retention.ts';
import type { TaskDefinition } from './types.ts';

export const DEFAULT_LOG_RETENTION_DAYS = SETTING_RULES.log_retention_days.default;
export const PURGE_AUDIT_EVENTS = 'audit.tasks.purge_audit_events';

/** Deletes the audit events older than the retention, through the owner-rights function the trigger lets through. */
export const purgeAuditEvents = purgeOlderThan(
  purgeExpiredAuditEvents,
  (removed, days) => `${removed} événements d’audit de plus de ${days} jours supprimés`,
);

export const auditTasks: TaskDefinition[] = [
  {
    name: PURGE_AUDIT_EVENTS,
    label: 'Purge du journal d’audit',
    description: `Supprime les événements d’audit plus anciens que la durée de conservation (paramètre système log_retention_days, ${DEFAULT_LOG_RETENTION_DAYS} jours par défaut).`,
    scope: 'platform',
    schedule: { cron: '0 3 * * *', label: 'Tous les jours à 03:00 (UTC)' },
    retryLimit: 2,
    expireInSeconds: 3600,
    run: purgeAuditEvents,
  },
];
