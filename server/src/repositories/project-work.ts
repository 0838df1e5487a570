import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import {
  assets,
  correctiveActions,
  memberships,
  projects,
  projectTasks,
  remediationPlans,
  risks,
  threats,
  vulnerabilities,
  type PlanStatus,
  type ProjectPriority,
  type ProjectTaskStatus,
  type RiskStatus,
  type RiskTreatment,
} from '../db/schema.ts';
import { LEVEL_SCORES, meanProgress, residualScores, type RiskLevel } from '../domain/risk-scoring.ts';
import { actionPlan, planRisk, riskPlan, riskProject, taskProject } from './project-joins.ts';
import { INT4_MAX } from '../db/schema/columns.ts';

export type RiskRecord = typeof risks.$inferSelect;
export type PlanRecord = typeof remediationPlans.$inferSelect;
export type ActionRecord = typeof correctiveActions.$inferSelect;
export type TaskRow = typeof projectTasks.$inferSelect;

export interface RiskRow extends RiskRecord {
  planId: number | null;
}

/** A plan with what it inherits from its risk (project, initial scores) and its actions' progress. */
export interface PlanRow extends PlanRecord {
  projectId: number;
  riskTitle: string;
  riskLikelihood: number;
  riskImpact: number;
  progress: number;
  actionsCount: number;
}

export interface ActionRow extends ActionRecord {
  projectId: number;
  riskId: number;
}

export interface RiskValues {
  title?: string;
  description?: string;
  scenario?: string;
  assetId?: number | null;
  threatId?: number | null;
  vulnerabilityId?: number | null;
  likelihood?: number;
  impact?: number;
  treatment?: RiskTreatment;
  status?: RiskStatus;
  ownerId?: number | null;
}

export interface PlanValues {
  title?: string;
  description?: string;
  status?: PlanStatus;
  targetLikelihood?: number;
  targetImpact?: number;
  ownerId?: number | null;
  dueDate?: string | null;
}

export interface ActionValues {
  title?: string;
  description?: string;
  assigneeId?: number | null;
  dueDate?: string | null;
  progress?: number;
  completedAt?: Date | null;
}

export interface TaskValues {
  title?: string;
  description?: string;
  status?: ProjectTaskStatus;
  priority?: ProjectPriority;
  assigneeId?: number | null;
  dueDate?: string | null;
  progress?: number;
  completedAt?: Date | null;
}

export interface RiskFilters {
  projectId?: number | undefined;
  statuses?: RiskStatus[] | undefined;
  levels?: RiskLevel[] | undefined;
  treatments?: RiskTreatment[] | undefined;
}

export interface PlanFilters {
  projectId?: number | undefined;
  riskId?: number | undefined;
}

export interface ActionFilters {
  projectId?: number | undefined;
  planId?: number | undefined;
  overdue?: boolean | undefined;
}

export interface TaskFilters {
  projectId?: number | undefined;
  statuses?: ProjectTaskStatus[] | undefined;
  assigneeId?: number | undefined;
  overdue?: boolean | undefined;
}

export interface Page {
  limit: number;
  offset: number;
}

// Row-level security already confines the tables; naming the tenant again lets the planner use the tenant indexes.
const current = sql`app_current_tenant()`;

const riskInTenant = eq(risks.tenantId, current);
const planInTenant = eq(remediationPlans.tenantId, current);
const actionInTenant = eq(correctiveActions.tenantId, current);
const taskInTenant = eq(projectTasks.tenantId, current);

const residualScore = sql`(${risks.residualLikelihood} * ${risks.residualImpact})`;

/** Due before `today` (YYYY-MM-DD, UTC) and not finished; false when there is no due date. */
function overdue(dueDate: SQL, progress: SQL, today: string): SQL {
  return sql`(${dueDate} is not null and ${dueDate} < ${today}::date and ${progress} < 100)`;
}

