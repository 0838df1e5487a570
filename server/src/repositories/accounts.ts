import { and, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import {
  emailChanges,
  memberships,
  passwordResetTokens,
  recoveryCodes,
  refreshTokens,
  users,
  type MembershipRole,
} from '../db/schema.ts';
import type { UserRow } from './users.ts';
import type { SecurityPolicy } from '../domain/security-policy.ts';
import { SecurityPolicyStore } from './security-policies.ts';

/** Registration switch and password rules come from the platform security policy. */
export type AccountPolicy = SecurityPolicy;

export interface NewAccount {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  passwordHash: string;
  isStaff: boolean;
  isSuperuser: boolean;
}

export interface ProfilePatch {
  firstName?: string;
  lastName?: string;
  email?: string;
}

/** Which unique column a concurrent insert or update collided on, if that is why it failed. */
export function uniqueViolation(err: unknown): 'email' | 'username' | undefined {
  for (let e: unknown = err; e instanceof Error || (typeof e === 'object' && e !== null);) {
    const { code, constraint, message } = e as { code?: unknown; constraint?: unknown; message?: unknown };
    if (code === '23505') {
      const text = `${typeof constraint === 'string' ? constraint : ''} ${typeof message === 'string' ? message : ''}`;
      if (text.includes('users_email_unique')) return 'email';
      if (text.includes('users_username_unique')) return 'username';
      return undefined;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Self-service account data: registration, profile, second factor, password and reset tokens.
 * Accounts are platform data, so this works on the owner connection, never a tenant-scoped one.
 */
export class AccountsRepository {
  constructor(private readonly db: Db) {}

  /** Read fresh each time, so a policy change applies to the next request. */
  async policy(): Promise<AccountPolicy> {
    return SecurityPolicyStore.of(this.db).get();
  }

  /**
   * Whether another account already answers to this name. Sign-in accepts a username or an email in
   * either letter case, so both columns are compared case-insensitively: otherwise one login could
   * match two accounts.
   */
  async loginTaken(value: string, exceptUserId?: number): Promise<boolean> {
    const lowered = value.trim().toLowerCase();
    const [row] = await this.db
      .select({ id: users.id })
      .from(users)
      .where(
        and(
          or(sql`lower(${users.username}) = ${lowered}`, sql`lower(${users.email}) = ${lowered}`),
          exceptUserId === undefined ? undefined : ne(users.id, exceptUserId),
        ),
      )
      .limit(1);
    return row !== undefined;
  }

  async findActiveByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await this.db
      .select()
      .from(users)
      .where(and(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`, eq(users.isActive, true)))
      .limit(1);
    return row;
  }

  /** Creates the account and, when given, its membership, in one transaction. */
  async create(account: NewAccount, membership?: { tenantId: string; role: MembershipRole }): Promise<UserRow> {
    return this.db.transaction(async (tx) => {
      const [user] = await tx
        .insert(users)
        .values({ ...account, defaultTenantId: membership?.tenantId ?? null })
        .returning();
      if (membership)
        await tx.insert(memberships).values({ tenantId: membership.tenantId, userId: user!.id, role: membership.role });
      return user!;
    });
  }

  async updateProfile(userId: number, patch: ProfilePatch): Promise<UserRow> {
    const [row] = await this.db.update(users).set(patch).where(eq(users.id, userId)).returning();
    return row!;
  }

  /** Stores the sealed TOTP secret (null forgets it) and whether sign-in must ask for a code. */
  /** Sets the second factor; turning it off (no secret) forgets the recovery codes in the same transaction. */
  async setTotp(userId: number, sealedSecret: string | null, enabled: boolean): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.update(users).set({ totpSecret: sealedSecret, totpEnabled: enabled }).where(eq(users.id, userId));
      if (!sealedSecret) await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    });
  }

  /** A new set of recovery code digests replaces the old one at once. */
  async replaceRecoveryCodes(userId: number, codeHashes: readonly string[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
      if (codeHashes.length > 0)
        await tx.insert(recoveryCodes).values(codeHashes.map((codeHash) => ({ userId, codeHash })));
    });
  }

  /** Spends a recovery code: true once per code (the DELETE claims it, so two sign-ins cannot both use it). */
  async spendRecoveryCode(userId: number, codeHash: string): Promise<boolean> {
    const spent = await this.db
      .delete(recoveryCodes)
      .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash)))
      .returning({ codeHash: recoveryCodes.codeHash });
    return spent.length > 0;
  }

  async recoveryCodesLeft(userId: number): Promise<number> {
    const [row] = await this.db
      .select({ n: sql<number>`count(*)::int` })
      .from(recoveryCodes)
      .where(eq(recoveryCodes.userId, userId));
    return row?.n ?? 0;
  }

  async addResetToken(userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.db.insert(passwordResetTokens).values({ tokenHash, userId, expiresAt });
  }

  /** The active account a reset token belongs to, while the token is unused and unexpired. */
  async resetTokenOwner(tokenHash: string): Promise<UserRow | undefined> {
    const [row] = await this.db
      .select({ user: users })
      .from(passwordResetTokens)
      .innerJoin(users, eq(users.id, passwordResetTokens.userId))
      .where(
        and(
          eq(passwordResetTokens.tokenHash, tokenHash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, new Date()),
          eq(users.isActive, true),
        ),
      )
      .limit(1);
    return row?.user;
  }

  /**
   * Spends the token and sets the password in one transaction; every other pending token of the
   * account and every sign-in session are invalidated with it. Claiming the token with a conditional
   * UPDATE makes it single-use even under concurrent requests. Returns false when it was no longer usable.
   */
  async resetPassword(tokenHash: string, userId: number, passwordHash: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const now = new Date();
      const claimed = await tx
        .update(passwordResetTokens)
        .set({ usedAt: now })
        .where(
          and(
            eq(passwordResetTokens.tokenHash, tokenHash),
            eq(passwordResetTokens.userId, userId),
            isNull(passwordResetTokens.usedAt),
            gt(passwordResetTokens.expiresAt, now),
          ),
        )
        .returning({ userId: passwordResetTokens.userId });
      if (claimed.length === 0) return false;
      await tx
        .update(passwordResetTokens)
        .set({ usedAt: now })
        .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
      await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
      await tx
        .update(refreshTokens)
        .set({ revokedAt: now, revokedReason: 'password_reset' })
        .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
      return true;
    });
  }

  /** A new pending e-mail change; the account's earlier ones stop working (only the last link mailed counts). */
  async addEmailChange(userId: number, tokenHash: string, newEmail: string, expiresAt: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx
        .update(emailChanges)
        .set({ usedAt: new Date() })
        .where(and(eq(emailChanges.userId, userId), isNull(emailChanges.usedAt)));
      await tx.insert(emailChanges).values({ tokenHash, userId, newEmail, expiresAt });
    });
  }

  /** The active account and the address an e-mail change token names, while it is unused and unexpired. */
  async emailChangeOf(tokenHash: string): Promise<{ user: UserRow; newEmail: string } | undefined> {
    const [row] = await this.db
      .select({ user: users, newEmail: emailChanges.newEmail })
      .from(emailChanges)
      .innerJoin(users, eq(users.id, emailChanges.userId))
      .where(
        and(
          eq(emailChanges.tokenHash, tokenHash),
          isNull(emailChanges.usedAt),
          gt(emailChanges.expiresAt, new Date()),
          eq(users.isActive, true),
        ),
      )
      .limit(1);
    return row;
  }

  /**
   * Spends the token and sets the new address in one transaction (a conditional UPDATE claims the token, so it is
   * single-use even under concurrent requests). Answers the updated account, or undefined when the token was no
   * longer usable. A unique violation (the address taken meanwhile) rolls everything back.
   */
  async confirmEmailChange(tokenHash: string, userId: number, newEmail: string): Promise<UserRow | undefined> {
    return this.db.transaction(async (tx) => {
      const now = new Date();
      const claimed = await tx
        .update(emailChanges)
        .set({ usedAt: now })
        .where(
          and(
            eq(emailChanges.tokenHash, tokenHash),
            eq(emailChanges.userId, userId),
            isNull(emailChanges.usedAt),
            gt(emailChanges.expiresAt, now),
          ),
        )
        .returning({ userId: emailChanges.userId });
      if (claimed.length === 0) return undefined;
      const [row] = await tx.update(users).set({ email: newEmail }).where(eq(users.id, userId)).returning();
      return row;
    });
  }

  /** Sets a new password and signs out every session except the one making the change. */
  async changePassword(userId: number, passwordHash: string, keepFamilyId: string | undefined): Promise<void> {
    await this.db.transaction(async (tx) => {
      const now = new Date();
      await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
      await tx
        .update(refreshTokens)
        .set({ revokedAt: now, revokedReason: 'password_change' })
        .where(
          and(
            eq(refreshTokens.userId, userId),
            isNull(refreshTokens.revokedAt),
            keepFamilyId === undefined ? undefined : ne(refreshTokens.familyId, keepFamilyId),
          ),
        );
    });
  }
}
