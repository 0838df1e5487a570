import { apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';

export type TaskStatus = 'PENDING' | 'STARTED' | 'SUCCESS' | 'FAILURE' | 'REVOKED';

export interface TaskMeta {
  duration?: number | null;
  new_cves?: number | null;
  updated_cves?: number | null;
  error?: string | null;
  attempts?: number | null;
  start_time?: string | null;
  progress?: number | null;
  revoked_by?: string | null;
  reason?: string | null;
}

/** spec §3 background task (recent_tasks). */
export interface BackgroundTask {
  id: string;
  name: string;
  full_name: string;
  status: TaskStatus;
  date_done: string | null;
  result: string | null;
  meta: TaskMeta | null;
  created_at?: string | null;
}

/** spec §3 scheduled task; the server sends the schedule as {cron, label}, the spec §8 sample as a French sentence. */
export interface ScheduledTask {
  id: number | string;
  name: string;
  task: string;
  schedule: string | { cron?: string; label?: string } | null;
}

export interface AvailableTask {
  task_name: string;
  name: string;
  description?: string;
  /** 'platform' or 'tenant'. */
  scope?: string;
  schedule?: ScheduledTask['schedule'];
}

/** spec §3 task launch result. */
export interface LaunchResult {
  task_id: string | null;
  task_name: string;
  status: TaskStatus;
  message: string;
  created_at: string | null;
}

export interface TaskLists {
  recent_tasks: BackgroundTask[];
  scheduled_tasks: ScheduledTask[];
}

const BASE = '/celery/tasks/';

export async function fetchTasks(): Promise<{ data: TaskLists; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<Partial<TaskLists>>(BASE, { allowForbidden: true });
  return {
    data: { recent_tasks: data?.recent_tasks ?? [], scheduled_tasks: data?.scheduled_tasks ?? [] },
    origin,
  };
}

export async function fetchRecentTasks(limit = 50): Promise<{ data: BackgroundTask[]; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<{ recent_tasks?: BackgroundTask[] }>(`${BASE}recent/`, {
    query: { limit },
    allowForbidden: true,
  });
  return { data: data?.recent_tasks ?? [], origin };
}

/**
 * Launchable tasks. The spec §8 sample answers this path with the whole task lists (no `tasks`): the scheduled
 * tasks then stand in for the launch menu.
 */
export async function fetchAvailableTasks(): Promise<{ data: AvailableTask[]; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<{ tasks?: AvailableTask[] } & Partial<TaskLists>>(
    `${BASE}available/`,
    { allowForbidden: true },
  );
  const tasks =
    data?.tasks ??
    (data?.scheduled_tasks ?? []).map((s) => ({ task_name: s.task, name: s.name, schedule: s.schedule }));
  return { data: tasks, origin };
}

/** One run's own state (GET /celery/tasks/{id}/): how the page follows a task it launched until it ends. */
export function fetchTask(id: string): Promise<{ data: BackgroundTask; origin: DataOrigin }> {
  return apiRequestWithOrigin<BackgroundTask>(`${BASE}${encodeURIComponent(id)}/`, { allowForbidden: true });
}

export function launchTask(taskName: string): Promise<{ data: LaunchResult; origin: DataOrigin }> {
  return apiRequestWithOrigin<LaunchResult>(`${BASE}run/`, {
    method: 'POST',
    body: { task_name: taskName },
    allowForbidden: true,
  });
}

export function cancelTask(id: string, reason?: string): Promise<{ data: BackgroundTask; origin: DataOrigin }> {
  return apiRequestWithOrigin<BackgroundTask>(`${BASE}${encodeURIComponent(id)}/cancel/`, {
    method: 'POST',
    body: reason ? { reason } : {},
    allowForbidden: true,
  });
}
