import type { TaskMeta } from '../db/schema.ts';
import type { TaskRunRow } from '../repositories/task-runs.ts';
import { initialMeta } from '../repositories/task-runs.ts';
import type { TaskDefinition, TaskRunView } from '../tasks/types.ts';

/** The run as the queue reports it; `name` is the definition's French label (the task name when unknown). */
export function toTaskRunView(row: TaskRunRow, definition: TaskDefinition | undefined): TaskRunView {
  return {
    id: row.id,
    name: definition?.label ?? row.taskName,
    full_name: row.taskName,
    status: row.status,
    date_done: row.dateDone?.toISOString() ?? null,
    result: row.result,
    // Every §3 key, even on rows written before a key existed.
    meta: { ...initialMeta(), ...row.meta } satisfies TaskMeta,
    created_at: row.createdAt.toISOString(),
    tenant_id: row.tenantId,
  };
}

/** §3 Background task (recent_tasks), plus created_at; the tenant stays inside the server. */
export function presentTask(view: TaskRunView) {
  return {
    id: view.id,
    name: view.name,
    full_name: view.full_name,
    status: view.status,
    date_done: view.date_done,
    result: view.result,
    meta: view.meta,
    created_at: view.created_at,
  };
}

export const LAUNCH_MESSAGE = 'Tâche lancée avec succès';

/** §3 Task launch result. */
export function presentLaunch(view: TaskRunView) {
  return {
    task_id: view.id,
    task_name: view.full_name,
    status: view.status,
    message: LAUNCH_MESSAGE,
    created_at: view.created_at,
  };
}

/** Only platform tasks are scheduled: a tenant task needs a tenant, which a cron has not. */
export function isScheduled(
  d: TaskDefinition,
): d is TaskDefinition & { schedule: NonNullable<TaskDefinition['schedule']> } {
  return d.schedule !== undefined && d.scope === 'platform';
}

/**
 * §3 Scheduled task. `schedule` is the French label (a string, as in the sample data the UI also renders), the
 * machine-readable cron and its time zone come alongside; `id` is the 1-based position among scheduled tasks.
 */
export function presentScheduled(definitions: readonly TaskDefinition[]) {
  return definitions.filter(isScheduled).map((d, i) => ({
    id: i + 1,
    name: d.label,
    task: d.name,
    schedule: d.schedule.label,
    cron: d.schedule.cron,
    timezone: 'UTC',
  }));
}

/** GET /api/celery/tasks/available/ entries. */
export function presentAvailable(d: TaskDefinition) {
  return {
    task_name: d.name,
    name: d.label,
    description: d.description,
    scope: d.scope,
    schedule: d.schedule ? d.schedule.label : null,
  };
}
