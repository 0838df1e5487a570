import { and, asc, count, eq, ilike, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { withTenant, type TenantDb, type TenantId } from '../db/tenant-scope.ts';
import { memberships, users, type MembershipRole } from '../db/schema.ts';
import { INT4_MAX } from '../db/schema/columns.ts';
import type { PasswordRules } from '../domain/security-policy.ts';
import { SecurityPolicyStore } from './security-policies.ts';

/** A member of the current tenant as user administration sees it: never the password hash or TOTP seed. */
export interface TenantUserRow {
  id: number;
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  isActive: boolean;
  isStaff: boolean;
  isSuperuser: boolean;
  dateJoined: Date;
  lastLogin: Date | null;
  defaultTenantId: string | null;
  role: MembershipRole;
}

export type AccountChanges = Partial<
  Pick<TenantUserRow, 'firstName' | 'lastName' | 'email' | 'isActive' | 'isStaff' | 'isSuperuser'>
>;

const memberColumns = {
  id: users.id,
  username: users.username,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  isActive: users.isActive,
  isStaff: users.isStaff,
  isSuperuser: users.isSuperuser,
  dateJoined: users.dateJoined,
  lastLogin: users.lastLogin,
  defaultTenantId: users.defaultTenantId,
  role: memberships.role,
};

// Row-level security already confines both tables; naming the tenant again keeps the join exact.
const inCurrentTenant = eq(memberships.tenantId, sql`app_current_tenant()`);
/** A member who may act on the tenant's data: active, and more than read-only. */
const mayBeAssigned = and(ne(memberships.role, 'readonly'), eq(users.isActive, true));

/** LIKE pattern matching `text` anywhere, with the user's own % _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Members of the current tenant. Every method takes a TenantDb (request.tenantDb), so the database
 * itself hides other tenants' members even if a condition here were wrong.
 */
export class TenantUsersRepository {
  /** Active members who may act on the tenant's data (not read-only): whom a finding may be assigned to. */
  async assignable(tx: TenantDb): Promise<Pick<TenantUserRow, 'id' | 'username' | 'firstName' | 'lastName'>[]> {
    return tx
      .select({ id: users.id, username: users.username, firstName: users.firstName, lastName: users.lastName })
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id))
      .where(and(inCurrentTenant, mayBeAssigned))
      .orderBy(asc(users.username), asc(users.id));
  }

  /** Is `userId` one of assignable()'s people? */
  async isAssignable(tx: TenantDb, userId: number): Promise<boolean> {
    if (userId > INT4_MAX) return false;
    const rows = await tx
      .select({ id: users.id })
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id))
      .where(and(inCurrentTenant, mayBeAssigned, eq(users.id, userId)))
      .limit(1);
    return rows.length > 0;
  }

  async page(
    tx: TenantDb,
    opts: { search?: string | undefined; limit: number; offset: number },
  ): Promise<{ count: number; rows: TenantUserRow[] }> {
    const conditions: SQL[] = [inCurrentTenant];
    if (opts.search) {
      const p = containsPattern(opts.search);
      conditions.push(
        or(ilike(users.username, p), ilike(users.email, p), ilike(users.firstName, p), ilike(users.lastName, p))!,
      );
    }
    const where = and(...conditions);
    const [total] = await tx
      .select({ n: count() })
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id))
      .where(where);
    const rows = await tx
      .select(memberColumns)
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id))
      .where(where)
      .orderBy(asc(users.username), asc(users.id))
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: total?.n ?? 0, rows };
  }

  async findMember(tx: TenantDb, userId: number): Promise<TenantUserRow | undefined> {
    const [row] = await tx
      .select(memberColumns)
      .from(users)
      .innerJoin(memberships, eq(memberships.userId, users.id))
      .where(and(inCurrentTenant, eq(users.id, userId)))
      .limit(1);
    return row;
  }

  async addMembership(tx: TenantDb, userId: number, role: MembershipRole): Promise<void> {
    await tx.insert(memberships).values({ tenantId: sql`app_current_tenant()`, userId, role });
  }

  async setRole(tx: TenantDb, userId: number, role: MembershipRole): Promise<void> {
    await tx
      .update(memberships)
      .set({ role })
      .where(and(inCurrentTenant, eq(memberships.userId, userId)));
  }

  /** Account fields are global; RLS only lets this touch an account that is a member here. */
  async updateAccount(tx: TenantDb, userId: number, changes: AccountChanges): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await tx.update(users).set(changes).where(eq(users.id, userId));
  }

  async removeMembership(tx: TenantDb, userId: number): Promise<boolean> {
    const removed = await tx
      .delete(memberships)
      .where(and(inCurrentTenant, eq(memberships.userId, userId)))
      .returning({ userId: memberships.userId });
    return removed.length > 0;
  }
}

