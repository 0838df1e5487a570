import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { projectActivity, projectMembers, projects } from '../db/schema.ts';
import { projectAccess, seesEveryProject, type Actor, type ProjectAccess, type TeamSeat } from '../policies/index.ts';

export type ProjectRecord = typeof projects.$inferSelect;

export interface ActivityEntry {
  projectId: number;
  userId: number | null;
  /** created, updated, deleted, progress, resolved, mitigated, member_added, member_removed, uploaded… */
  action: string;
  objectType: string;
  objectId: number | null;
  /** French, shown as is on the dashboard. */
  summary: string;
}

/**
 * Who reaches which project of the current tenant: the project with the caller's team seat, the condition that
 * limits lists to readable projects, and the activity log every project write appends to.
 */
export class ProjectAccessRepository {
  async load(
    tx: TenantDb,
    projectId: number,
    actor: Actor,
  ): Promise<{ project: ProjectRecord; access: ProjectAccess } | undefined> {
    const [row] = await tx
      .select({ project: projects, role: projectMembers.role })
      .from(projects)
      .leftJoin(
        projectMembers,
        and(
          eq(projectMembers.tenantId, projects.tenantId),
          eq(projectMembers.projectId, projects.id),
          eq(projectMembers.userId, actor.userId),
        ),
      )
      .where(and(eq(projects.tenantId, sql`app_current_tenant()`), eq(projects.id, projectId)))
      .limit(1);
    if (!row) return undefined;
    const isOwner = row.project.ownerId === actor.userId;
    const seat: TeamSeat | null =
      row.role !== null ? { role: row.role, isOwner } : isOwner ? { role: 'ADMIN', isOwner } : null;
    return { project: row.project, access: projectAccess(actor, seat) };
  }

  /** A condition on projects: every project of the tenant, or only those the caller owns or is on the team of. */
  /** Every project of the current tenant (a paired wall screen's view). */
  everyProject(): SQL {
    return eq(projects.tenantId, sql`app_current_tenant()`);
  }

  readable(actor: Actor): SQL {
    const inTenant = this.everyProject();
    if (seesEveryProject(actor)) return inTenant;
    return and(
      inTenant,
      sql`(${projects.ownerId} = ${actor.userId} or exists (select 1 from ${projectMembers}
            where ${projectMembers.tenantId} = ${projects.tenantId} and ${projectMembers.projectId} = ${projects.id}
              and ${projectMembers.userId} = ${actor.userId}))`,
    )!;
  }

  /** Appends to the project's activity and marks the acting member active. */
  async record(tx: TenantDb, entry: ActivityEntry): Promise<void> {
    await tx.insert(projectActivity).values({
      tenantId: sql`app_current_tenant()`,
      projectId: entry.projectId,
      userId: entry.userId,
      action: entry.action,
      objectType: entry.objectType,
      objectId: entry.objectId,
      summary: entry.summary,
    });
    if (entry.userId !== null) {
      await tx
        .update(projectMembers)
        .set({ lastActiveAt: new Date() })
        .where(
          and(
            eq(projectMembers.tenantId, sql`app_current_tenant()`),
            eq(projectMembers.projectId, entry.projectId),
            eq(projectMembers.userId, entry.userId),
          ),
        );
    }
  }
}
