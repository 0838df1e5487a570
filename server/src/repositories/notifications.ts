import { and, desc, eq, inArray, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { INT4_MAX } from '../db/schema/columns.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import {
  correctiveActions,
  memberships,
  notifications,
  projects,
  projectTasks,
  remediationPlans,
  risks,
  tenants,
  users,
  vulnerabilities,
  type MembershipRole,
  type NotificationKind,
  type NotificationLevel,
} from '../db/schema.ts';
import {
  actionPlan,
  dueWork,
  planRisk,
  riskProject,
  taskProject,
  unfinishedBefore,
  type WorkTable,
} from './project-joins.ts';

export type NotificationRow = typeof notifications.$inferSelect;

/** What a wall shows of the tenant's notifications: events of the whole team, not anybody's own notices. */
export const WALL_EVENT_KINDS = [
  'critical_vulnerability',
  'kev_match',
  'task_failed',
] as const satisfies readonly NotificationKind[];
/** A manager's message to everyone: one event, so one dedupe key shared by all its rows. */
export const BROADCAST_KEY_PREFIX = 'broadcast:';
/** How far back a wall's events go. */
export const WALL_EVENTS_DAYS = 30;

export interface WallEvent {
  id: number;
  kind: (typeof WALL_EVENT_KINDS)[number] | 'manual';
  level: NotificationLevel;
  title: string;
  link: string | null;
  createdAt: Date;
}

/** A notification with the name of its tenant, as the presenter needs it. */
export interface NotificationView extends NotificationRow {
  tenantName: string;
}

export interface NewNotification {
  userId: number;
  kind: NotificationKind;
  level: NotificationLevel;
  title: string;
  body: string;
  link: string | null;
  dedupeKey: string | null;
  createdBy: number | null;
}

/** Who should receive a notification in the current tenant; the selections add up. */
export interface Audience {
  /** Members holding one of these roles. */
  roles?: readonly MembershipRole[];
  /** These accounts (null and undefined ignored). */
  users?: readonly (number | null | undefined)[];
  /** Every member. */
  everyone?: boolean;
  /** Superusers and staff whose default tenant is the current one. */
  platformStaff?: boolean;
}

export interface Recipient {
  id: number;
  email: string;
  username: string;
  firstName: string;
}

export interface OverdueFinding {
  id: number;
  title: string;
  cveId: string | null;
  dueDate: string;
  assigneeId: number;
}

export interface OverdueItem {
  type: 'task' | 'action';
  id: number;
  title: string;
  dueDate: string;
  assigneeId: number;
  projectId: number;
  projectName: string;
}

// Row-level security already confines every table; naming the tenant again lets the planner use the tenant indexes.
const current = sql`app_current_tenant()`;
const inTenant = eq(notifications.tenantId, current);

const viewColumns = { notification: notifications, tenantName: tenants.name };
const flatten = (r: { notification: NotificationRow; tenantName: string }): NotificationView => ({
  ...r.notification,
  tenantName: r.tenantName,
});

/** One notification by id, whatever its tenant (the owner connection: the cross-process bus reads it). */
export async function notificationView(db: Db, id: number): Promise<NotificationView | undefined> {
  const [row] = await db
    .select(viewColumns)
    .from(notifications)
    .innerJoin(tenants, eq(tenants.id, notifications.tenantId))
    .where(eq(notifications.id, id));
  return row && flatten(row);
}

/**
 * Notifications of the current tenant (the caller's transaction, row-level security). Every read and mark names
 * the recipient: a user only ever sees or changes their own.
 */
export class NotificationsRepository {
  /** Newest first; `count` is every matching row, `unread` every unread row of the recipient here. */
  async page(
    tx: TenantDb,
    userId: number,
    opts: { unreadOnly: boolean; limit: number; offset: number },
  ): Promise<{ rows: NotificationView[]; count: number; unread: number }> {
    const mine = and(inTenant, eq(notifications.userId, userId));
    const counted = (what: SQL) => tx.select({ n: what }).from(notifications).where(mine);
    const all = counted(sql`count(*)::int`);
    const unread = counted(sql`(count(*) filter (where not ${notifications.read}))::int`);
    // The totals ride on the rows (one round trip); a page past the end reads them alone.
    const rows = await tx
      .select({ ...viewColumns, all: sql<number>`(${all})`, unread: sql<number>`(${unread})` })
      .from(notifications)
      .innerJoin(tenants, eq(tenants.id, notifications.tenantId))
      .where(opts.unreadOnly ? and(mine, eq(notifications.read, false)) : mine)
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(opts.limit)
      .offset(opts.offset);
    const totals =
      rows[0] ??
      rowsOf<{ all: number; unread: number }>(await tx.execute(sql`select (${all}) as all, (${unread}) as unread`))[0];
    const count = { all: Number(totals?.all ?? 0), unread: Number(totals?.unread ?? 0) };
    return {
      rows: rows.map(({ all: _all, unread: _unread, ...row }) => flatten(row)),
      count: opts.unreadOnly ? count.unread : count.all,
      unread: count.unread,
    };
  }

