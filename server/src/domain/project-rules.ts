/**
 * Pure rules of a project's life (docs/api-projects.md): the status changes a project may go through, and a
 * task's status and progress after a write.
 */
import { PROJECT_STATUS_TRANSITIONS } from '../../../contract/projects.ts';
import type { ProjectStatus, ProjectTaskStatus } from './project-vocabulary.ts';
import { completedAt, taskStatusFor } from './risk-scoring.ts';

/** Staying put is always allowed; a change only along the contract's transitions. */
export const canChangeStatus = (from: ProjectStatus, to: ProjectStatus) =>
  from === to || PROJECT_STATUS_TRANSITIONS[from].includes(to);

export interface TaskState {
  status: ProjectTaskStatus;
  progress: number;
  completedAt: Date | null;
}

/**
 * A task's status and progress after a write: an explicit DONE means 100 %, reopening a finished task without a
 * progress starts it again from 0, and otherwise the status follows the progress (taskStatusFor). Undefined when
 * an explicit status contradicts an explicit progress (DONE is 100 %, and the other way round).
 */
export function taskState(
  current: TaskState,
  sent: { status?: ProjectTaskStatus | undefined; progress?: number | undefined },
  now: Date,
): TaskState | undefined {
  const explicit = sent.status;
  if (explicit === undefined && sent.progress === undefined) {
    return { status: current.status, progress: current.progress, completedAt: current.completedAt };
  }
  const progress =
    sent.progress ??
    (explicit === 'DONE' ? 100 : explicit !== undefined && current.progress === 100 ? 0 : current.progress);
  if (explicit !== undefined && (explicit === 'DONE') !== (progress === 100)) return undefined;
  return {
    status: explicit ?? taskStatusFor(current.status, progress),
    progress,
    completedAt: completedAt(progress, current.completedAt, now),
  };
}
