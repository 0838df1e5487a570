import { pgArray } from '../db/arrays.ts';
import { and, asc, count, desc, eq, ilike, inArray, ne, or, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { rowsOf } from '../db/client.ts';
import {
  correctiveActions,
  memberships,
  projectActivity,
  projectAssets,
  projectMembers,
  projects,
  projectTasks,
  projectVulnerabilities,
  remediationPlans,
  risks,
  users,
  type ProjectPriority,
  type ProjectStatus,
  type ProjectTaskStatus,
  type Severity,
  type TeamRole,
} from '../db/schema.ts';
import type { ProjectRecord } from './project-access.ts';
import { actionPlan, dueWork, planRisk, unfinishedBefore, type WorkTable } from './project-joins.ts';
import { containsPattern } from './tenant-users.ts';

export const PROJECT_ORDERINGS = ['name', 'created_at', 'updated_at', 'deadline', 'priority', 'status'] as const;
export type ProjectOrderField = (typeof PROJECT_ORDERINGS)[number];

export interface ProjectFilters {
  statuses?: ProjectStatus[] | undefined;
  priorities?: ProjectPriority[] | undefined;
  text?: string | undefined;
}

/** A seat on a project's team, with what the TeamMember answer shows of the account. */
export interface TeamMemberRow {
  projectId: number;
  userId: number;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  role: TeamRole;
  isOwner: boolean;
  lastActiveAt: Date | null;
  lastLogin: Date | null;
}

export interface PersonRef {
  id: number;
  name: string;
  email: string;
}

/** A project with everything the Project answer lists: completion, linked ids, team and owner. */
export interface ProjectRow extends ProjectRecord {
  completion: number;
  assetLinkIds: number[];
  vulnerabilityLinkIds: number[];
  taskIds: number[];
  team: TeamMemberRow[];
  owner: PersonRef | null;
}

export interface ProjectValues {
  name?: string;
  description?: string;
  status?: ProjectStatus;
  priority?: ProjectPriority;
  startDate?: string | null;
  deadline?: string | null;
  isActive?: boolean;
  ownerId?: number | null;
}

export interface ProjectDashboardData {
  counts: Record<
    | 'assets'
    | 'vulnerabilities'
    | 'open_vulnerabilities'
    | 'threats'
    | 'active_threats'
    | 'risks'
    | 'tasks'
    | 'corrective_actions'
    | 'documents'
    | 'team_members',
    number
  >;
  vulnerabilitiesBySeverity: Map<Severity, number>;
  tasksByStatus: Map<ProjectTaskStatus, number>;
  /** Open risks grouped by their residual scores. */
  openRisks: { likelihood: number; impact: number; n: number }[];
  overdueTasks: { id: number; title: string; dueDate: string; progress: number }[];
  overdueActions: { id: number; title: string; dueDate: string; progress: number; planId: number }[];
  recentActivity: {
    id: number;
    action: string;
    objectType: string;
    objectId: number | null;
    summary: string;
    userName: string | null;
    createdAt: Date;
  }[];
}

/** Full name, else username (spec §3 TeamMember.name). */
export function displayName(u: { firstName: string; lastName: string; username: string }): string {
  return `${u.firstName} ${u.lastName}`.trim() || u.username;
}

const ROLE_RANK: Record<TeamRole, number> = { ADMIN: 0, MEMBER: 1, VIEWER: 2 };

// Business orders, not alphabetical.
const priorityRank = sql`(case ${projects.priority} when 'CRITICAL' then 4 when 'HIGH' then 3 when 'MEDIUM' then 2 else 1 end)`;
const statusRank = sql`(case ${projects.status} when 'IN_PROGRESS' then 2 when 'ON_HOLD' then 3
  when 'COMPLETED' then 4 when 'CANCELLED' then 5 else 1 end)`;

// Row-level security already confines the tables; naming the tenant again lets the planner use the tenant indexes.
const current = sql`app_current_tenant()`;
const inTenant = eq(projects.tenantId, current);

/** What displayName() reads of an account. */
const nameColumns = { username: users.username, firstName: users.firstName, lastName: users.lastName };
/** An account as a PersonRef is made from. */
const personColumns = { id: users.id, ...nameColumns, email: users.email };

const memberColumns = {
  projectId: projectMembers.projectId,
  userId: projectMembers.userId,
  ...nameColumns,
  email: users.email,
  role: projectMembers.role,
  lastActiveAt: projectMembers.lastActiveAt,
  lastLogin: users.lastLogin,
};

/**
 * Projects of the current tenant with their team. Every method takes a TenantDb; which projects a caller may
 * reach is decided by ProjectAccessRepository (the list condition) and the project gate (single projects).
 */
export class ProjectsRepository {
  private conditions(readable: SQL, filters: ProjectFilters): SQL {
    const where: SQL[] = [readable];
    if (filters.statuses?.length) where.push(inArray(projects.status, filters.statuses));
    if (filters.priorities?.length) where.push(inArray(projects.priority, filters.priorities));
    if (filters.text) {
      const p = containsPattern(filters.text);
      where.push(or(ilike(projects.name, p), ilike(projects.description, p))!);
    }
    return and(...where)!;
  }

  /** One page of the projects matching `readable` (the caller's visibility) and the filters. */
  async page(
    tx: TenantDb,
    opts: {
      readable: SQL;
      filters: ProjectFilters;
      ordering: { field: ProjectOrderField; desc: boolean };
      limit: number;
      offset: number;
    },
  ): Promise<{ count: number; rows: ProjectRow[] }> {
    const where = this.conditions(opts.readable, opts.filters);
    const [total] = await tx.select({ n: count() }).from(projects).where(where);
    const dir = opts.ordering.desc ? desc : asc;
    const order: SQL[] = [];
    switch (opts.ordering.field) {
      case 'name':
        order.push(dir(sql`lower(${projects.name})`));
        break;
      case 'created_at':
        order.push(dir(projects.createdAt));
        break;
      case 'updated_at':
        order.push(dir(projects.updatedAt));
        break;
      case 'deadline':
        // Projects without a deadline come last in both directions.
        order.push(sql`${projects.deadline} ${sql.raw(opts.ordering.desc ? 'desc' : 'asc')} nulls last`);
        break;
      case 'priority':
        order.push(dir(priorityRank));
        break;
      case 'status':
        order.push(dir(statusRank));
        break;
    }
    const rows = await tx
      .select()
      .from(projects)
      .where(where)
      .orderBy(...order, dir(projects.id))
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: total?.n ?? 0, rows: await this.expand(tx, rows) };
  }

  async detail(tx: TenantDb, id: number): Promise<ProjectRow | undefined> {
    const [row] = await tx
      .select()
      .from(projects)
      .where(and(inTenant, eq(projects.id, id)))
      .limit(1);
    return row ? (await this.expand(tx, [row]))[0] : undefined;
  }

  /** The creator becomes owner and ADMIN member. */
  async create(tx: TenantDb, values: ProjectValues & { name: string }, creatorId: number): Promise<ProjectRecord> {
    const [row] = await tx
      .insert(projects)
      .values({ ...values, ownerId: creatorId, tenantId: current })
      .returning();
    await this.putMember(tx, row!.id, creatorId, 'ADMIN');
    return row!;
  }

  /** A new owner also becomes (or stays) an ADMIN member. */
  async update(tx: TenantDb, id: number, values: ProjectValues): Promise<ProjectRecord | undefined> {
    const [row] = await tx
      .update(projects)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(inTenant, eq(projects.id, id)))
      .returning();
    if (row && values.ownerId !== undefined && values.ownerId !== null) {
      await this.putMember(tx, id, values.ownerId, 'ADMIN');
    }
    return row;
  }

  /** Links, risks, plans, actions, tasks, documents, team and activity go by foreign-key cascade. */
  async remove(tx: TenantDb, id: number): Promise<boolean> {
    const removed = await tx
      .delete(projects)
      .where(and(inTenant, eq(projects.id, id)))
      .returning({ id: projects.id });
    return removed.length > 0;
  }

  /** The account when it is a member of the current tenant (team members and owners must be). */
  async tenantMember(tx: TenantDb, userId: number): Promise<PersonRef | undefined> {
    // Account ids are 32-bit integers; a larger number names nobody.
    if (!Number.isSafeInteger(userId) || userId < 1 || userId > 2_147_483_647) return undefined;
    const [row] = await tx
      .select(personColumns)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.tenantId, current), eq(memberships.userId, userId)))
      .limit(1);
    return row ? { id: row.id, name: displayName(row), email: row.email } : undefined;
  }

  async team(tx: TenantDb, project: ProjectRecord): Promise<TeamMemberRow[]> {
    return (await this.teams(tx, [project])).get(project.id) ?? [];
  }

  async memberRole(tx: TenantDb, projectId: number, userId: number): Promise<TeamRole | undefined> {
    const [row] = await tx
      .select({ role: projectMembers.role })
      .from(projectMembers)
      .where(
        and(
          eq(projectMembers.tenantId, current),
          eq(projectMembers.projectId, projectId),
          eq(projectMembers.userId, userId),
        ),
      )
      .limit(1);
    return row?.role;
  }

  /** Adds the member, or changes the role of one already on the team. */
  async putMember(tx: TenantDb, projectId: number, userId: number, role: TeamRole): Promise<void> {
    await tx
      .insert(projectMembers)
      .values({ tenantId: current, projectId, userId, role })
      .onConflictDoUpdate({
        target: [projectMembers.tenantId, projectMembers.projectId, projectMembers.userId],
        set: { role },
      });
  }

  async removeMember(tx: TenantDb, projectId: number, userId: number): Promise<boolean> {
    const removed = await tx
      .delete(projectMembers)
      .where(
        and(
          eq(projectMembers.tenantId, current),
          eq(projectMembers.projectId, projectId),
          eq(projectMembers.userId, userId),
        ),
      )
      .returning({ userId: projectMembers.userId });
    return removed.length > 0;
  }

  /** `today` (YYYY-MM-DD, UTC): what is due before it and unfinished is overdue. */
  async dashboard(tx: TenantDb, projectId: number, today: string): Promise<ProjectDashboardData> {
    const [counts] = rowsOf<ProjectDashboardData['counts']>(
      await tx.execute(sql`
        select
          (select count(*)::int from project_assets where tenant_id = ${current} and project_id = ${projectId})
            as assets,
          (select count(*)::int from project_vulnerabilities where tenant_id = ${current} and project_id = ${projectId})
            as vulnerabilities,
          (select count(*)::int from project_vulnerabilities pv
             join vulnerabilities v on v.tenant_id = pv.tenant_id and v.id = pv.vulnerability_id
            where pv.tenant_id = ${current} and pv.project_id = ${projectId} and not v.is_resolved)
            as open_vulnerabilities,
          (select count(*)::int from project_threats where tenant_id = ${current} and project_id = ${projectId})
            as threats,
          (select count(*)::int from project_threats pt
             join threats t on t.tenant_id = pt.tenant_id and t.id = pt.threat_id
            where pt.tenant_id = ${current} and pt.project_id = ${projectId}
              and t.status in ('ACTIVE', 'INVESTIGATING'))
            as active_threats,
          (select count(*)::int from risks where tenant_id = ${current} and project_id = ${projectId}) as risks,
          (select count(*)::int from project_tasks where tenant_id = ${current} and project_id = ${projectId})
            as tasks,
          (select count(*)::int from corrective_actions a
             join remediation_plans p on p.tenant_id = a.tenant_id and p.id = a.plan_id
             join risks r on r.tenant_id = p.tenant_id and r.id = p.risk_id
            where a.tenant_id = ${current} and r.project_id = ${projectId})
            as corrective_actions,
          (select count(*)::int from project_documents where tenant_id = ${current} and project_id = ${projectId})
            as documents,
          (select count(*)::int from project_members where tenant_id = ${current} and project_id = ${projectId})
            as team_members`),
    );
    const severities = rowsOf<{ severity: Severity; n: number }>(
      await tx.execute(sql`
        select v.severity, count(*)::int as n from project_vulnerabilities pv
          join vulnerabilities v on v.tenant_id = pv.tenant_id and v.id = pv.vulnerability_id
         where pv.tenant_id = ${current} and pv.project_id = ${projectId}
         group by v.severity`),
    );
    const taskStatuses = await tx
      .select({ status: projectTasks.status, n: count() })
      .from(projectTasks)
      .where(and(eq(projectTasks.tenantId, current), eq(projectTasks.projectId, projectId)))
      .groupBy(projectTasks.status);
    const openRisks = await tx
      .select({ likelihood: risks.residualLikelihood, impact: risks.residualImpact, n: count() })
      .from(risks)
      .where(and(eq(risks.tenantId, current), eq(risks.projectId, projectId), ne(risks.status, 'CLOSED')))
      .groupBy(risks.residualLikelihood, risks.residualImpact);
    // Unfinished work of this project due before today, the soonest first.
    const overdueIn = (work: WorkTable, project: typeof projectTasks.projectId | typeof risks.projectId) =>
      and(eq(work.tenantId, current), eq(project, projectId), ...unfinishedBefore(work, today));
    const soonestFirst = (work: WorkTable) => [asc(work.dueDate), asc(work.id)];
    const overdueTasks = await tx
      .select({ ...dueWork(projectTasks), progress: projectTasks.progress })
      .from(projectTasks)
      .where(overdueIn(projectTasks, projectTasks.projectId))
      .orderBy(...soonestFirst(projectTasks));
    const overdueActions = await tx
      .select({ ...dueWork(correctiveActions), progress: correctiveActions.progress, planId: correctiveActions.planId })
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .where(overdueIn(correctiveActions, risks.projectId))
      .orderBy(...soonestFirst(correctiveActions));
    const activity = await tx
      .select({
        id: projectActivity.id,
        action: projectActivity.action,
        objectType: projectActivity.objectType,
        objectId: projectActivity.objectId,
        summary: projectActivity.summary,
        createdAt: projectActivity.createdAt,
        ...nameColumns,
      })
      .from(projectActivity)
      .leftJoin(users, eq(users.id, projectActivity.userId))
      .where(and(eq(projectActivity.tenantId, current), eq(projectActivity.projectId, projectId)))
      .orderBy(desc(projectActivity.createdAt), desc(projectActivity.id))
      .limit(20);
    return {
      // count(*)::int arrives as a number from both drivers; Number() keeps it one whatever the driver.
      counts: Object.fromEntries(
        Object.entries(counts!).map(([k, v]) => [k, Number(v)]),
      ) as ProjectDashboardData['counts'],
      vulnerabilitiesBySeverity: new Map(severities.map((r) => [r.severity, Number(r.n)])),
      tasksByStatus: new Map(taskStatuses.map((r) => [r.status, r.n])),
      openRisks,
      // The where clause rules out a null due date.
      overdueTasks: overdueTasks.map((t) => ({ ...t, dueDate: t.dueDate! })),
      overdueActions: overdueActions.map((a) => ({ ...a, dueDate: a.dueDate! })),
      recentActivity: activity.map((a) => ({
        id: a.id,
        action: a.action,
        objectType: a.objectType,
        objectId: a.objectId,
        summary: a.summary,
        createdAt: a.createdAt,
        userName:
          a.username !== null
            ? displayName({ username: a.username, firstName: a.firstName ?? '', lastName: a.lastName ?? '' })
            : null,
      })),
    };
  }

  /** Completion, linked ids, teams and owners of a page of projects: a fixed number of grouped queries. */
  private async expand(tx: TenantDb, rows: ProjectRecord[]): Promise<ProjectRow[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    // The ids of a project's rows in one of its tables, oldest first.
    const idsIn = (table: typeof projectAssets | typeof projectVulnerabilities | typeof projectTasks) =>
      tx
        .select({ projectId: table.projectId, id: table.id })
        .from(table)
        .where(and(eq(table.tenantId, current), inArray(table.projectId, ids)))
        .orderBy(asc(table.id));
    const [progress, assetLinks, findingLinks, tasks, teams] = [
      await this.progress(tx, ids),
      await idsIn(projectAssets),
      await idsIn(projectVulnerabilities),
      await idsIn(projectTasks),
      await this.teams(tx, rows),
    ];
    const group = (links: { projectId: number; id: number }[]) => {
      const out = new Map<number, number[]>();
      for (const l of links) (out.get(l.projectId) ?? out.set(l.projectId, []).get(l.projectId)!).push(l.id);
      return out;
    };
    const assetsBy = group(assetLinks);
    const findingsBy = group(findingLinks);
    const tasksBy = group(tasks);
    const owners = await this.people(
      tx,
      rows.map((r) => r.ownerId).filter((id): id is number => id !== null),
    );
    return rows.map((r) => {
      const completion = progress.get(r.id) ?? (r.status === 'COMPLETED' ? 100 : 0);
      return {
        ...r,
        completion,
        assetLinkIds: assetsBy.get(r.id) ?? [],
        vulnerabilityLinkIds: findingsBy.get(r.id) ?? [],
        taskIds: tasksBy.get(r.id) ?? [],
        team: teams.get(r.id) ?? [],
        owner: r.ownerId !== null ? (owners.get(r.ownerId) ?? null) : null,
      };
    });
  }

  /**
   * Mean progress (rounded) of each project's tasks and corrective actions (reached through plans and risks);
   * projects with neither are absent from the map.
   */
  private async progress(tx: TenantDb, ids: number[]): Promise<Map<number, number>> {
    const result = await tx.execute(sql`
      select project_id, round(avg(progress))::int as completion from (
        select t.project_id, t.progress from project_tasks t
         where t.tenant_id = ${current} and t.project_id = any(${pgArray(ids)}::bigint[])
        union all
        select r.project_id, a.progress from corrective_actions a
          join remediation_plans p on p.tenant_id = a.tenant_id and p.id = a.plan_id
          join risks r on r.tenant_id = p.tenant_id and r.id = p.risk_id
         where a.tenant_id = ${current} and r.project_id = any(${pgArray(ids)}::bigint[])
      ) work group by project_id`);
    return new Map(
      rowsOf<{ project_id: number | string; completion: number }>(result).map((r) => [
        Number(r.project_id),
        Number(r.completion),
      ]),
    );
  }

  /** Team members, owner first, then by role and name. */
  private async teams(tx: TenantDb, rows: ProjectRecord[]): Promise<Map<number, TeamMemberRow[]>> {
    const owners = new Map(rows.map((r) => [r.id, r.ownerId]));
    // users rows are visible to the application role only for members of the current tenant.
    const members = await tx
      .select(memberColumns)
      .from(projectMembers)
      .innerJoin(users, eq(users.id, projectMembers.userId))
      .where(
        and(
          eq(projectMembers.tenantId, current),
          inArray(
            projectMembers.projectId,
            rows.map((r) => r.id),
          ),
        ),
      );
    const out = new Map<number, TeamMemberRow[]>();
    for (const m of members) {
      const row: TeamMemberRow = { ...m, isOwner: owners.get(m.projectId) === m.userId };
      (out.get(m.projectId) ?? out.set(m.projectId, []).get(m.projectId)!).push(row);
    }
    for (const team of out.values()) {
      team.sort(
        (a, b) =>
          Number(b.isOwner) - Number(a.isOwner) ||
          ROLE_RANK[a.role] - ROLE_RANK[b.role] ||
          displayName(a).localeCompare(displayName(b), 'fr') ||
          a.userId - b.userId,
      );
    }
    return out;
  }

  private async people(tx: TenantDb, ids: number[]): Promise<Map<number, PersonRef>> {
    if (ids.length === 0) return new Map();
    const rows = await tx
      .select(personColumns)
      .from(users)
      .where(inArray(users.id, [...new Set(ids)]));
    return new Map(rows.map((u) => [u.id, { id: u.id, name: displayName(u), email: u.email }]));
  }
}
