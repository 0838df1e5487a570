import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TenantDb } from '../../../../db/tenant-scope.ts';
import { completedAt, todayUtc } from '../../../../domain/risk-scoring.ts';
import { CorrectiveActionSchema, presentAction } from '../../../../presenters/project-work.ts';
import type { ActionValues, PlanRow } from '../../../../repositories/project-work.ts';
import { IdParams, ListQuery, replies, type Static, Type, WriteBody as writeBody } from '../../../../schemas/common.ts';
import { PLANS } from './plans.ts';
import { bodyReader, Field, fieldError, gatedLoader, workKit } from './shared.ts';
import { parseBoolean, parseQueryId } from '../../../../schemas/query.ts';

const M = {
  planRequired: 'Le plan de remédiation est requis.',
  planUnknown: 'Plan de remédiation introuvable.',
  planFixed: 'Le plan de remédiation d’une action ne peut pas être changé.',
} as const;

const ActionBody = writeBody(CorrectiveActionSchema, {
  remediation_plan: Field.parent,
  title: Field.title,
  description: Field.text,
  assignee: Field.ref,
  due_date: Field.date,
  progress: Field.progress,
});

const readAction = bodyReader('remediation_plan', M.planRequired, (body: Static<typeof ActionBody>): ActionValues => ({
  assigneeId: body.assignee,
  dueDate: body.due_date,
  progress: body.progress,
}));

/**
 * Corrective actions of a remediation plan (docs/api-projects.md): their status follows their progress, and their
 * progress moves the plan's and the risk's residual scores.
 */
const actionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kit = workKit(app);
  const { repo } = kit;
  const tags = ['Projets — actions correctives'];

  /** Inserts an action in `plan`; the plan's progress and the risk's residual follow. */
  const insert = async (tx: TenantDb, plan: PlanRow, values: ActionValues) => {
    await kit.member('assignee', tx, values.assigneeId);
    const progress = values.progress ?? 0;
    const id = await repo.createAction(tx, plan.id, {
      ...values,
      title: values.title!,
      progress,
      completedAt: completedAt(progress, null, new Date()),
    });
    await repo.refreshResidual(tx, plan.riskId);
    return (await repo.findAction(tx, id))!;
  };

  kit.register({
    path: '/api/projects/corrective-actions/',
    tags,
    objectType: 'corrective_action',
    reply: CorrectiveActionSchema,
    present: presentAction,
    query: ListQuery({
      project: 'Identifiant du projet',
      plan: 'Identifiant du plan de remédiation',
      overdue: 'En retard : true ou false',
    }),
    filters: (errors, q) => ({
      projectId: parseQueryId(errors, q, 'project'),
      planId: parseQueryId(errors, q, 'plan'),
      overdue: parseBoolean(errors, q, 'overdue'),
    }),
    page: (tx, readable, filters, today, page) => repo.pageActions(tx, readable, filters, today, page),
    find: (tx, id) => repo.findAction(tx, id),
    body: ActionBody,
    read: readAction,
    parent: ['remediation_plan', (action) => action.planId, M.planFixed],
    assigned: 'action_assigned',
    async create(request, tx, planId, values) {
      const plan = await repo.findPlan(tx, planId);
      if (!plan) throw fieldError('remediation_plan', M.planUnknown);
      await kit.requireNamed(request, tx, plan.projectId, 'remediation_plan', M.planUnknown);
      return insert(tx, plan, values);
    },
    /** A progress change moves completed_at, the plan's progress and the risk's residual. */
    async update(tx, current, values) {
      await kit.member('assignee', tx, values.assigneeId);
      const changes = { ...values };
      if (values.progress !== undefined) {
        changes.completedAt = completedAt(values.progress, current.completedAt, new Date());
      }
      await repo.updateAction(tx, current.id, changes);
      if (values.progress !== undefined && values.progress !== current.progress) {
        await repo.refreshResidual(tx, current.riskId);
      }
      return (await repo.findAction(tx, current.id))!;
    },
    async remove(tx, action) {
      if (!(await repo.removeAction(tx, action.id))) return false;
      await repo.refreshResidual(tx, action.riskId);
      return true;
    },
  });

  // A plan's own actions: /remediation-plans/{id}/actions/.
  const loadPlan = gatedLoader(kit.gate, (tx, id) => repo.findPlan(tx, id));
  const OF_PLAN = `${PLANS}:id/actions/`;

  app.get(
    OF_PLAN,
    {
      ...kit.guard.read,
      schema: { tags, params: IdParams, response: replies.signedIn({ 200: Type.Array(CorrectiveActionSchema) }, 404) },
    },
    async (request) => {
      const id = Number(request.params.id);
      const today = todayUtc();
      const rows = await request.tenantDb(async (tx) => {
        await loadPlan(request, tx, id, 'read');
        return repo.actionsOfPlan(tx, id);
      });
      return rows.map((a) => presentAction(a, today));
    },
  );

  app.post(
    OF_PLAN,
    {
      ...kit.guard.write,
      schema: {
        tags,
        params: IdParams,
        body: ActionBody,
        response: replies.signedIn({ 201: CorrectiveActionSchema }, 400, 404),
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const { parent, values } = readAction(request.body, true);
      if (parent !== undefined && parent !== id) throw fieldError('remediation_plan', M.planFixed);
      const action = await kit.write(request, async (tx, note, assign) => {
        const row = await insert(tx, await loadPlan(request, tx, id, 'edit'), values);
        await note('corrective_action', 'created', row);
        await assign('action_assigned', row);
        return row;
      });
      return reply.code(201).send(presentAction(action, todayUtc()));
    },
  );
};

export default actionRoutes;
