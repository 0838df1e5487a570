import { purgeExpiredAuditEvents } from '../repositories/audit-events.ts';
import { SETTING_RULES, SystemSettingsStore } from '../services/system-settings.ts';
import type { TaskContext, TaskDefinition, TaskOutcome } from './types.ts';

export const DEFAULT_LOG_RETENTION_DAYS = SETTING_RULES.log_retention_days.default;
const MAX_RETENTION_DAYS = 36_500;
export const PURGE_AUDIT_EVENTS = 'audit.tasks.purge_audit_events';

const number = new Intl.NumberFormat('fr-FR');

/** args.days (a staff launch may name it), else the system setting log_retention_days. */
async function retentionDays(raw: unknown, ctx: TaskContext): Promise<number> {
  if (raw === undefined) return (await SystemSettingsStore.of(ctx.database.db).get()).log_retention_days;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_RETENTION_DAYS) {
    throw new Error(`Paramètre « days » invalide : un entier entre 1 et ${MAX_RETENTION_DAYS} est attendu.`);
  }
  return raw;
}

/** Deletes the audit events older than the retention, through the owner-rights function the trigger lets through. */
export async function purgeAuditEvents(ctx: TaskContext): Promise<TaskOutcome> {
  const days = await retentionDays(ctx.args.days, ctx);
  const removed = await purgeExpiredAuditEvents(ctx.database.db, days);
  await ctx.progress(100, { removed, retention_days: days });
  return {
    result: `${number.format(removed)} événements d’audit de plus de ${number.format(days)} jours supprimés`,
    meta: { removed, retention_days: days },
  };
}

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
