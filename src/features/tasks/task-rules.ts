import type { ScheduledTask, TaskStatus } from './tasks-api.ts';

export const TASK_STATUS_LABELS: Record<TaskStatus, string> = {
  PENDING: 'En attente',
  STARTED: 'En cours',
  SUCCESS: 'Réussie',
  FAILURE: 'Échec',
  REVOKED: 'Annulée',
};

export const TASK_STATUS_TONE: Record<TaskStatus, string> = {
  PENDING: 'pending',
  STARTED: 'running',
  SUCCESS: 'ok',
  FAILURE: 'failed',
  REVOKED: 'cancelled',
};

export function taskStatusLabel(status: string): string {
  return TASK_STATUS_LABELS[status as TaskStatus] ?? status;
}

export function taskStatusTone(status: string): string {
  return TASK_STATUS_TONE[status as TaskStatus] ?? '';
}

/** PENDING and STARTED tasks are still running: they can be cancelled and the page follows them. */
export function isRunning(status: string): boolean {
  return status === 'PENDING' || status === 'STARTED';
}

const INTEGER = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 });

/** 461.3 → '7 min 41 s'; 3725 → '1 h 2 min'; 12.4 → '12 s'. */
export function formatDuration(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${INTEGER.format(h)} h ${m} min` : `${INTEGER.format(h)} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/** The schedule as French words: the sample's sentence, or the server's label with its cron in UTC. */
export function scheduleLabel(schedule: ScheduledTask['schedule']): { label: string; cron?: string } {
  if (!schedule) return { label: '—' };
  if (typeof schedule === 'string') return { label: schedule };
  const label = schedule.label ?? (schedule.cron ? `cron ${schedule.cron}` : '—');
  return schedule.cron ? { label, cron: schedule.cron } : { label };
}
