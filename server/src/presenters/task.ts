import { TASK_STATUSES, type TaskMeta } from '../db/schema.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
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
    // Every spec §3 key, even on rows written before a key existed.
    meta: { ...initialMeta(), ...row.meta } satisfies TaskMeta,
    created_at: row.createdAt.toISOString(),
    tenant_id: row.tenantId,
  };
}

const DateTime = Type.String({ format: 'date-time' });

/** spec §3 task meta: these keys always, plus whatever the task records (scan_id, summary…). */
export const TaskMetaSchema = Type.Object(
  {
    duration: Nullable(Type.Number({ description: 'Secondes' })),
    new_cves: Type.Integer(),
    updated_cves: Type.Integer(),
    error: Nullable(Type.String()),
    attempts: Type.Integer(),
    start_time: Nullable(Type.String()),
    progress: Type.Number({ minimum: 0, maximum: 100 }),
    revoked_by: Nullable(Type.String()),
    reason: Nullable(Type.String()),
  },
  { additionalProperties: true },
);

/** spec §3 Background task on the wire. */
export const TaskSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ description: 'Libellé français de la tâche' }),
    full_name: Type.String(),
    status: Choice(TASK_STATUSES),
    date_done: Nullable(DateTime),
    result: Nullable(Type.String()),
    meta: TaskMetaSchema,
    created_at: DateTime,
  },
  { title: 'Task' },
);
export type Task = Static<typeof TaskSchema>;

/** spec §3 Background task (recent_tasks), plus created_at; the tenant stays inside the server. */
export function presentTask(view: TaskRunView): Task {
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

/** A platform run as those without its details see it: that it ran (name, status, dates, progress), no more. */
export function presentTaskOutline(task: Task): Task {
  return { ...task, result: null, meta: { ...initialMeta(), progress: task.meta.progress } };
}

export const LAUNCH_MESSAGE = 'Tâche lancée avec succès';

export const TaskLaunchSchema = Type.Object(
  {
    task_id: Type.String({ format: 'uuid' }),
    task_name: Type.String(),
    status: Choice(TASK_STATUSES),
    message: Type.String(),
    created_at: DateTime,
  },
  { title: 'TaskLaunch' },
);

/** spec §3 Task launch result. */
export function presentLaunch(view: TaskRunView): Static<typeof TaskLaunchSchema> {
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
 * spec §3 Scheduled task. `schedule` is the French label (a string, as in the sample data the UI also renders), the
 * machine-readable cron and its time zone come alongside; `id` is the 1-based position among scheduled tasks.
 */
export const ScheduledTaskSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    name: Type.String(),
    task: Type.String(),
    schedule: Type.String({ description: 'Libellé français de la planification' }),
    cron: Type.String(),
    timezone: Type.String(),
  },
  { title: 'ScheduledTask' },
);

export function presentScheduled(definitions: readonly TaskDefinition[]): Static<typeof ScheduledTaskSchema>[] {
  return definitions.filter(isScheduled).map((d, i) => ({
    id: i + 1,
    name: d.label,
    task: d.name,
    schedule: d.schedule.label,
    cron: d.schedule.cron,
    timezone: 'UTC',
  }));
}

export const AvailableTaskSchema = Type.Object(
  {
    task_name: Type.String(),
    name: Type.String(),
    description: Type.String(),
    scope: Choice(['platform', 'tenant'] as const),
    schedule: Nullable(Type.String()),
  },
  { title: 'AvailableTask' },
);

/** GET /api/celery/tasks/available/ entries. */
export function presentAvailable(d: TaskDefinition): Static<typeof AvailableTaskSchema> {
  return {
    task_name: d.name,
    name: d.label,
    description: d.description,
    scope: d.scope,
    schedule: d.schedule ? d.schedule.label : null,
  };
}
