import { and, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { memberships, refreshTokens, tenants, users, type MembershipRole } from '../db/schema.ts';

export type UserRow = typeof users.$inferSelect;

export interface MembershipView {
  tenantId: string;
  tenantName: string;
  role: MembershipRole;
}

/**
 * Accounts are global; tenant-owned data is reached only through memberships,
 * which this repository returns for the user it is given.
 */
export class UsersRepository {
  constructor(private readonly db: Db) {}

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
  async sessionRevoked(familyId: string): Promise<boolean> {
    const [row] = await this.db
      .select({ jti: refreshTokens.jti })
      .from(refreshTokens)
      .where(and(eq(refreshTokens.familyId, familyId), isNotNull(refreshTokens.revokedAt)))
      .limit(1);
    return row !== undefined;
  }

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