const riskColumns = { risk: risks, planId: remediationPlans.id };
const planColumns = {
  plan: remediationPlans,
  projectId: risks.projectId,
  riskTitle: risks.title,
  riskLikelihood: risks.likelihood,
  riskImpact: risks.impact,
};
const actionColumns = { action: correctiveActions, projectId: risks.projectId, riskId: risks.id };

/**
 * Risks, remediation plans, corrective actions and tasks of the current tenant's projects. Lists take the
 * condition on `projects` that keeps them to the projects the caller can read (ProjectAccessRepository.readable);
 * single objects are found by id and the route checks their project through the project gate.
 */
export class ProjectWorkRepository {
  // ------------------------------------------------------------------------------------------------------------
  // Risks

  async pageRisks(
    tx: TenantDb,
    readable: SQL,
    filters: RiskFilters,
    page: Page,
  ): Promise<{ count: number; rows: RiskRow[] }> {
    const where: SQL[] = [riskInTenant, readable];
    if (filters.projectId !== undefined) where.push(eq(risks.projectId, filters.projectId));
    if (filters.statuses) where.push(inArray(risks.status, filters.statuses));
    if (filters.treatments) where.push(inArray(risks.treatment, filters.treatments));
    if (filters.levels) {
      where.push(
        or(
          ...filters.levels.map((l) => sql`${residualScore} between ${LEVEL_SCORES[l].min} and ${LEVEL_SCORES[l].max}`),
        )!,
      );
    }
    const condition = and(...where);
    const [total] = await tx.select({ n: count() }).from(risks).innerJoin(projects, riskProject).where(condition);
    const rows = await tx
      .select(riskColumns)
      .from(risks)
      .innerJoin(projects, riskProject)
      .leftJoin(remediationPlans, riskPlan)
      .where(condition)
      .orderBy(desc(residualScore), desc(risks.id))
      .limit(page.limit)
      .offset(page.offset);
    return { count: total?.n ?? 0, rows: rows.map((r) => ({ ...r.risk, planId: r.planId })) };
  }

  async findRisk(tx: TenantDb, id: number): Promise<RiskRow | undefined> {
    const [row] = await tx
      .select(riskColumns)
      .from(risks)
      .leftJoin(remediationPlans, riskPlan)
      .where(and(riskInTenant, eq(risks.id, id)))
      .limit(1);
    return row ? { ...row.risk, planId: row.planId } : undefined;
  }

  async createRisk(
    tx: TenantDb,
    projectId: number,
    values: RiskValues & { title: string; likelihood: number; impact: number },
  ): Promise<number> {
    // No plan yet: the residual scores are the initial ones.
    const [row] = await tx
      .insert(risks)
      .values({
        ...values,
        tenantId: current,
        projectId,
        residualLikelihood: values.likelihood,
        residualImpact: values.impact,
      })
      .returning({ id: risks.id });
    return row!.id;
  }