  async unreadCount(tx: TenantDb, userId: number): Promise<number> {
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(notifications)
      .where(and(inTenant, eq(notifications.userId, userId), eq(notifications.read, false)));
    return row?.n ?? 0;
  }

  /** Marks one of the recipient's notifications read; undefined when it is not theirs (or not here). */
  async markRead(tx: TenantDb, userId: number, id: number): Promise<{ changed: boolean } | undefined> {
    const mine = and(inTenant, eq(notifications.userId, userId), eq(notifications.id, id));
    const changed = await tx
      .update(notifications)
      .set({ read: true, readAt: sql`now()` })
      .where(and(mine, eq(notifications.read, false)))
      .returning({ id: notifications.id });
    if (changed.length > 0) return { changed: true };
    const [found] = await tx.select({ id: notifications.id }).from(notifications).where(mine);
    return found ? { changed: false } : undefined;
  }

  /** Marks every unread notification of the recipient read; returns how many changed. */
  async markAllRead(tx: TenantDb, userId: number): Promise<number> {
    const rows = await tx
      .update(notifications)
      .set({ read: true, readAt: sql`now()` })
      .where(and(inTenant, eq(notifications.userId, userId), eq(notifications.read, false)))
      .returning({ id: notifications.id });
    return rows.length;
  }

  /** Adds notifications; one already sent for the same (recipient, dedupe key) is skipped. Returns the new rows. */
  async insert(tx: TenantDb, rows: readonly NewNotification[]): Promise<NotificationRow[]> {
    if (rows.length === 0) return [];
    return tx
      .insert(notifications)
      .values(rows.map((r) => ({ ...r, tenantId: current })))
      .onConflictDoNothing({ target: [notifications.tenantId, notifications.userId, notifications.dedupeKey] })
      .returning();
  }

  /** The current tenant's name (row-level security shows only this tenant). */
  /**
   * The tenant's last events for a wall (GET /api/dashboard/events/): the kinds that concern the whole team
   * (WALL_EVENT_KINDS) and managers' messages to everyone, each event once however many people received it (their
   * rows share the dedupe key), newest first, from the last WALL_EVENTS_DAYS days. Nobody's personal notices.
   */
  async wallEvents(tx: TenantDb, limit: number): Promise<WallEvent[]> {
    const rows = rowsOf<{
      id: number;
      kind: WallEvent['kind'];
      level: NotificationLevel;
      title: string;
      link: string | null;
      created_at: string | Date;
    }>(
      await tx.execute(sql`
        select id, kind, level, title, link, created_at from (
          select distinct on (${notifications.dedupeKey}) ${notifications.id} as id, ${notifications.kind} as kind,
                 ${notifications.level} as level, ${notifications.title} as title, ${notifications.link} as link,
                 ${notifications.createdAt} as created_at
            from ${notifications}
           where ${inTenant}
             and ${notifications.createdAt} > now() - make_interval(days => ${WALL_EVENTS_DAYS})
             and (${inArray(notifications.kind, [...WALL_EVENT_KINDS])}
                  or (${notifications.kind} = 'manual' and ${notifications.dedupeKey} like ${`${BROADCAST_KEY_PREFIX}%`}))
           order by ${notifications.dedupeKey}, ${notifications.createdAt}, ${notifications.id}
        ) events
        order by created_at desc, id desc
        limit ${limit}`),
    );
    return rows.map((r) => ({
      id: Number(r.id),
      kind: r.kind,
      level: r.level,
      title: r.title,
      link: r.link,
      createdAt: new Date(r.created_at),
    }));
  }

  async tenantName(tx: TenantDb): Promise<string> {
    const [row] = await tx.select({ name: tenants.name }).from(tenants).where(eq(tenants.id, current));
    return row?.name ?? '';
  }

