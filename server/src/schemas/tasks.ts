/** The task manager (/api/celery/tasks/): its querystring, bodies, params and replies. */
import { AvailableTaskSchema, ScheduledTaskSchema, TaskSchema } from '../presenters/task.ts';
import { AnyObject, Nullable, Type } from './common.ts';

const DEFAULT_RECENT = 50;
const MAX_RECENT = 500;

export const RecentQuery = Type.Object(
  { limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description: `Au plus ${MAX_RECENT}` })) },
  { additionalProperties: true },
);
export const RunBody = Type.Object(
  { task_name: Type.String({ minLength: 1, maxLength: 200 }), args: Type.Optional(AnyObject) },
  { additionalProperties: false },
);
// The reason is optional, and so is the whole body: a bare POST cancels too.
export const CancelBody = Nullable(
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
);
// Not IdParams: a task id is a UUID, and anything else is « Tâche introuvable. ».
export const TaskParams = Type.Object({ id: Type.String({ description: 'UUID de la tâche' }) });

export const RecentReply = Type.Object({ recent_tasks: Type.Array(TaskSchema) });
export const ScheduledReply = Type.Object({ scheduled_tasks: Type.Array(ScheduledTaskSchema) });
export const OverviewReply = Type.Object({ ...RecentReply.properties, ...ScheduledReply.properties });
export const AvailableReply = Type.Object({ tasks: Type.Array(AvailableTaskSchema) });

/** How many recent runs to list: 50 unless asked, between 1 and 500 (the schema checked the digits). */
export const recentLimit = (raw?: string) =>
  raw === undefined ? DEFAULT_RECENT : Math.min(MAX_RECENT, Math.max(1, Number(raw)));

/** A task id is a UUID: anything else names no run. */
export const isTaskId = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