  async updateRisk(tx: TenantDb, id: number, values: RiskValues): Promise<boolean> {
    const rows = await tx
      .update(risks)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(riskInTenant, eq(risks.id, id)))
      .returning({ id: risks.id });
    return rows.length > 0;
  }

  /** Its plan and the plan's actions go with it (foreign key cascade). */
  async removeRisk(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .delete(risks)
      .where(and(riskInTenant, eq(risks.id, id)))
      .returning({ id: risks.id });
    return rows.length > 0;
  }

  /**
   * Stores the risk's residual scores from its plan's targets and progress. The risk row is locked first, so two
   * progress updates of the same plan cannot both compute from a mean that misses the other's change.
   */
  async refreshResidual(tx: TenantDb, riskId: number): Promise<void> {
    const [risk] = await tx
      .select({
        likelihood: risks.likelihood,
        impact: risks.impact,
        treatment: risks.treatment,
        residualLikelihood: risks.residualLikelihood,
        residualImpact: risks.residualImpact,
      })
      .from(risks)
      .where(and(riskInTenant, eq(risks.id, riskId)))
      .for('update');
    if (!risk) return;
    const [plan] = await tx
      .select({
        id: remediationPlans.id,
        targetLikelihood: remediationPlans.targetLikelihood,
        targetImpact: remediationPlans.targetImpact,
      })
      .from(remediationPlans)
      .where(and(planInTenant, eq(remediationPlans.riskId, riskId)));
    const progress = plan ? ((await this.progressOf(tx, [plan.id])).get(plan.id)?.progress ?? 0) : 0;
    const residual = residualScores(risk, plan ?? null, progress);
    if (residual.likelihood === risk.residualLikelihood && residual.impact === risk.residualImpact) return;
    await tx
      .update(risks)
      .set({ residualLikelihood: residual.likelihood, residualImpact: residual.impact, updatedAt: sql`now()` })
      .where(and(riskInTenant, eq(risks.id, riskId)));
  }

  // ------------------------------------------------------------------------------------------------------------
  // Remediation plans

  async pagePlans(
    tx: TenantDb,
    readable: SQL,
    filters: PlanFilters,
    page: Page,
  ): Promise<{ count: number; rows: PlanRow[] }> {
    const where: SQL[] = [planInTenant, readable];
    if (filters.projectId !== undefined) where.push(eq(risks.projectId, filters.projectId));
    if (filters.riskId !== undefined) where.push(eq(remediationPlans.riskId, filters.riskId));
    const condition = and(...where);
    const [total] = await tx
      .select({ n: count() })
      .from(remediationPlans)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(condition);
    const rows = await tx
      .select(planColumns)
      .from(remediationPlans)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(condition)
      .orderBy(desc(remediationPlans.id))
      .limit(page.limit)
      .offset(page.offset);
    return { count: total?.n ?? 0, rows: await this.withProgress(tx, rows) };
  }

  async findPlan(tx: TenantDb, id: number): Promise<PlanRow | undefined> {
    return this.findPlanWhere(tx, eq(remediationPlans.id, id));
  }

  async findPlanOfRisk(tx: TenantDb, riskId: number): Promise<PlanRow | undefined> {
    return this.findPlanWhere(tx, eq(remediationPlans.riskId, riskId));
  }

  private async findPlanWhere(tx: TenantDb, condition: SQL): Promise<PlanRow | undefined> {
    const rows = await tx
      .select(planColumns)
      .from(remediationPlans)
      .innerJoin(risks, planRisk)
      .where(and(planInTenant, condition))
      .limit(1);
    return (await this.withProgress(tx, rows))[0];
  }

  async createPlan(
    tx: TenantDb,
    riskId: number,
    values: PlanValues & { title: string; targetLikelihood: number; targetImpact: number },
  ): Promise<number> {
    const [row] = await tx
      .insert(remediationPlans)
      .values({ ...values, tenantId: current, riskId })
      .returning({ id: remediationPlans.id });
    return row!.id;
  }

  async updatePlan(tx: TenantDb, id: number, values: PlanValues): Promise<boolean> {
    const rows = await tx
      .update(remediationPlans)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(planInTenant, eq(remediationPlans.id, id)))
      .returning({ id: remediationPlans.id });
    return rows.length > 0;
  }

  /** Its actions go with it (foreign key cascade). */
  async removePlan(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .delete(remediationPlans)
      .where(and(planInTenant, eq(remediationPlans.id, id)))
      .returning({ id: remediationPlans.id });
    return rows.length > 0;
  }

  /** Progress (mean of the actions, rounded) and action count of these plans; plans without actions are absent. */
  private async progressOf(tx: TenantDb, planIds: number[]): Promise<Map<number, { progress: number; n: number }>> {
    if (planIds.length === 0) return new Map();
    const rows = await tx
      .select({
        planId: correctiveActions.planId,
        n: count(),
        sum: sql<string>`sum(${correctiveActions.progress})`,
      })
      .from(correctiveActions)
      .where(and(actionInTenant, inArray(correctiveActions.planId, planIds)))
      .groupBy(correctiveActions.planId);
    return new Map(rows.map((r) => [r.planId, { n: r.n, progress: meanProgress(Number(r.sum), r.n) }]));
  }

  private async withProgress(
    tx: TenantDb,
    rows: { plan: PlanRecord; projectId: number; riskTitle: string; riskLikelihood: number; riskImpact: number }[],
  ): Promise<PlanRow[]> {
    const progress = await this.progressOf(
      tx,
      rows.map((r) => r.plan.id),
    );
    return rows.map(({ plan, ...rest }) => {
      const p = progress.get(plan.id);
      return { ...plan, ...rest, progress: p?.progress ?? 0, actionsCount: p?.n ?? 0 };
    });
  }

  // ------------------------------------------------------------------------------------------------------------
  // Corrective actions

  async pageActions(
    tx: TenantDb,
    readable: SQL,
    filters: ActionFilters,
    today: string,
    page: Page,
  ): Promise<{ count: number; rows: ActionRow[] }> {
    const where: SQL[] = [actionInTenant, readable];
    if (filters.projectId !== undefined) where.push(eq(risks.projectId, filters.projectId));
    if (filters.planId !== undefined) where.push(eq(correctiveActions.planId, filters.planId));
    if (filters.overdue !== undefined) {
      const late = overdue(sql`${correctiveActions.dueDate}`, sql`${correctiveActions.progress}`, today);
      where.push(filters.overdue ? late : sql`not ${late}`);
    }
    const condition = and(...where);
    const [total] = await tx
      .select({ n: count() })
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(condition);
    const rows = await tx
      .select(actionColumns)
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(condition)
      .orderBy(sql`${correctiveActions.dueDate} asc nulls last`, asc(correctiveActions.id))
      .limit(page.limit)
      .offset(page.offset);
    return { count: total?.n ?? 0, rows: rows.map(flattenAction) };
  }

  /** Every action of one plan, in creation order (the plan's own list is not paged). */
  async actionsOfPlan(tx: TenantDb, planId: number): Promise<ActionRow[]> {
    const rows = await tx
      .select(actionColumns)
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .where(and(actionInTenant, eq(correctiveActions.planId, planId)))
      .orderBy(asc(correctiveActions.id));
    return rows.map(flattenAction);
  }

  async findAction(tx: TenantDb, id: number): Promise<ActionRow | undefined> {
    const [row] = await tx
      .select(actionColumns)
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .where(and(actionInTenant, eq(correctiveActions.id, id)))
      .limit(1);
    return row ? flattenAction(row) : undefined;
  }

  async createAction(tx: TenantDb, planId: number, values: ActionValues & { title: string }): Promise<number> {
    const [row] = await tx
      .insert(correctiveActions)
      .values({ ...values, tenantId: current, planId })
      .returning({ id: correctiveActions.id });
    return row!.id;
  }

  async updateAction(tx: TenantDb, id: number, values: ActionValues): Promise<boolean> {
    const rows = await tx
      .update(correctiveActions)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(actionInTenant, eq(correctiveActions.id, id)))
      .returning({ id: correctiveActions.id });
    return rows.length > 0;
  }

  async removeAction(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .delete(correctiveActions)
      .where(and(actionInTenant, eq(correctiveActions.id, id)))
      .returning({ id: correctiveActions.id });
    return rows.length > 0;
  }

  // ------------------------------------------------------------------------------------------------------------
  // Tasks

  async pageTasks(
    tx: TenantDb,
    readable: SQL,
    filters: TaskFilters,
    today: string,
    page: Page,
  ): Promise<{ count: number; rows: TaskRow[] }> {
    const where: SQL[] = [taskInTenant, readable];
    if (filters.projectId !== undefined) where.push(eq(projectTasks.projectId, filters.projectId));
    if (filters.statuses) where.push(inArray(projectTasks.status, filters.statuses));
    if (filters.assigneeId !== undefined) {
      where.push(filters.assigneeId > INT4_MAX ? sql`false` : eq(projectTasks.assigneeId, filters.assigneeId));
    }
    if (filters.overdue !== undefined) {
      const late = overdue(sql`${projectTasks.dueDate}`, sql`${projectTasks.progress}`, today);
      where.push(filters.overdue ? late : sql`not ${late}`);
    }
    const condition = and(...where);
    const [total] = await tx
      .select({ n: count() })
      .from(projectTasks)
      .innerJoin(projects, taskProject)
      .where(condition);
    const rows = await tx
      .select({ task: projectTasks })
      .from(projectTasks)
      .innerJoin(projects, taskProject)
      .where(condition)
      .orderBy(sql`${projectTasks.dueDate} asc nulls last`, asc(projectTasks.id))
      .limit(page.limit)
      .offset(page.offset);
    return { count: total?.n ?? 0, rows: rows.map((r) => r.task) };
  }

  async findTask(tx: TenantDb, id: number): Promise<TaskRow | undefined> {
    const [row] = await tx
      .select()
      .from(projectTasks)
      .where(and(taskInTenant, eq(projectTasks.id, id)))
      .limit(1);
    return row;
  }

  async createTask(tx: TenantDb, projectId: number, values: TaskValues & { title: string }): Promise<TaskRow> {
    const [row] = await tx
      .insert(projectTasks)
      .values({ ...values, tenantId: current, projectId })
      .returning();
    return row!;
  }

  async updateTask(tx: TenantDb, id: number, values: TaskValues): Promise<TaskRow | undefined> {
    const [row] = await tx
      .update(projectTasks)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(taskInTenant, eq(projectTasks.id, id)))
      .returning();
    return row;
  }

  async removeTask(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .delete(projectTasks)
      .where(and(taskInTenant, eq(projectTasks.id, id)))
      .returning({ id: projectTasks.id });
    return rows.length > 0;
  }

  // ------------------------------------------------------------------------------------------------------------
  // References. The risk columns asset_id, threat_id and vulnerability_id have single-column foreign keys, which
  // would accept another tenant's id: these checks (under row-level security, and naming the tenant) refuse them.

  async assetExists(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .select({ id: assets.id })
      .from(assets)
      .where(and(eq(assets.tenantId, current), eq(assets.id, id)))
      .limit(1);
    return rows.length > 0;
  }

  async threatExists(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .select({ id: threats.id })
      .from(threats)
      .where(and(eq(threats.tenantId, current), eq(threats.id, id)))
      .limit(1);
    return rows.length > 0;
  }

  async vulnerabilityExists(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx
      .select({ id: vulnerabilities.id })
      .from(vulnerabilities)
      .where(and(eq(vulnerabilities.tenantId, current), eq(vulnerabilities.id, id)))
      .limit(1);
    return rows.length > 0;
  }

  /** Owners and assignees are members of the current tenant. */
  async isTenantMember(tx: TenantDb, userId: number): Promise<boolean> {
    if (userId > INT4_MAX) return false;
    const rows = await tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.tenantId, current), eq(memberships.userId, userId)))
      .limit(1);
    return rows.length > 0;
  }
}

