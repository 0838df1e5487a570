import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { canRunPlatformTasks, canWrite, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import {
  presentAvailable,
  presentLaunch,
  presentScheduled,
  presentTask,
  toTaskRunView,
} from '../../../presenters/task.ts';
import { taskRunReads, type TaskRunRow } from '../../../repositories/task-runs.ts';
import { FINAL_TASK_STATUSES, type TaskDefinition } from '../../../tasks/types.ts';

const BASE = '/api/celery/tasks/';
const DEFAULT_RECENT = 50;
const MAX_RECENT = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// No additionalProperties:false on queries: clients add cache-busting parameters to GETs.
const recentQuery = {
  type: 'object',
  properties: { limit: { type: 'string', pattern: '^[0-9]{1,6}$' } },
} as const;

const runBody = {
  type: 'object',
  required: ['task_name'],
  additionalProperties: false,
  properties: {
    task_name: { type: 'string', minLength: 1, maxLength: 200 },
    args: { type: 'object' },
  },
} as const;

const cancelBody = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: { type: 'string', maxLength: 500 } },
} as const;

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

interface RunBody {
  task_name: string;
  args?: Record<string, unknown>;
}

const notFound = () => new ApiError(404, 'not_found', 'Tâche introuvable.');
const alreadyDone = () => new ApiError(409, 'task_finished', 'Cette tâche est déjà terminée.');

/**
 * The task manager (the spec's celery endpoints): runs are read inside the current tenant (row-level security
 * shows platform runs and the tenant's own), launched and cancelled through app.jobs.
 */
const celeryRoutes: FastifyPluginAsync = async (app) => {
  const view = (row: TaskRunRow) => presentTask(toTaskRunView(row, app.jobs.find(row.taskName)));
  const recent = (request: FastifyRequest, limit: number) =>
    request.tenantDb((tx) => taskRunReads.recent(tx, limit)).then((rows) => rows.map(view));

  /** 403 (and its audit line) unless the caller may launch or cancel this task in the current tenant. */
  const authorize = async (request: FastifyRequest, task: Pick<TaskDefinition, 'scope' | 'label'>, verb: string) => {
    const actor = request.auth!.actor;
    const allowed =
      task.scope === 'platform' ? canRunPlatformTasks(actor) : request.auth!.tenant !== null && canWrite(actor);
    if (allowed) return;
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: `Accès refusé : ${verb} de la tâche ${task.label}`,
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  const guarded = { preValidation: [app.authenticate] };

  app.get(BASE, guarded, async (request) => ({
    recent_tasks: await recent(request, DEFAULT_RECENT),
    scheduled_tasks: presentScheduled(app.jobs.tasks),
  }));

  app.get<{ Querystring: { limit?: string } }>(
    `${BASE}recent/`,
    { ...guarded, schema: { querystring: recentQuery } },
    async (request) => {
      const asked = request.query.limit === undefined ? DEFAULT_RECENT : Number(request.query.limit);
      return { recent_tasks: await recent(request, Math.min(MAX_RECENT, Math.max(1, asked))) };
    },
  );

  app.get(`${BASE}scheduled/`, guarded, async () => ({ scheduled_tasks: presentScheduled(app.jobs.tasks) }));

  app.get(`${BASE}available/`, guarded, async () => ({ tasks: app.jobs.tasks.map(presentAvailable) }));

  app.post<{ Body: RunBody }>(`${BASE}run/`, { ...guarded, schema: { body: runBody } }, async (request, reply) => {
    const { task_name: taskName, args = {} } = request.body;
    const task = app.jobs.find(taskName);
    if (!task) {
      throw new ApiError(400, 'unknown_task', `Tâche inconnue : ${taskName}`, {
        fields: { task_name: [`Tâche inconnue : ${taskName}`] },
      });
    }
    await authorize(request, task, 'lancement');
    const auth = request.auth!;
    const tenantId = task.scope === 'tenant' ? auth.tenant!.id : null;
    const run = await app.jobs.launch(taskName, args, { tenantId, requestedBy: auth.user.id, trigger: 'user' });
    await app.audit.record(request, {
      eventType: 'configuration_change',
      description: `Tâche lancée : ${task.label}`,
      tenantId,
      extra: { action: 'task_launched', task_id: run.id, task_name: taskName },
    });
    return reply.code(202).send(presentLaunch(run));
  });

  /** The run, if the current tenant may see it. */
  const loadVisible = async (request: FastifyRequest, id: string): Promise<TaskRunRow> => {
    const row = UUID.test(id) ? await request.tenantDb((tx) => taskRunReads.visible(tx, id)) : undefined;
    if (!row) throw notFound();
    return row;
  };

  app.get<{ Params: { id: string } }>(`${BASE}:id/`, { ...guarded, schema: { params: idParams } }, async (request) =>
    view(await loadVisible(request, request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } }>(
    `${BASE}:id/cancel/`,
    {
      // The reason is optional, and so is the whole body: a bare POST cancels too.
      preValidation: [
        app.authenticate,
        async (request: FastifyRequest) => {
          request.body ??= {};
        },
      ],
      schema: { params: idParams, body: cancelBody },
    },
    async (request) => {
      const row = await loadVisible(request, request.params.id);
      // A run of a task this build no longer knows is a platform matter.
      const task = app.jobs.find(row.taskName) ?? { scope: row.tenantId ? 'tenant' : 'platform', label: row.taskName };
      await authorize(request, task, 'annulation');
      if (FINAL_TASK_STATUSES.includes(row.status)) throw alreadyDone();
      const reason = request.body.reason?.trim() || undefined;
      const revoked = await app.jobs.cancel(row.id, { by: request.auth!.user.username, reason });
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
