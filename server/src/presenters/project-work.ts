import type { ActionRow, PlanRow, RiskRow, TaskRow } from '../repositories/project-work.ts';
import { actionStatus, isOverdue, riskLevel } from '../services/risk-scoring.ts';

// docs/api-projects.md ("Risks", "Remediation plans and corrective actions", "Tasks"): exactly these fields leave
// the server. Dates are YYYY-MM-DD strings as stored; `today` (UTC) decides is_overdue.

export function presentRisk(r: RiskRow) {
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
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function presentPlan(p: PlanRow) {
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
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

export function presentAction(a: ActionRow, today: string) {
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
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export function presentTask(t: TaskRow, today: string) {
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
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export type Risk = ReturnType<typeof presentRisk>;
export type RemediationPlan = ReturnType<typeof presentPlan>;
export type CorrectiveAction = ReturnType<typeof presentAction>;
export type ProjectTask = ReturnType<typeof presentTask>;
