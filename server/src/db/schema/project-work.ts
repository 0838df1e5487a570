import { sql } from 'drizzle-orm';
import { bigint, check, date, index, pgTable, smallint, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import type {
  PlanStatus,
  ProjectPriority,
  ProjectTaskStatus,
  RiskStatus,
  RiskTreatment,
} from '../../domain/project-vocabulary.ts';
import { assets } from './assets.ts';
import { threats } from './threats.ts';
import { vulnerabilities } from './vulnerabilities.ts';
import { assignedWork, bigId, cascadeTo, tenantRef, timestamps, titled, userRef } from './columns.ts';
import { inProject } from './project-keys.ts';

// The vocabulary is pure and lives in domain/ (the scoring rules read it too); re-exported with its tables.
export {
  PLAN_STATUSES,
  type PlanStatus,
  PROJECT_TASK_STATUSES,
  type ProjectTaskStatus,
  RISK_STATUSES,
  RISK_TREATMENTS,
  type RiskStatus,
  type RiskTreatment,
} from '../../domain/project-vocabulary.ts';

// A project's risk treatment (risks, remediation plans, corrective actions) and its tasks (docs/api-projects.md).

/**
 * A risk scored on a 4 × 4 matrix: vraisemblance (likelihood) × gravité (impact), each 1–4. The residual scores
 * are recomputed from the remediation plan's target as its corrective actions progress (docs/api-projects.md).
 */
export const risks = pgTable(
  'risks',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    ...titled(),
    /** Risk source / scenario wording (EBIOS RM "scénario de risque"). */
    scenario: text('scenario').notNull().default(''),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'set null' }),
    threatId: bigint('threat_id', { mode: 'number' }).references(() => threats.id, { onDelete: 'set null' }),
    vulnerabilityId: bigint('vulnerability_id', { mode: 'number' }).references(() => vulnerabilities.id, {
      onDelete: 'set null',
    }),
    likelihood: smallint('likelihood').notNull(),
    impact: smallint('impact').notNull(),
    residualLikelihood: smallint('residual_likelihood').notNull(),
    residualImpact: smallint('residual_impact').notNull(),
    treatment: text('treatment').$type<RiskTreatment>().notNull().default('REDUCE'),
    status: text('status').$type<RiskStatus>().notNull().default('IDENTIFIED'),
    ownerId: userRef('owner_id'),
    ...timestamps(),
  },
  (t) => [
    inProject(t, 'risks_project_fk'),
    uniqueIndex('risks_tenant_id_key').on(t.tenantId, t.id),
    index('risks_tenant_project_idx').on(t.tenantId, t.projectId),
    check(
      'risks_scores',
      sql`${t.likelihood} between 1 and 4 and ${t.impact} between 1 and 4
      and ${t.residualLikelihood} between 1 and 4 and ${t.residualImpact} between 1 and 4`,
    ),
  ],
);

/** One remediation plan per risk, with the residual scores it aims for. */
export const remediationPlans = pgTable(
  'remediation_plans',
  {
    id: bigId(),
    tenantId: tenantRef(),
    riskId: bigint('risk_id', { mode: 'number' }).notNull(),
    ...titled(),
    status: text('status').$type<PlanStatus>().notNull().default('DRAFT'),
    targetLikelihood: smallint('target_likelihood').notNull(),
    targetImpact: smallint('target_impact').notNull(),
    ownerId: userRef('owner_id'),
    dueDate: date('due_date'),
    ...timestamps(),
  },
  (t) => [
    cascadeTo('remediation_plans_risk_fk', [t.tenantId, t.riskId], risks),
    unique('remediation_plans_risk').on(t.tenantId, t.riskId),
    uniqueIndex('remediation_plans_tenant_id_key').on(t.tenantId, t.id),
    check(
      'remediation_plans_targets',
      sql`${t.targetLikelihood} between 1 and 4 and ${t.targetImpact} between 1 and 4`,
    ),
  ],
);

export const correctiveActions = pgTable(
  'corrective_actions',
  {
    id: bigId(),
    tenantId: tenantRef(),
    planId: bigint('plan_id', { mode: 'number' }).notNull(),
    ...titled(),
    ...assignedWork(),
    ...timestamps(),
  },
  (t) => [
    cascadeTo('corrective_actions_plan_fk', [t.tenantId, t.planId], remediationPlans),
    index('corrective_actions_tenant_plan_idx').on(t.tenantId, t.planId),
    check('corrective_actions_progress', sql`${t.progress} between 0 and 100`),
  ],
);

export const projectTasks = pgTable(
  'project_tasks',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    ...titled(),
    status: text('status').$type<ProjectTaskStatus>().notNull().default('TODO'),
    priority: text('priority').$type<ProjectPriority>().notNull().default('MEDIUM'),
    ...assignedWork(),
    ...timestamps(),
  },
  (t) => [
    inProject(t, 'project_tasks_project_fk'),
    index('project_tasks_tenant_project_idx').on(t.tenantId, t.projectId),
    check('project_tasks_progress', sql`${t.progress} between 0 and 100`),
  ],
);
