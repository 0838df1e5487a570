import { and, eq, lt, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { correctiveActions, projects, projectTasks, remediationPlans, risks } from '../db/schema.ts';

// How the project tables meet, written once for every repository that reads them: each pair matches on the tenant
// as well as the id, as the composite foreign keys do, so the planner can use the tenant indexes.

/** A row that belongs to a project (a link, a risk, a task, a document…) to its project. */
export function projectOf(row: { tenantId: PgColumn; projectId: PgColumn }): SQL | undefined {
  return and(eq(projects.tenantId, row.tenantId), eq(projects.id, row.projectId));
}

/** A risk to its project. */
export const riskProject = projectOf(risks);
/** A task to its project. */
export const taskProject = projectOf(projectTasks);
/** A risk to its remediation plan. */
export const riskPlan = and(eq(remediationPlans.tenantId, risks.tenantId), eq(remediationPlans.riskId, risks.id));
/** A remediation plan to its risk. */
export const planRisk = and(eq(risks.tenantId, remediationPlans.tenantId), eq(risks.id, remediationPlans.riskId));
/** A corrective action to its remediation plan. */
export const actionPlan = and(
  eq(remediationPlans.tenantId, correctiveActions.tenantId),
  eq(remediationPlans.id, correctiveActions.planId),
);

/** Work with a due date and a progress: a project's tasks and its corrective actions. */
export type WorkTable = typeof projectTasks | typeof correctiveActions;

/** The columns naming a piece of work due by a date (the overdue lists). */
export function dueWork<T extends WorkTable>(work: T) {
  return { id: work.id, title: work.title, dueDate: work.dueDate };
}

/** Due before `today` (YYYY-MM-DD) and not finished: conditions to spread into the caller's `and`. */
export function unfinishedBefore(work: WorkTable, today: string): SQL[] {
  return [lt(work.dueDate, today), lt(work.progress, 100)];
}
