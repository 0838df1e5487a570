import type { TaskDefinition } from './types.ts';
import { cveTasks } from './cve-tasks.ts';
import { scanTasks } from './scan-tasks.ts';
import { auditTasks } from './audit-tasks.ts';
import { notificationTasks } from './notification-tasks.ts';
import { logTasks } from './log-tasks.ts';
import { backupTasks } from './backup-tasks.ts';

/** Every background task the product knows, by full name. */
export const TASKS: readonly TaskDefinition[] = [
  ...cveTasks,
  ...scanTasks,
  ...auditTasks,
  ...notificationTasks,
  ...logTasks,
  ...backupTasks,
];

export function findTask(name: string): TaskDefinition | undefined {
  return TASKS.find((t) => t.name === name);
}
