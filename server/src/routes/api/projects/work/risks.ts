import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TenantDb } from '../../../../db/tenant-scope.ts';
import { FieldErrors, notFound } from '../../../../domain/errors.ts';
import { RISK_STATUSES, RISK_TREATMENTS } from '../../../../domain/project-vocabulary.ts';
import { RISK_LEVELS } from '../../../../domain/risk-scoring.ts';
import { presentPlan, presentRisk, RemediationPlanSchema, RiskSchema } from '../../../../presenters/project-work.ts';
import type { RiskValues } from '../../../../repositories/project-work.ts';
import { IdParams, ListQuery, replies, type Static, WriteBody as writeBody } from '../../../../schemas/common.ts';
import { bodyReader, choices, Field, MESSAGES, parseChoices, text, workKit } from './shared.ts';
import { parseQueryId } from '../../../../schemas/query.ts';

const RISKS = '/api/projects/risks/';

const M = {
  likelihoodBelowTarget: (n: number) =>
    `La vraisemblance ne peut pas être inférieure à la vraisemblance cible du plan de remédiation (${n}).`,
  impactBelowTarget: (n: number) =>
    `La gravité ne peut pas être inférieure à la gravité cible du plan de remédiation (${n}).`,
  assetUnknown: 'Actif introuvable.',
  threatUnknown: 'Menace introuvable.',
  vulnerabilityUnknown: 'Vulnérabilité introuvable.',
} as const;

const TREATMENTS = choices('Traitement', RISK_TREATMENTS);
const STATUSES = choices('Statut', RISK_STATUSES);
const LEVELS = choices('Niveau', RISK_LEVELS);

const RiskQuery = ListQuery({
  project: 'Identifiant du projet',
  status: `Statuts séparés par des virgules : ${RISK_STATUSES.join(', ')}`,
  level: `Niveaux résiduels séparés par des virgules : ${RISK_LEVELS.join(', ')}`,
  treatment: `Traitements séparés par des virgules : ${RISK_TREATMENTS.join(', ')}`,
});

const RiskBody = writeBody(RiskSchema, {
  project: Field.parent,
  title: Field.title,
  description: Field.text,
  scenario: Field.text,
  asset: Field.ref,
  threat: Field.ref,
  vulnerability: Field.ref,
  likelihood: Field.score('likelihood'),
  impact: Field.score('impact'),
  treatment: TREATMENTS.field,
  status: STATUSES.field,
  owner: Field.ref,
});

const readRisk = bodyReader('project', MESSAGES.projectRequired, (body: Static<typeof RiskBody>, r): RiskValues => ({
  scenario: text(body.scenario),
  assetId: body.asset,
  threatId: body.threat,
  vulnerabilityId: body.vulnerability,
  likelihood: r.score('likelihood', body.likelihood),
  impact: r.score('impact', body.impact),
  treatment: r.choice('treatment', body.treatment, TREATMENTS),
  status: r.choice('status', body.status, STATUSES),
  ownerId: body.owner,
}));

/** Risks of a project (docs/api-projects.md "Risks"), scored on the 4 × 4 matrix. */
const riskRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kit = workKit(app);
  const { repo } = kit;
  const tags = ['Projets — risques'];

  /** The asset, threat, finding and owner named must be the tenant's. */
  const checkReferences = (tx: TenantDb, values: RiskValues) =>
    kit.checkReferences([
      ['asset', values.assetId, (id) => repo.assetExists(tx, id), M.assetUnknown],
      ['threat', values.threatId, (id) => repo.threatExists(tx, id), M.threatUnknown],
      ['vulnerability', values.vulnerabilityId, (id) => repo.vulnerabilityExists(tx, id), M.vulnerabilityUnknown],
      ['owner', values.ownerId, (id) => repo.isTenantMember(tx, id), MESSAGES.userUnknown],
    ]);

  const loadRisk = kit.register({
    path: RISKS,
    tags,
    objectType: 'risk',
    reply: RiskSchema,
    present: presentRisk,
    query: RiskQuery,
    filters: (errors, q) => ({
      projectId: parseQueryId(errors, q, 'project'),
      statuses: parseChoices(errors, q, 'status', STATUSES),
      levels: parseChoices(errors, q, 'level', LEVELS, (v) => v.toLowerCase()),
      treatments: parseChoices(errors, q, 'treatment', TREATMENTS),
    }),
    page: (tx, readable, filters, _today, page) => repo.pageRisks(tx, readable, filters, page),
    find: (tx, id) => repo.findRisk(tx, id),
    body: RiskBody,
    read: readRisk,
    parent: ['project', (risk) => risk.projectId, MESSAGES.projectFixed],
    async create(request, tx, projectId, values) {
      await kit.requireNamed(request, tx, projectId, 'project', MESSAGES.projectUnknown);
      await checkReferences(tx, values);
      const id = await repo.createRisk(tx, projectId, {
        ...values,
        title: values.title!,
        likelihood: values.likelihood!,
        impact: values.impact!,
      });
      return (await repo.findRisk(tx, id))!;
    },
    async update(tx, current, values) {
      await checkReferences(tx, values);
      // Lowering the scores below the plan's targets would make the targets exceed the initial scores.
      const plan = current.planId !== null ? await repo.findPlan(tx, current.planId) : undefined;
      if (plan) {
        const errors = new FieldErrors();
        if ((values.likelihood ?? current.likelihood) < plan.targetLikelihood) {
          errors.add('likelihood', M.likelihoodBelowTarget(plan.targetLikelihood));
        }
        if ((values.impact ?? current.impact) < plan.targetImpact) {
          errors.add('impact', M.impactBelowTarget(plan.targetImpact));
        }
        errors.throwIfAny();
      }
      await repo.updateRisk(tx, current.id, values);
      await repo.refreshResidual(tx, current.id);
      return (await repo.findRisk(tx, current.id))!;
    },
    remove: (tx, risk) => repo.removeRisk(tx, risk.id),
  });

  app.get(
    `${RISKS}:id/remediation-plan/`,
    {
      ...kit.guard.read,
      schema: { tags, params: IdParams, response: replies.signedIn({ 200: RemediationPlanSchema }, 404) },
    },
    async (request) => {
      const id = Number(request.params.id);
      const plan = await request.tenantDb(async (tx) => {
        await loadRisk(request, tx, id, 'read');
        return repo.findPlanOfRisk(tx, id);
      });
      if (!plan) throw notFound();
      return presentPlan(plan);
    },
  );
};

export default riskRoutes;
