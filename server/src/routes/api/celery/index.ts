import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { canRunPlatformTasks, canWrite } from '../../../policies/index.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import {
  AvailableTaskSchema,
  presentAvailable,
  presentLaunch,
  presentScheduled,
  presentTask,
  ScheduledTaskSchema,
  TaskLaunchSchema,
  TaskSchema,
  toTaskRunView,
} from '../../../presenters/task.ts';
import { taskRunReads, type TaskRunRow } from '../../../repositories/task-runs.ts';
import { AnyObject, Nullable, replies, Type } from '../../../schemas/common.ts';
import { FINAL_TASK_STATUSES, type TaskDefinition } from '../../../tasks/types.ts';

const BASE = '/api/celery/tasks/';
const DEFAULT_RECENT = 50;
const MAX_RECENT = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const RecentQuery = Type.Object(
  { limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$', description: `Au plus ${MAX_RECENT}` })) },
  { additionalProperties: true },
);
const RunBody = Type.Object(
  { task_name: Type.String({ minLength: 1, maxLength: 200 }), args: Type.Optional(AnyObject) },
  { additionalProperties: false },
);
// The reason is optional, and so is the whole body: a bare POST cancels too.
const CancelBody = Nullable(
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
);
// Not IdParams: a task id is a UUID, and anything else is « Tâche introuvable. ».
const TaskParams = Type.Object({ id: Type.String({ description: 'UUID de la tâche' }) });

const RecentReply = Type.Object({ recent_tasks: Type.Array(TaskSchema) });
const ScheduledReply = Type.Object({ scheduled_tasks: Type.Array(ScheduledTaskSchema) });
const OverviewReply = Type.Object({ ...RecentReply.properties, ...ScheduledReply.properties });
const AvailableReply = Type.Object({ tasks: Type.Array(AvailableTaskSchema) });

const notFound = () => new ApiError(404, 'not_found', 'Tâche introuvable.');
const alreadyDone = () => new ApiError(409, 'task_finished', 'Cette tâche est déjà terminée.');

/**
 * The task manager (the spec's celery endpoints): runs are read inside the current tenant (row-level security
 * shows platform runs and the tenant's own), launched and cancelled through app.jobs.
 */
const celeryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Tâches'];
  const view = (row: TaskRunRow) => presentTask(toTaskRunView(row, app.jobs.find(row.taskName)));
  const recent = (request: FastifyRequest, limit: number) =>
    request.tenantDb((tx) => taskRunReads.recent(tx, limit)).then((rows) => rows.map(view));

  /** 403 (and its audit line) unless the caller may launch or cancel this task in the current tenant. */
  const authorize = async (request: FastifyRequest, task: Pick<TaskDefinition, 'scope' | 'label'>, verb: string) => {
    const auth = signedIn(request);
    const allowed =
      task.scope === 'platform' ? canRunPlatformTasks(auth.actor) : auth.tenant !== null && canWrite(auth.actor);
    await app.authorize(request, allowed, `${verb} de la tâche ${task.label}`);
  };

  /** The run, if the current tenant may see it. */
  const loadVisible = async (request: FastifyRequest, id: string): Promise<TaskRunRow> => {
    const row = UUID.test(id) ? await request.tenantDb((tx) => taskRunReads.visible(tx, id)) : undefined;
    if (!row) throw notFound();
    return row;
  };

  /** Route options: any signed-in caller (what each may launch or cancel is asked of the task's scope). */
  const signedInRoute = <S extends object>(schema: S) => ({
    preValidation: [app.authenticate],
    schema: { tags, ...schema },
  });

  app.get(BASE, signedInRoute({ response: replies.signedIn({ 200: OverviewReply }) }), async (request) => ({
    recent_tasks: await recent(request, DEFAULT_RECENT),
    scheduled_tasks: presentScheduled(app.jobs.tasks),
  }));

  app.get(
    `${BASE}recent/`,
    signedInRoute({ querystring: RecentQuery, response: replies.signedIn({ 200: RecentReply }, 400) }),
    async (request) => {
      const asked = request.query.limit === undefined ? DEFAULT_RECENT : Number(request.query.limit);
      return { recent_tasks: await recent(request, Math.min(MAX_RECENT, Math.max(1, asked))) };
    },
  );

  app.get(`${BASE}scheduled/`, signedInRoute({ response: replies.signedIn({ 200: ScheduledReply }) }), async () => ({
    scheduled_tasks: presentScheduled(app.jobs.tasks),
  }));

  app.get(`${BASE}available/`, signedInRoute({ response: replies.signedIn({ 200: AvailableReply }) }), async () => ({
    tasks: app.jobs.tasks.map(presentAvailable),
  }));

  app.post(
    `${BASE}run/`,
    signedInRoute({ body: RunBody, response: replies.signedIn({ 202: TaskLaunchSchema }, 400) }),
    async (request, reply) => {
      const { task_name: taskName, args = {} } = request.body;
      const task = app.jobs.find(taskName);
      if (!task) {
        const message = `Tâche inconnue : ${taskName}`;
        throw new ApiError(400, 'unknown_task', message, { fields: { task_name: [message] } });
      }
      await authorize(request, task, 'lancement');
      const auth = signedIn(request);
      const tenantId = task.scope === 'tenant' ? auth.tenant!.id : null;
      const run = await app.jobs.launch(taskName, args, { tenantId, requestedBy: auth.user.id, trigger: 'user' });
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: `Tâche lancée : ${task.label}`,
        tenantId,
        extra: { action: 'task_launched', task_id: run.id, task_name: taskName },
      });
      return reply.code(202).send(presentLaunch(run));
    },
  );

  app.get(
    `${BASE}:id/`,
    signedInRoute({ params: TaskParams, response: replies.signedIn({ 200: TaskSchema }, 404) }),
    async (request) => view(await loadVisible(request, request.params.id)),
  );

  app.post(
    `${BASE}:id/cancel/`,
    signedInRoute({
      params: TaskParams,
      body: CancelBody,
      response: replies.signedIn({ 200: TaskSchema }, 400, 404, 409),
    }),
    async (request) => {
      const row = await loadVisible(request, request.params.id);
      // A run of a task this build no longer knows is a platform matter.
      const task = app.jobs.find(row.taskName) ?? { scope: row.tenantId ? 'tenant' : 'platform', label: row.taskName };
      await authorize(request, task, 'annulation');
      if (FINAL_TASK_STATUSES.includes(row.status)) throw alreadyDone();
      const reason = request.body?.reason?.trim() || undefined;
      const revoked = await app.jobs.cancel(row.id, { by: signedIn(request).user.username, reason });
      // Finished between the read and the revoke.
      if (!revoked) throw alreadyDone();
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: `Tâche annulée : ${revoked.name}`,
        tenantId: row.tenantId,
        extra: { action: 'task_cancelled', task_id: row.id, task_name: row.taskName, reason: reason ?? null },
      });
      return presentTask(revoked);
    },
  );
};

export default celeryRoutes;
