import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../server/src/db/client.ts';
import {
  assets,
  auditEvents,
  memberships,
  projectMembers,
  projects,
  scans,
  tenants,
  threats,
  users,
  vulnerabilities,
  type MembershipRole,
  type TeamRole,
} from '../../../server/src/db/schema.ts';
import { hashPassword } from '../../../server/src/lib/password.ts';
import { TEST_PASSWORD } from '../helpers.ts';

// The demo seed every test app starts from: two tenants and four users (password TEST_PASSWORD).
//   Acme Sécurité (acme-securite.fr):   admin (admin), manager (manager), analyste (user)
//   Banque Horizon (banque-horizon.fr): admin (admin), manager (manager), lecteur (readonly)
// admin is also a superuser, manager is staff. Factories below add what a suite needs on top.

export const ACME = 'Acme Sécurité';
export const HORIZON = 'Banque Horizon';
export type TenantName = typeof ACME | typeof HORIZON;

/** The ids of the seeded tenants. */
export async function seededTenants(db: Db): Promise<{ acme: string; horizon: string }> {
  const rows = await db.select({ id: tenants.id, name: tenants.name }).from(tenants);
  const id = (name: TenantName) => rows.find((r) => r.name === name)!.id;
  return { acme: id(ACME), horizon: id(HORIZON) };
}

/** Every user's id by username. */
export async function userIdsOf(db: Db): Promise<Map<string, number>> {
  return new Map(
    (await db.select({ id: users.id, username: users.username }).from(users)).map((r) => [r.username, r.id]),
  );
}

/** One user's id. */
export async function userIdOf(db: Db, username: string): Promise<number> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.username, username));
  if (!row) throw new Error(`no user ${username}`);
  return row.id;
}

let passwordHash: Promise<string> | undefined;
/** The hash of TEST_PASSWORD, computed once per worker. */
export const testPasswordHash = () => (passwordHash ??= hashPassword(TEST_PASSWORD));

/** A tenant id and the user's role in it. */
export type Membership = readonly [tenantId: string, role: MembershipRole];

export interface NewUser {
  /** Default: username@ the domain of the user's first tenant (exemple.fr when they have none). */
  email?: string;
  firstName?: string;
  lastName?: string;
  active?: boolean;
  superuser?: boolean;
  staff?: boolean;
}

/**
 * A user who signs in with TEST_PASSWORD and holds these roles (the first tenant is their default one).
 * Returns their id.
 */
export async function addUser(
  db: Db,
  username: string,
  roles: Membership | readonly Membership[],
  opts: NewUser = {},
): Promise<number> {
  const list: readonly Membership[] = typeof roles[0] === 'string' ? [roles as Membership] : (roles as Membership[]);
  const home = list[0]?.[0];
  let email = opts.email;
  if (email === undefined) {
    const [tenant] = home ? await db.select({ domain: tenants.domain }).from(tenants).where(eq(tenants.id, home)) : [];
    email = `${username}@${tenant?.domain ?? 'exemple.fr'}`;
  }
  const [row] = await db
    .insert(users)
    .values({
      username,
      email,
      passwordHash: await testPasswordHash(),
      ...(opts.firstName !== undefined ? { firstName: opts.firstName } : {}),
      ...(opts.lastName !== undefined ? { lastName: opts.lastName } : {}),
      ...(opts.active !== undefined ? { isActive: opts.active } : {}),
      ...(opts.superuser !== undefined ? { isSuperuser: opts.superuser } : {}),
      ...(opts.staff !== undefined ? { isStaff: opts.staff } : {}),
      defaultTenantId: home ?? null,
    })
    .returning({ id: users.id });
  for (const [tenantId, role] of list) await db.insert(memberships).values({ tenantId, userId: row!.id, role });
  return row!.id;
}

export type NewProject = Omit<typeof projects.$inferInsert, 'tenantId' | 'name' | 'ownerId'> & {
  /** The owner's username. */
  owner?: string;
  /** The team: each member's username and role, in this order. */
  team?: Readonly<Record<string, TeamRole>>;
};

/** A project of the tenant with its owner and team, written directly (the projects API is tested elsewhere). */
export async function addProject(db: Db, tenantId: string, name: string, opts: NewProject = {}): Promise<number> {
  const { owner, team = {}, ...values } = opts;
  const usernames = [...(owner !== undefined ? [owner] : []), ...Object.keys(team)];
  const ids = new Map(
    usernames.length
      ? (
          await db
            .select({ id: users.id, username: users.username })
            .from(users)
            .where(inArray(users.username, usernames))
        ).map((r) => [r.username, r.id])
      : [],
  );
  const idOf = (username: string) => {
    const id = ids.get(username);
    if (id === undefined) throw new Error(`no user ${username}`);
    return id;
  };
  const [row] = await db
    .insert(projects)
    .values({ tenantId, name, ...(owner !== undefined ? { ownerId: idOf(owner) } : {}), ...values })
    .returning({ id: projects.id });
  for (const [username, role] of Object.entries(team)) {
    await db.insert(projectMembers).values({ tenantId, projectId: row!.id, userId: idOf(username), role });
  }
  return row!.id;
}

/** An asset, as its row. */
export async function addAsset(db: Db, values: typeof assets.$inferInsert) {
  const [row] = await db.insert(assets).values(values).returning();
  return row!;
}

let findingKeys = 0;
/** A finding (vulnerability), as its row; its finding key is unique unless given. */
export async function addFinding(
  db: Db,
  values: Omit<typeof vulnerabilities.$inferInsert, 'findingKey'> & { findingKey?: string },
) {
  const [row] = await db
    .insert(vulnerabilities)
    .values({ findingKey: `test:${process.pid}:${++findingKeys}`, ...values })
    .returning();
  return row!;
}

/** A threat, as its row. */
export async function addThreat(db: Db, values: typeof threats.$inferInsert) {
  const [row] = await db.insert(threats).values(values).returning();
  return row!;
}

/** A scan, as its row. */
export async function addScan(db: Db, values: typeof scans.$inferInsert) {
  const [row] = await db.insert(scans).values(values).returning();
  return row!;
}

/** A tenant, as its row. */
export async function addTenant(db: Db, values: typeof tenants.$inferInsert) {
  const [row] = await db.insert(tenants).values(values).returning();
  return row!;
}

/** Columns of an audit event to match, all of them. */
export interface AuditFilter {
  eventType?: string;
  username?: string;
  userId?: number;
  description?: string;
}

/** The audit events matching the filter (the newest first, and at most `limit`, when asked). */
export function auditEventsOf(db: Db, filter: AuditFilter, opts: { newestFirst?: boolean; limit?: number } = {}) {
  const where = and(
    filter.eventType !== undefined ? eq(auditEvents.eventType, filter.eventType) : undefined,
    filter.username !== undefined ? eq(auditEvents.username, filter.username) : undefined,
    filter.userId !== undefined ? eq(auditEvents.userId, filter.userId) : undefined,
    filter.description !== undefined ? eq(auditEvents.description, filter.description) : undefined,
  );
  let query = db.select().from(auditEvents).where(where).$dynamic();
  if (opts.newestFirst) query = query.orderBy(desc(auditEvents.id));
  if (opts.limit !== undefined) query = query.limit(opts.limit);
  return query;
}
