import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { refreshTokens, type users } from '../db/schema.ts';
import { ACCESS_TOKEN_TTL_S, REFRESH_TOKEN_TTL_S, TokenError, type TokenService } from '../lib/tokens.ts';

type UserRow = typeof users.$inferSelect;

export interface IssuedTokens {
  access: string;
  refresh: string;
  expires_in: number;
  familyId: string;
}

export type RotateResult =
  | { ok: true; tokens: IssuedTokens; userId: number }
  | { ok: false; reason: 'invalid' | 'revoked' | 'reused'; userId?: number; familyId?: string };

/** Sign-in sessions as refresh-token families: issue, rotate with reuse detection, revoke. */
export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
  ) {}

  /**
   * `refreshTtlS` is the security policy's session lifetime; the access token never outlives it, so a short
   * session really ends on time.
   */
  async issue(
    user: UserRow,
    familyId: string = randomUUID(),
    refreshTtlS: number = REFRESH_TOKEN_TTL_S,
  ): Promise<IssuedTokens> {
    const jti = randomUUID();
    const accessTtlS = Math.min(ACCESS_TOKEN_TTL_S, refreshTtlS);
    await this.db.insert(refreshTokens).values({
      jti,
      familyId,
      userId: user.id,
      expiresAt: new Date(Date.now() + refreshTtlS * 1000),
    });
    const [access, refresh] = await Promise.all([
      this.tokens.signAccess(
        {
          sub: String(user.id),
          username: user.username,
          is_staff: user.isStaff,
          is_superuser: user.isSuperuser,
          sid: familyId,
        },
        accessTtlS,
      ),
      this.tokens.signRefresh({ sub: String(user.id), jti, fam: familyId }, refreshTtlS),
    ]);
    return { access, refresh, expires_in: accessTtlS, familyId };
  }

  /**
   * Exchanges a refresh token for a new pair in the same family. A token can be used once: presenting
   * it again means it was copied, so the whole family is revoked and the caller must sign in again.
   */
  async rotate(
    refreshToken: string,
    loadUser: (id: number) => Promise<UserRow | undefined>,
    refreshTtlS: number = REFRESH_TOKEN_TTL_S,
  ): Promise<RotateResult> {
    let claims;
    try {
      claims = await this.tokens.verifyRefresh(refreshToken);
    } catch (err) {
      if (err instanceof TokenError) return { ok: false, reason: 'invalid' };
      throw err;
    }
    const [row] = await this.db.select().from(refreshTokens).where(eq(refreshTokens.jti, claims.jti)).limit(1);
    if (!row || row.familyId !== claims.fam || String(row.userId) !== claims.sub)
      return { ok: false, reason: 'invalid' };
    if (row.revokedAt) return { ok: false, reason: 'revoked', userId: row.userId, familyId: row.familyId };

    // Claim the token atomically: of two concurrent uses, exactly one wins.
    const claimed = await this.db
      .update(refreshTokens)
      .set({ usedAt: new Date() })
      .where(and(eq(refreshTokens.jti, row.jti), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
      .returning({ jti: refreshTokens.jti });
    if (claimed.length === 0) {
      await this.revokeFamily(row.familyId, 'reuse');
      return { ok: false, reason: 'reused', userId: row.userId, familyId: row.familyId };
    }
    const user = await loadUser(row.userId);
    if (!user || !user.isActive) {
      await this.revokeFamily(row.familyId, 'inactive');
      return { ok: false, reason: 'revoked', userId: row.userId };
    }
    return { ok: true, tokens: await this.issue(user, row.familyId, refreshTtlS), userId: user.id };
  }

  async revokeFamily(familyId: string, reason: string): Promise<void> {
    await this.db
      .update(refreshTokens)
      .set({ revokedAt: new Date(), revokedReason: reason })
      .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)));
  }

  /** The family a refresh token names, if its signature holds (expired or used tokens still name one). */
  async familyOf(refreshToken: string): Promise<string | undefined> {
    try {
      return (await this.tokens.verifyRefresh(refreshToken)).fam;
    } catch {
      return undefined;
    }
  }

  async revokeAllOf(userId: number, reason: string): Promise<void> {
    await this.db
      .update(refreshTokens)
      .set({ revokedAt: new Date(), revokedReason: reason })
      .where(and(eq(refreshTokens.userId, userId), isNull(refreshTokens.revokedAt)));
  }
}
