import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, FieldErrors } from '../../../../domain/errors.ts';
import { PLAN_STATUSES } from '../../../../domain/project-vocabulary.ts';
import { presentPlan, RemediationPlanSchema } from '../../../../presenters/project-work.ts';
import type { PlanValues } from '../../../../repositories/project-work.ts';
import { uniqueViolation } from '../../../../repositories/tenant-users.ts';
import { ListQuery, type Static, WriteBody as writeBody } from '../../../../schemas/common.ts';
import { bodyReader, choices, Field, fieldError, workKit } from './shared.ts';
import { parseQueryId } from '../../../../schemas/query.ts';

export const PLANS = '/api/projects/remediation-plans/';

const M = {
  targetAboveLikelihood: (n: number) =>
    `La vraisemblance cible ne peut pas dépasser la vraisemblance initiale du risque (${n}).`,
  targetAboveImpact: (n: number) => `La gravité cible ne peut pas dépasser la gravité initiale du risque (${n}).`,
  riskRequired: 'Le risque est requis.',
  riskUnknown: 'Risque introuvable.',
  riskFixed: 'Le risque d’un plan de remédiation ne peut pas être changé.',
  planExists: 'Ce risque a déjà un plan de remédiation.',
} as const;

const STATUSES = choices('Statut', PLAN_STATUSES);

const PlanBody = writeBody(RemediationPlanSchema, {
  risk: Field.parent,
  title: Field.title,
  description: Field.text,
  status: STATUSES.field,
  target_likelihood: Field.score('target_likelihood'),
  target_impact: Field.score('target_impact'),
  owner: Field.ref,
  due_date: Field.date,
});

const readPlan = bodyReader('risk', M.riskRequired, (body: Static<typeof PlanBody>, r): PlanValues => ({
  status: r.choice('status', body.status, STATUSES),
  targetLikelihood: r.score('target_likelihood', body.target_likelihood),
  targetImpact: r.score('target_impact', body.target_impact),
  ownerId: body.owner,
  dueDate: body.due_date,
}));

/** A plan's targets never exceed its risk's initial scores. */
function checkTargets(risk: { likelihood: number; impact: number }, likelihood: number, impact: number) {
  const errors = new FieldErrors();
  if (likelihood > risk.likelihood) errors.add('target_likelihood', M.targetAboveLikelihood(risk.likelihood));
  if (impact > risk.impact) errors.add('target_impact', M.targetAboveImpact(risk.impact));
  errors.throwIfAny();
}

const planExists = () => new ApiError(409, 'duplicate', M.planExists, { fields: { risk: [M.planExists] } });

/**
 * Remediation plans (docs/api-projects.md "Remediation plans and corrective actions"): one per risk, whose targets
 * and actions' progress give the risk its residual scores.
 */
const planRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kit = workKit(app);
  const { repo } = kit;

  kit.register({
    path: PLANS,
    tags: ['Projets — plans de remédiation'],
    objectType: 'remediation_plan',
    reply: RemediationPlanSchema,
    present: presentPlan,
    query: ListQuery({ project: 'Identifiant du projet', risk: 'Identifiant du risque' }),
    filters: (errors, q) => ({
      projectId: parseQueryId(errors, q, 'project'),
      riskId: parseQueryId(errors, q, 'risk'),
    }),
    page: (tx, readable, filters, _today, page) => repo.pagePlans(tx, readable, filters, page),
    find: (tx, id) => repo.findPlan(tx, id),
    body: PlanBody,
    read: readPlan,
    parent: ['risk', (plan) => plan.riskId, M.riskFixed],
    createErrors: [409],
    async create(request, tx, riskId, values) {
      const risk = await repo.findRisk(tx, riskId);
      if (!risk) throw fieldError('risk', M.riskUnknown);
      await kit.requireNamed(request, tx, risk.projectId, 'risk', M.riskUnknown);
      if (risk.planId !== null) throw planExists();
      checkTargets(risk, values.targetLikelihood!, values.targetImpact!);
      await kit.member('owner', tx, values.ownerId);
      const id = await repo
        .createPlan(tx, risk.id, {
          ...values,
          title: values.title!,
          targetLikelihood: values.targetLikelihood!,
          targetImpact: values.targetImpact!,
        })
        .catch((err: unknown) => {
          // Two plans created at once for the same risk: the unique key decides, the loser gets the same 409.
          throw uniqueViolation(err) !== undefined ? planExists() : err;
        });
      await repo.refreshResidual(tx, risk.id);
      return (await repo.findPlan(tx, id))!;
    },
    async update(tx, current, values) {
      const risk = { likelihood: current.riskLikelihood, impact: current.riskImpact };
      checkTargets(
        risk,
        values.targetLikelihood ?? current.targetLikelihood,
        values.targetImpact ?? current.targetImpact,
      );
      await kit.member('owner', tx, values.ownerId);
      await repo.updatePlan(tx, current.id, values);
      await repo.refreshResidual(tx, current.riskId);
      return (await repo.findPlan(tx, current.id))!;
    },
    async remove(tx, plan) {
      if (!(await repo.removePlan(tx, plan.id))) return false;
      // Without a plan the residual scores are the initial ones again.
      await repo.refreshResidual(tx, plan.riskId);
      return true;
    },
  });
};

export default planRoutes;
