/** The task manager's checks on the job queue: a known task, a run's task, a cancellation. */
import { ApiError } from '../domain/errors.ts';
import type { TaskRunRow } from '../repositories/task-runs.ts';
import { FINAL_TASK_STATUSES, type JobQueue, type TaskDefinition, type TaskRunView } from '../tasks/types.ts';

const alreadyDone = () => new ApiError(409, 'task_finished', 'Cette tâche est déjà terminée.');

/** The task this build knows by `name`; 400 on task_name otherwise. */
export function knownTask(jobs: JobQueue, name: string): TaskDefinition {
  const task = jobs.find(name);
  if (task) return task;
  const message = `Tâche inconnue : ${name}`;
  throw new ApiError(400, 'unknown_task', message, { fields: { task_name: [message] } });
}

/** A run's task; a run of a task this build no longer knows is a platform matter. */
export function taskOfRun(jobs: JobQueue, row: TaskRunRow): Pick<TaskDefinition, 'scope' | 'label'> {
  return jobs.find(row.taskName) ?? { scope: row.tenantId ? 'tenant' : 'platform', label: row.taskName };
}

/** Revokes a run still going; 409 when it has finished, before the call or during it. */
export async function cancelRun(
  jobs: JobQueue,
  row: TaskRunRow,
  cancel: { by: string; reason: string | undefined },
): Promise<TaskRunView> {
  if (FINAL_TASK_STATUSES.includes(row.status)) throw alreadyDone();
  const revoked = await jobs.cancel(row.id, cancel);
  if (!revoked) throw alreadyDone();
  return revoked;
}