  /** Active members of the current tenant in the audience: only they may receive a notification. */
  async recipients(tx: TenantDb, audience: Audience): Promise<Recipient[]> {
    const ids = (audience.users ?? []).filter(
      (id): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id > 0 && id <= INT4_MAX,
    );
    const wanted: SQL[] = [];
    if (audience.everyone) wanted.push(sql`true`);
    if (audience.roles && audience.roles.length > 0) wanted.push(inArray(memberships.role, [...audience.roles]));
    if (ids.length > 0) wanted.push(inArray(users.id, ids));
    if (audience.platformStaff) {
      wanted.push(and(eq(users.defaultTenantId, current), or(eq(users.isSuperuser, true), eq(users.isStaff, true)))!);
    }
    if (wanted.length === 0) return [];
    return tx
      .select({ id: users.id, email: users.email, username: users.username, firstName: users.firstName })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.tenantId, current), eq(users.isActive, true), or(...wanted)))
      .orderBy(users.id);
  }

  async projectName(tx: TenantDb, projectId: number): Promise<string | undefined> {
    const [row] = await tx
      .select({ name: projects.name })
      .from(projects)
      .where(and(eq(projects.tenantId, current), eq(projects.id, projectId)));
    return row?.name;
  }

  /** How many open findings of the current tenant name each of these CVEs (CVEs without any are absent). */
  async openFindingsByCve(tx: TenantDb, cveIds: readonly string[]): Promise<{ cveId: string; n: number }[]> {
    if (cveIds.length === 0) return [];
    const rows = await tx
      .select({ cveId: vulnerabilities.cveId, n: sql<number>`count(*)::int` })
      .from(vulnerabilities)
      .where(
        and(
          eq(vulnerabilities.tenantId, current),
          inArray(vulnerabilities.cveId, [...cveIds]),
          eq(vulnerabilities.isResolved, false),
        ),
      )
      .groupBy(vulnerabilities.cveId)
      .orderBy(vulnerabilities.cveId);
    return rows.flatMap((r) => (r.cveId ? [{ cveId: r.cveId, n: r.n }] : []));
  }

  /** Assigned tasks and corrective actions due before `today` (YYYY-MM-DD) and not finished. */
  /**
   * Assigned open findings past their due date (issue 21), oldest deadline first and at most `limit` a run: the
   * reminders of the rest go on the next runs (each is sent once per due date).
   */
  async overdueFindings(tx: TenantDb, today: string, limit = 1000): Promise<OverdueFinding[]> {
    const v = vulnerabilities;
    const rows = await tx
      .select({ id: v.id, title: v.title, cveId: v.cveId, dueDate: v.dueDate, assigneeId: v.assigneeId })
      .from(v)
      .where(
        and(
          eq(v.tenantId, current),
          sql`not ${v.isResolved}`,
          isNotNull(v.assigneeId),
          sql`${v.dueDate} < ${today}::date`,
          // Not told already for this due date.
          sql`not exists (select 1 from ${notifications} n where n.tenant_id = ${v.tenantId}
                and n.user_id = ${v.assigneeId}
                and n.dedupe_key = 'overdue:finding:' || ${v.id} || ':' || ${v.dueDate}::text)`,
        ),
      )
      .orderBy(v.dueDate, v.id)
      .limit(limit);
    return rows.flatMap((r) =>
      r.dueDate !== null && r.assigneeId !== null ? [{ ...r, dueDate: r.dueDate, assigneeId: r.assigneeId }] : [],
    );
  }

  async overdueAssignments(tx: TenantDb, today: string): Promise<OverdueItem[]> {
    const columns = <T extends WorkTable>(work: T) => ({
      ...dueWork(work),
      assigneeId: work.assigneeId,
      projectId: projects.id,
      projectName: projects.name,
    });
    const due = (work: WorkTable) =>
      and(eq(work.tenantId, current), isNotNull(work.assigneeId), ...unfinishedBefore(work, today));
    const tasks = await tx
      .select(columns(projectTasks))
      .from(projectTasks)
      .innerJoin(projects, taskProject)
      .where(due(projectTasks))
      .orderBy(projectTasks.id);
    const actions = await tx
      .select(columns(correctiveActions))
      .from(correctiveActions)
      .innerJoin(remediationPlans, actionPlan)
      .innerJoin(risks, planRisk)
      .innerJoin(projects, riskProject)
      .where(due(correctiveActions))
      .orderBy(correctiveActions.id);
    const item =
      (type: OverdueItem['type']) =>
      (
        r: { id: number; title: string; dueDate: string | null; assigneeId: number | null } & Pick<
          OverdueItem,
          'projectId' | 'projectName'
        >,
      ): OverdueItem[] =>
        r.dueDate !== null && r.assigneeId !== null
          ? [{ ...r, type, dueDate: r.dueDate, assigneeId: r.assigneeId }]
          : [];
    return [...tasks.flatMap(item('task')), ...actions.flatMap(item('action'))];
  }
}
