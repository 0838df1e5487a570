import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import type { AuditInput } from '../../../plugins/app/audit.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { canReadPlatformTaskDetails, canRunPlatformTasks, canWrite } from '../../../policies/index.ts';
import {
  presentAvailable,
  presentLaunch,
  presentScheduled,
  presentTask,
  presentTaskOutline,
  TaskLaunchSchema,
  TaskSchema,
  toTaskRunView,
} from '../../../presenters/task.ts';
import { taskRunReads, type TaskRunRow } from '../../../repositories/task-runs.ts';
import { replies } from '../../../schemas/common.ts';
import {
  AvailableReply,
  CancelBody,
  isTaskId,
  OverviewReply,
  recentLimit,
  RecentQuery,
  RecentReply,
  RunBody,
  ScheduledReply,
  TaskParams,
} from '../../../schemas/tasks.ts';
import { cancelRun, knownTask, taskOfRun } from '../../../services/tasks.ts';
import type { TaskDefinition, TaskRunView } from '../../../tasks/types.ts';

const BASE = '/api/celery/tasks/';

/**
 * The task manager (the spec's celery endpoints): runs are read inside the current tenant (row-level security
 * shows platform runs and the tenant's own), launched and cancelled through app.jobs.
 */
const celeryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Tâches'];
  /**
   * A run as the caller may see it: a platform run's details are staff's only. A wall screen (request.display, no
   * person) reads the task lists too (docs/displays.md): it sees what a tenant member sees.
   */
  const shown = (request: FastifyRequest, run: TaskRunView) =>
    run.tenant_id === null && (request.display !== null || !canReadPlatformTaskDetails(signedIn(request).actor))
      ? presentTaskOutline(presentTask(run))
      : presentTask(run);
  const view = (request: FastifyRequest, row: TaskRunRow) =>
    shown(request, toTaskRunView(row, app.jobs.find(row.taskName)));

  /** 403 (and its audit line) unless the caller may launch or cancel this task in the current tenant. */
  const authorize = async (request: FastifyRequest, task: Pick<TaskDefinition, 'scope' | 'label'>, verb: string) => {
    const auth = signedIn(request);
    const allowed =
      task.scope === 'platform' ? canRunPlatformTasks(auth.actor) : auth.tenant !== null && canWrite(auth.actor);
    await app.authorize(request, allowed, `${verb} de la tâche ${task.label}`);
  };

  /** The run, if the current tenant may see it. */
  const loadVisible = async (request: FastifyRequest, id: string): Promise<TaskRunRow> => {
    const row = isTaskId(id) ? await request.tenantDb((tx) => taskRunReads.visible(tx, id)) : undefined;
    if (!row) throw new ApiError(404, 'not_found', 'Tâche introuvable.');
    return row;
  };

  /** A launch or a cancellation, in the audit log. */
  const audit = (request: FastifyRequest, entry: Pick<AuditInput, 'description' | 'tenantId' | 'extra'>) =>
    app.audit.record(request, { eventType: 'configuration_change', ...entry });

  /** Route options: any signed-in caller (what each may launch or cancel is asked of the task's scope). */
  const signedInRoute = <S extends object>(schema: S) => ({
    preValidation: [app.authenticate],
    schema: { tags, ...schema },
  });

  const recent = async (request: FastifyRequest, limit: number) =>
    (await request.tenantDb((tx) => taskRunReads.recent(tx, limit))).map((row) => view(request, row));

  app.get(BASE, signedInRoute({ response: replies.signedIn({ 200: OverviewReply }) }), async (request) => ({
    recent_tasks: await recent(request, recentLimit()),
    scheduled_tasks: presentScheduled(app.jobs.tasks),
  }));

  app.get(
    `${BASE}recent/`,
    signedInRoute({ querystring: RecentQuery, response: replies.signedIn({ 200: RecentReply }, 400) }),
    async (request) => ({ recent_tasks: await recent(request, recentLimit(request.query.limit)) }),
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
      const task = knownTask(app.jobs, taskName);
      await authorize(request, task, 'lancement');
      const tenantId = task.scope === 'tenant' ? currentTenant(request) : null;
      const requestedBy = signedIn(request).user.id;
      const run = await app.jobs.launch(taskName, args, { tenantId, requestedBy, trigger: 'user' });
      await audit(request, {
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
    async (request) => view(request, await loadVisible(request, request.params.id)),
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
      await authorize(request, taskOfRun(app.jobs, row), 'annulation');
      const reason = request.body?.reason?.trim() || undefined;
      const revoked = await cancelRun(app.jobs, row, { by: signedIn(request).user.username, reason });
      await audit(request, {
        description: `Tâche annulée : ${revoked.name}`,
        tenantId: row.tenantId,
        extra: { action: 'task_cancelled', task_id: row.id, task_name: row.taskName, reason: reason ?? null },
      });
      return shown(request, revoked);
    },
  );
};

export default celeryRoutes;