/** A piece of open work assigned to someone: a project task or a corrective action. */
export interface AssignedWork {
  kind: 'task' | 'action';
  id: number;
  title: string;
  projectId: number;
  projectName: string;
  dueDate: string | null;
  progress: number;
  /** The task's status; an action's follows from its progress. */
  status: ProjectTaskStatus | null;
  priority: ProjectPriority | null;
}

/** Open risks on the 4 × 4 matrix: how many sit at each likelihood × impact, as assessed and as left residual. */
export interface RiskHeatCell {
  likelihood: number;
  impact: number;
  count: number;
}

export class WorkOverviewRepository {
  /**
   * The user's unfinished tasks and corrective actions in the readable projects, soonest due first (no due date
   * last), at most `limit`; with how many there are and how many are overdue on `today`.
   */
  async openWorkOf(
    tx: TenantDb,
    readable: SQL,
    userId: number,
    today: string,
    limit: number,
  ): Promise<{ total: number; overdue: number; rows: AssignedWork[] }> {
    if (userId > INT4_MAX) return { total: 0, overdue: 0, rows: [] };
    const taskWhere = and(
      taskInTenant,
      readable,
      eq(projectTasks.assigneeId, userId),
      sql`${projectTasks.status} <> 'DONE'`,
      sql`${projectTasks.progress} < 100`,
    );
    const actionWhere = and(
      actionInTenant,
      readable,
      eq(correctiveActions.assigneeId, userId),
      sql`${correctiveActions.progress} < 100`,
    );
    const late = (due: SQL) => sql<number>`count(*) filter (where ${due} < ${today}::date)::int`;
    const [taskCounts] = await tx
      .select({ n: count(), late: late(sql`${projectTasks.dueDate}`) })
      .from(projectTasks)
      .innerJoin(projects, taskProject)
      .where(taskWhere);
    const [actionCounts] = await tx
      .select({ n: count(), late: late(sql`${correctiveActions.dueDate}`) })
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(actionWhere);
    const soonest = (due: SQL, id: SQL) => [sql`${due} asc nulls last`, sql`${id} asc`];
    const tasks = await tx
      .select({
        id: projectTasks.id,
        title: projectTasks.title,
        projectId: projects.id,
        projectName: projects.name,
        dueDate: projectTasks.dueDate,
        progress: projectTasks.progress,
        status: projectTasks.status,
        priority: projectTasks.priority,
      })
      .from(projectTasks)
      .innerJoin(projects, taskProject)
      .where(taskWhere)
      .orderBy(...soonest(sql`${projectTasks.dueDate}`, sql`${projectTasks.id}`))
      .limit(limit);
    const actions = await tx
      .select({
        id: correctiveActions.id,
        title: correctiveActions.title,
        projectId: projects.id,
        projectName: projects.name,
        dueDate: correctiveActions.dueDate,
        progress: correctiveActions.progress,
      })
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(actionWhere)
      .orderBy(...soonest(sql`${correctiveActions.dueDate}`, sql`${correctiveActions.id}`))
      .limit(limit);
    const rows: AssignedWork[] = [
      ...tasks.map((t) => ({ kind: 'task' as const, ...t })),
      ...actions.map((a) => ({ kind: 'action' as const, ...a, status: null, priority: null })),
    ];
    rows.sort(
      (a, b) =>
        (a.dueDate ?? '9999-12-31').localeCompare(b.dueDate ?? '9999-12-31') ||
        a.kind.localeCompare(b.kind) ||
        a.id - b.id,
    );
    return {
      total: (taskCounts?.n ?? 0) + (actionCounts?.n ?? 0),
      overdue: (taskCounts?.late ?? 0) + (actionCounts?.late ?? 0),
      rows: rows.slice(0, limit),
    };
  }