export interface NewAccount {
  username: string;
  email: string;
  passwordHash: string;
  firstName: string;
  lastName: string;
  isActive: boolean;
  isStaff: boolean;
  isSuperuser: boolean;
}

/**
 * The few user-administration questions that must see past the current tenant, on the platform
 * connection: global uniqueness, creating an account (RLS hides an account until its membership
 * exists, so it cannot be inserted from a tenant scope), and removing an account left with no tenant.
 * None of these returns another tenant's data, only yes/no answers.
 */
export class PlatformAccounts {
  constructor(
    private readonly db: Db,
    private readonly members = new TenantUsersRepository(),
  ) {}

  /**
   * Whether the username or email is already used, case-insensitively and across both columns
   * (sign-in accepts either, so a username equal to someone's email would be ambiguous).
   */
  async taken(
    wanted: { username?: string; email?: string },
    exceptUserId?: number,
  ): Promise<{ username: boolean; email: boolean }> {
    const values = [wanted.username, wanted.email].filter((v): v is string => !!v).map((v) => v.toLowerCase());
    if (values.length === 0) return { username: false, email: false };
    const list = sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    );
    const rows = await this.db
      .select({ u: sql<string>`lower(${users.username})`, e: sql<string>`lower(${users.email})` })
      .from(users)
      .where(
        and(
          or(sql`lower(${users.username}) in (${list})`, sql`lower(${users.email}) in (${list})`),
          exceptUserId !== undefined ? ne(users.id, exceptUserId) : undefined,
        ),
      );
    const hit = (v: string | undefined) => !!v && rows.some((r) => r.u === v.toLowerCase() || r.e === v.toLowerCase());
    return { username: hit(wanted.username), email: hit(wanted.email) };
  }

  /** Creates the account and its membership in one transaction; the membership is written under RLS. */
  async createMember(tenantId: TenantId, account: NewAccount, role: MembershipRole): Promise<TenantUserRow> {
    return this.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(users)
        .values({ ...account, defaultTenantId: tenantId })
        .returning({ id: users.id });
      // A savepoint scoped to the tenant: RLS checks the membership and re-reads the new member.
      return withTenant(tx, tenantId, async (scoped) => {
        await this.members.addMembership(scoped, created!.id, role);
        return (await this.members.findMember(scoped, created!.id))!;
      });
    });
  }

  /** Whether the account also belongs to a tenant other than `tenantId` (its account fields are shared). */
  async belongsElsewhere(userId: number, tenantId: TenantId): Promise<boolean> {
    const [row] = await this.db
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.userId, userId), ne(memberships.tenantId, tenantId)))
      .limit(1);
    return !!row;
  }

  /** Deletes the account if no membership is left; one statement, so a concurrent invitation wins. */
  async deleteIfOrphan(userId: number): Promise<boolean> {
    const deleted = await this.db
      .delete(users)
      .where(
        and(
          eq(users.id, userId),
          sql`not exists (select 1 from ${memberships} where ${memberships.userId} = ${userId})`,
        ),
      )
      .returning({ id: users.id });
    return deleted.length > 0;
  }

  /** The security policy's password rules, read fresh so a change applies to the next account. */
  async passwordRules(): Promise<PasswordRules> {
    return SecurityPolicyStore.of(this.db).get();
  }
}

/** The unique constraint a failed insert/update ran into, if that is why it failed. */
export function uniqueViolation(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown };
    if (code === '23505') return typeof constraint === 'string' ? constraint : '';
  }
  return undefined;
}
