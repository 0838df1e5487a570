import type { ActionRow, PlanRow, RiskRow, TaskRow } from '../repositories/project-work.ts';
import { actionStatus, isOverdue, RISK_LEVELS, riskLevel } from '../domain/risk-scoring.ts';
import {
  PLAN_STATUSES,
  PROJECT_PRIORITIES,
  PROJECT_TASK_STATUSES,
  RISK_STATUSES,
  RISK_TREATMENTS,
} from '../domain/project-vocabulary.ts';
import type { TProperties } from 'typebox';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

// docs/api-projects.md ("Risks", "Remediation plans and corrective actions", "Tasks"): exactly these fields leave
// the server, and each reply schema lists the same fields as its presenter. Dates are YYYY-MM-DD strings as
// stored; `today` (UTC) decides is_overdue.

const id = Type.Integer();
const ref = Nullable(Type.Integer());
const score = Type.Integer({ minimum: 1, maximum: 16 });
const day = Nullable(Type.String({ format: 'date' }));
const progress = Type.Integer({ minimum: 0, maximum: 100 });
const instant = Type.String({ format: 'date-time' });
const level = Choice(RISK_LEVELS);

/**
 * A work object's reply: its id, its parent (a plan's risk, an action's plan) and project, its title and
 * description, its own fields, then its dates — the order the fields leave the server in.
 */
const WorkObject = <P extends TProperties, O extends TProperties>(title: string, parent: P, own: O) =>
  Type.Object(
    {
      id,
      ...parent,
      project: id,
      title: Type.String(),
      description: Type.String(),
      ...own,
      created_at: instant,
      updated_at: instant,
    },
    { title },
  );

export const RiskSchema = WorkObject(
  'Risk',
  {},
  {
    scenario: Type.String(),
    asset: ref,
    threat: ref,
    vulnerability: ref,
    likelihood: score,
    impact: score,
    initial_score: score,
    initial_level: level,
    residual_likelihood: score,
    residual_impact: score,
    residual_score: score,
    residual_level: level,
    treatment: Choice(RISK_TREATMENTS),
    status: Choice(RISK_STATUSES),
    owner: ref,
    remediation_plan: ref,
  },
);
export type Risk = Static<typeof RiskSchema>;

export const RemediationPlanSchema = WorkObject(
  'RemediationPlan',
  { risk: id },
  {
    status: Choice(PLAN_STATUSES),
    target_likelihood: score,
    target_impact: score,
    owner: ref,
    due_date: day,
    progress,
    actions_count: Type.Integer({ minimum: 0 }),
  },
);
export type RemediationPlan = Static<typeof RemediationPlanSchema>;

export const CorrectiveActionSchema = WorkObject(
  'CorrectiveAction',
  { remediation_plan: id },
  {
    assignee: ref,
    due_date: day,
    progress,
    status: Choice(['TODO', 'IN_PROGRESS', 'DONE'] as const, { description: 'Déduit de la progression' }),
    completed_at: Nullable(instant),
    is_overdue: Type.Boolean(),
  },
);
export type CorrectiveAction = Static<typeof CorrectiveActionSchema>;

export const ProjectTaskSchema = WorkObject(
  'ProjectTask',
  {},
  {
    status: Choice(PROJECT_TASK_STATUSES),
    priority: Choice(PROJECT_PRIORITIES),
    assignee: ref,
    due_date: day,
    progress,
    completed_at: Nullable(instant),
    is_overdue: Type.Boolean(),
  },
);
export type ProjectTask = Static<typeof ProjectTaskSchema>;

/** The dates every work object ends with. */
const stamps = (row: { createdAt: Date; updatedAt: Date }) => ({
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export function presentRisk(r: RiskRow): Risk {
  const initial = r.likelihood * r.impact;
  const residual = r.residualLikelihood * r.residualImpact;
  return {
    id: r.id,
    project: r.projectId,
    title: r.title,
    description: r.description,
    scenario: r.scenario,
    asset: r.assetId,
    threat: r.threatId,
    vulnerability: r.vulnerabilityId,
    likelihood: r.likelihood,
    impact: r.impact,
    initial_score: initial,
    initial_level: riskLevel(initial),
    residual_likelihood: r.residualLikelihood,
    residual_impact: r.residualImpact,
    residual_score: residual,
    residual_level: riskLevel(residual),
    treatment: r.treatment,
    status: r.status,
    owner: r.ownerId,
    remediation_plan: r.planId,
    ...stamps(r),
  };
}

export function presentPlan(p: PlanRow): RemediationPlan {
  return {
    id: p.id,
    risk: p.riskId,
    project: p.projectId,
    title: p.title,
    description: p.description,
    status: p.status,
    target_likelihood: p.targetLikelihood,
    target_impact: p.targetImpact,
    owner: p.ownerId,
    due_date: p.dueDate,
    progress: p.progress,
    actions_count: p.actionsCount,
    ...stamps(p),
  };
}

export function presentAction(a: ActionRow, today: string): CorrectiveAction {
  return {
    id: a.id,
    remediation_plan: a.planId,
    project: a.projectId,
    title: a.title,
    description: a.description,
    assignee: a.assigneeId,
    due_date: a.dueDate,
    progress: a.progress,
    status: actionStatus(a.progress),
    completed_at: a.completedAt?.toISOString() ?? null,
    is_overdue: isOverdue(a.dueDate, a.progress, today),
    ...stamps(a),
  };
}

export function presentTask(t: TaskRow, today: string): ProjectTask {
  return {
    id: t.id,
    project: t.projectId,
    title: t.title,
    description: t.description,
    status: t.status,
    priority: t.priority,
    assignee: t.assigneeId,
    due_date: t.dueDate,
    progress: t.progress,
    completed_at: t.completedAt?.toISOString() ?? null,
    is_overdue: isOverdue(t.dueDate, t.progress, today),
    ...stamps(t),
  };
}
