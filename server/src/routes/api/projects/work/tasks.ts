import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  PROJECT_PRIORITIES,
  PROJECT_TASK_STATUSES,
  type ProjectTaskStatus,
} from '../../../../domain/project-vocabulary.ts';
import { completedAt, taskStatusFor } from '../../../../domain/risk-scoring.ts';
import { presentTask, ProjectTaskSchema } from '../../../../presenters/project-work.ts';
import type { TaskValues } from '../../../../repositories/project-work.ts';
import { ListQuery, type Static, WriteBody as writeBody } from '../../../../schemas/common.ts';
import { bodyReader, choices, Field, fieldError, MESSAGES, parseChoices, workKit } from './shared.ts';
import { parseBoolean, parseQueryId } from '../../../../schemas/query.ts';

const DONE_CONTRADICTION =
  'Statut et progression se contredisent : une tâche terminée (DONE) est à 100 %, et inversement.';
const STATUSES = choices('Statut', PROJECT_TASK_STATUSES);
const PRIORITIES = choices('Priorité', PROJECT_PRIORITIES);

const TaskBody = writeBody(ProjectTaskSchema, {
  project: Field.parent,
  title: Field.title,
  description: Field.text,
  status: STATUSES.field,
  priority: PRIORITIES.field,
  assignee: Field.ref,
  due_date: Field.date,
  progress: Field.progress,
});

const readTask = bodyReader('project', MESSAGES.projectRequired, (body: Static<typeof TaskBody>, r): TaskValues => ({
  status: r.choice('status', body.status, STATUSES),
  priority: r.choice('priority', body.priority, PRIORITIES),
  assigneeId: body.assignee,
  dueDate: body.due_date,
  progress: body.progress,
}));

type TaskState = { status: ProjectTaskStatus; progress: number; completedAt: Date | null };

/**
 * A task's status and progress after a write: an explicit DONE means 100 %, reopening a finished task without a
 * progress starts it again from 0, and otherwise the status follows the progress (taskStatusFor). An explicit
 * status that contradicts an explicit progress is refused.
 */
function taskState(current: TaskState, values: TaskValues): TaskState {
  const explicit = values.status;
  if (explicit === undefined && values.progress === undefined) {
    return { status: current.status, progress: current.progress, completedAt: current.completedAt };
  }
  const progress =
    values.progress ??
    (explicit === 'DONE' ? 100 : explicit !== undefined && current.progress === 100 ? 0 : current.progress);
  if (explicit !== undefined && (explicit === 'DONE') !== (progress === 100)) {
    throw fieldError('status', DONE_CONTRADICTION);
  }
  return {
    status: explicit ?? taskStatusFor(current.status, progress),
    progress,
    completedAt: completedAt(progress, current.completedAt, new Date()),
  };
}

/** A project's tasks (docs/api-projects.md "Tasks"): their status follows their progress unless set. */
const taskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kit = workKit(app);
  const { repo } = kit;

  kit.register({
    path: '/api/projects/tasks/',
    tags: ['Projets — tâches'],
    objectType: 'task',
    reply: ProjectTaskSchema,
    present: presentTask,
    query: ListQuery({
      project: 'Identifiant du projet',
      status: `Statuts séparés par des virgules : ${PROJECT_TASK_STATUSES.join(', ')}`,
      assignee: 'Identifiant de l’utilisateur assigné',
      overdue: 'En retard : true ou false',
    }),
    filters: (errors, q) => ({
      projectId: parseQueryId(errors, q, 'project'),
      statuses: parseChoices(errors, q, 'status', STATUSES),
      assigneeId: parseQueryId(errors, q, 'assignee'),
      overdue: parseBoolean(errors, q, 'overdue'),
    }),
    page: (tx, readable, filters, today, page) => repo.pageTasks(tx, readable, filters, today, page),
    find: (tx, id) => repo.findTask(tx, id),
    body: TaskBody,
    read: readTask,
    parent: ['project', (task) => task.projectId, MESSAGES.projectFixed],
    assigned: 'task_assigned',
    async create(request, tx, projectId, values) {
      const state = taskState({ status: 'TODO', progress: 0, completedAt: null }, values);
      await kit.requireNamed(request, tx, projectId, 'project', MESSAGES.projectUnknown);
      await kit.member('assignee', tx, values.assigneeId);
      return repo.createTask(tx, projectId, { ...values, ...state, title: values.title! });
    },
    async update(tx, current, values) {
      await kit.member('assignee', tx, values.assigneeId);
      return (await repo.updateTask(tx, current.id, { ...values, ...taskState(current, values) }))!;
    },
    remove: (tx, task) => repo.removeTask(tx, task.id),
  });
};

export default taskRoutes;
