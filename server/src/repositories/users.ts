import { and, eq, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import {
  memberships,
  PLATFORM_WRITES,
  refreshTokens,
  tenants,
  tenantWrites,
  users,
  type MembershipRole,
} from '../db/schema.ts';

export type UserRow = typeof users.$inferSelect;

export interface MembershipView {
  tenantId: string;
  tenantName: string;
  role: MembershipRole;
}

type MembershipRow = MembershipView & { version: number | string };

/** The data versions read with the signed-in state: per member tenant, and the platform's. */
export interface DataVersions {
  tenants: Map<string, number>;
  platform: number;
}

export interface SignedInState {
  user: UserRow;
  revoked: boolean;
  memberships: MembershipView[];
  versions: DataVersions;
}

/**
 * Accounts are global; tenant-owned data is reached only through memberships,
 * which this repository returns for the user it is given.
 */
export class UsersRepository {
  constructor(private readonly db: Db) {}

  /**
   * signedInState's statement, built once: it runs on every authenticated call, and building it each time cost more
   * than the query. Unnamed (the name is empty): no server-side prepared statement, so a transaction-mode pooler in
   * front of PostgreSQL stays correct.
   */
  #signedIn: ReturnType<UsersRepository['buildSignedInQuery']> | undefined;
  #signedInQuery() {
    return (this.#signedIn ??= this.buildSignedInQuery());
  }

  private buildSignedInQuery() {
    const sessionId = sql.placeholder('sessionId');
    const versionOf = (tenant: SQL) =>
      sql`coalesce((select max(w.seq) from ${tenantWrites} w where w.tenant_id = ${tenant}), 0)`;
    return this.db
      .select({
        user: users,
        revoked: sql<boolean>`exists (select 1 from ${refreshTokens} where ${refreshTokens.familyId} = ${sessionId} and ${refreshTokens.revokedAt} is not null)`,
        memberships: sql<MembershipRow[] | string>`coalesce((
          select json_agg(json_build_object('tenantId', m.tenant_id, 'tenantName', t.name, 'role', m.role,
                                            'version', ${versionOf(sql`m.tenant_id`)})
                          order by t.name)
            from ${memberships} m join ${tenants} t on t.id = m.tenant_id
           where m.user_id = "users"."id" and t.status = 'active' and t.deleted_at is null), '[]'::json)`,
        platformVersion: sql<string>`${versionOf(sql`${PLATFORM_WRITES}::uuid`)}::text`,
      })
      .from(users)
      .where(eq(users.id, sql.placeholder('userId')))
      .limit(1)
      .prepare('');
  }

  async findByLogin(identifier: string): Promise<UserRow | undefined> {
    const lowered = identifier.trim().toLowerCase();
    const [row] = await this.db
      .select()
      .from(users)
      .where(or(sql`lower(${users.username}) = ${lowered}`, sql`lower(${users.email}) = ${lowered}`))
      .limit(1);
    return row;
  }

  async findById(id: number): Promise<UserRow | undefined> {
    const [row] = await this.db.select().from(users).where(eq(users.id, id)).limit(1);
    return row;
  }

  /**
   * What every authenticated request reads, in one round trip: the user, whether the token's session was revoked,
   * the memberships of membershipsOf(), and the data versions (migration 0019) of those tenants and of the platform,
   * which cached answers are checked against. Undefined when the user is gone.
   */
  async signedInState(userId: number, sessionId: string | undefined): Promise<SignedInState | undefined> {
    const [row] = await this.#signedInQuery().execute({ userId, sessionId: sessionId ?? null });
    if (!row) return undefined;
    const list =
      typeof row.memberships === 'string' ? (JSON.parse(row.memberships) as MembershipRow[]) : row.memberships;
    return {
      user: row.user,
      revoked: Boolean(row.revoked),
      memberships: list.map(({ tenantId, tenantName, role }) => ({ tenantId, tenantName, role })),
      versions: {
        tenants: new Map(list.map((m) => [m.tenantId, Number(m.version)])),
        platform: Number(row.platformVersion),
      },
    };
  }

  async membershipsOf(userId: number): Promise<MembershipView[]> {
    // A suspended or soft-deleted tenant is closed to its members (docs/api-admin.md "Tenants").
    return this.db
      .select({ tenantId: memberships.tenantId, tenantName: tenants.name, role: memberships.role })
      .from(memberships)
      .innerJoin(tenants, eq(tenants.id, memberships.tenantId))
      .where(and(eq(memberships.userId, userId), eq(tenants.status, 'active'), isNull(tenants.deletedAt)))
      .orderBy(tenants.name);
  }

  /** A tenant by id when it is active and not deleted (superusers may act in any such tenant). */
  async activeTenant(id: string): Promise<{ id: string; name: string } | undefined> {
    const [row] = await this.db
      .select({ id: tenants.id, name: tenants.name })
      .from(tenants)
      .where(and(eq(tenants.id, id), eq(tenants.status, 'active'), isNull(tenants.deletedAt)))
      .limit(1);
    return row;
  }

  /** True once the sign-in session (refresh family) was revoked: logout, reuse, password reset. */
  async touchLastLogin(userId: number): Promise<void> {
    await this.db.update(users).set({ lastLogin: new Date() }).where(eq(users.id, userId));
  }
}

/** Every sealed TOTP secret re-sealed by `reseal` (a key rotation), in the caller's transaction. */
export async function resealTotpSecrets(tx: Db, reseal: (sealed: string) => string): Promise<number> {
  const rows = await tx
    .select({ id: users.id, totpSecret: users.totpSecret })
    .from(users)
    .where(isNotNull(users.totpSecret));
  for (const row of rows) {
    await tx
      .update(users)
      .set({ totpSecret: reseal(row.totpSecret!) })
      .where(eq(users.id, row.id));
  }
  return rows.length;
}
