import { notifierOf } from '../services/notifier.ts';
import { todayUtc } from '../domain/risk-scoring.ts';
import type { TaskContext, TaskDefinition, TaskOutcome } from './types.ts';

export const NOTIFY_OVERDUE = 'notifications.tasks.notify_overdue';

const number = new Intl.NumberFormat('fr-FR');
const plural = (n: number, one: string, many: string) => `${number.format(n)} ${n > 1 ? many : one}`;

/** Reminds assignees of their overdue tasks and corrective actions; a reminder goes once per due date. */
export async function notifyOverdue(ctx: TaskContext): Promise<TaskOutcome> {
  const today = todayUtc();
  const { tasks, actions, findings, sent } = await notifierOf(ctx.database, ctx.log).overdue(today);
  const meta = { overdue_tasks: tasks, overdue_actions: actions, overdue_findings: findings, sent };
  await ctx.progress(100, meta);
  return {
    result:
      `${plural(sent, 'rappel envoyé', 'rappels envoyés')} ` +
      `(${plural(tasks, 'tâche', 'tâches')}, ${plural(actions, 'action corrective', 'actions correctives')} et ` +
      `${plural(findings, 'vulnérabilité assignée', 'vulnérabilités assignées')} en retard)`,
    meta,
  };
}

export const notificationTasks: TaskDefinition[] = [
  {
    name: NOTIFY_OVERDUE,
    label: "Rappels d'échéances dépassées",
    description:
      'Prévient chaque personne assignée d’une tâche, d’une action corrective ou d’une vulnérabilité dont l’échéance est dépassée (une fois par échéance).',
    scope: 'platform',
    schedule: { cron: '0 6 * * *', label: 'Tous les jours à 06:00 (UTC)' },
    retryLimit: 2,
    expireInSeconds: 3600,
    run: notifyOverdue,
  },
];