  /** The readable projects' risks that are not closed, counted per cell of the matrix, initial and residual. */
  async riskHeatMap(
    tx: TenantDb,
    readable: SQL,
  ): Promise<{ initial: RiskHeatCell[]; residual: RiskHeatCell[]; projects: number }> {
    const open = and(riskInTenant, readable, sql`${risks.status} <> 'CLOSED'`);
    const cells = (likelihood: SQL<number>, impact: SQL<number>) =>
      tx
        .select({ likelihood: likelihood.mapWith(Number), impact: impact.mapWith(Number), count: count() })
        .from(risks)
        .innerJoin(projects, riskProject)
        .where(open)
        .groupBy(likelihood, impact)
        .orderBy(likelihood, impact);
    const [spread] = await tx
      .select({ n: sql<number>`count(distinct ${risks.projectId})::int` })
      .from(risks)
      .innerJoin(projects, riskProject)
      .where(open);
    return {
      initial: await cells(sql`${risks.likelihood}`, sql`${risks.impact}`),
      residual: await cells(sql`${risks.residualLikelihood}`, sql`${risks.residualImpact}`),
      projects: spread?.n ?? 0,
    };
  }
}

function flattenAction(r: { action: ActionRecord; projectId: number; riskId: number }): ActionRow {
  return { ...r.action, projectId: r.projectId, riskId: r.riskId };
}
