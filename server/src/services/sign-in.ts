/**
 * Sign-in with a password (and a second factor when the account has one) under the security policy's lock-out,
 * then the session it opens, its refresh and its end (spec §7).
 */
import type { Db } from '../db/client.ts';
import { twoFactorSetupRequired, type SecurityPolicy } from '../domain/security-policy.ts';
import type { ApiError } from '../domain/errors.ts';
import { digestOf, normalRecoveryCode } from '../lib/one-time-codes.ts';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../lib/password.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { TokenError, type TokenService } from '../lib/tokens.ts';
import { AccountsRepository } from '../repositories/accounts.ts';
import { UsersRepository, type MembershipView, type UserRow } from '../repositories/users.ts';
import {
  accountLocked,
  invalidCredentials,
  invalidRefresh,
  invalidSignInOtp,
  twoFactorRequired,
} from '../schemas/token.ts';
import { lockoutKey, type LoginLockout } from './login-lockout.ts';
import { SessionService, type IssuedTokens } from './sessions.ts';
import { totpMatches } from './two-factor.ts';

/** A refused sign-in, for the audit trail. */
export interface SignInRefusal {
  user: UserRow | undefined;
  description: string;
  severity: 'WARNING' | 'ERROR';
  extra: Record<string, unknown>;
}

export interface OpenedSession {
  user: UserRow;
  memberships: MembershipView[];
  tokens: IssuedTokens;
  /** The policy wants a second factor this account lacks: the session opens, but only onto the 2FA setup. */
  setupRequired: boolean;
  /** The tenant the sign-in is audited under: the default one if still held, else the first. */
  tenantId: string | null;
}

export class SignInService {
  private readonly users: UsersRepository;
  private readonly accounts: AccountsRepository;
  readonly #sessions: SessionService;

  constructor(
    db: Db,
    private readonly tokens: TokenService,
    private readonly lockout: LoginLockout,
    private readonly secretBox: SecretBox,
  ) {
    this.users = new UsersRepository(db);
    this.accounts = new AccountsRepository(db);
    this.#sessions = new SessionService(db, tokens);
  }

  /**
   * The account `login` names, once its password (and code) are right. Every refusal but the missing code is
   * handed to `refused` (the audit trail) before it is thrown; a wrong password or code counts toward the lock-out.
   * In place of a code the account may give one of its recovery codes, spent by this sign-in (`recoveryUsed` hears of
   * it, for the audit trail).
   */
  async verify(
    login: string,
    password: string,
    otp: string | undefined,
    policy: SecurityPolicy,
    refused: (refusal: SignInRefusal) => Promise<void>,
    recoveryUsed?: (user: UserRow, left: number) => Promise<void>,
  ): Promise<UserRow> {
    const user = await this.users.findByLogin(login);
    const lockKey = lockoutKey(user?.id, login);
    const lockedFor = await this.lockout.lockedFor(lockKey);
    if (lockedFor > 0) {
      await refused({
        user,
        description: 'Connexion refusée : compte temporairement verrouillé',
        severity: 'WARNING',
        extra: { reason: 'account_locked', retry_after: lockedFor },
      });
      throw accountLocked(lockedFor);
    }
    /** Counts a failed attempt toward the lock-out, audits it, and answers the lock once it is reached. */
    const failed = async (reason: string, description: string, fallback: ApiError): Promise<never> => {
      const { lockoutThreshold, lockoutMinutes } = policy;
      const locked = await this.lockout.fail(lockKey, lockoutThreshold, lockoutMinutes);
      await refused({
        user,
        description: locked ? `${description} ; compte verrouillé ${lockoutMinutes} min` : description,
        severity: locked ? 'ERROR' : 'WARNING',
        extra: locked
          ? { reason, locked: true, lockout_threshold: lockoutThreshold, lockout_minutes: lockoutMinutes }
          : { reason },
      });
      throw locked ? accountLocked(lockoutMinutes * 60) : fallback;
    };

    // Same work whether or not the account exists, so timing does not reveal usernames.
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
    if (!user || !ok || !user.isActive) {
      const reason = !user ? 'unknown_account' : !ok ? 'wrong_password' : 'inactive_account';
      return failed(reason, 'Échec de connexion', invalidCredentials());
    }
    if (user.totpEnabled) {
      if (!otp) throw twoFactorRequired();
      if (!totpMatches(this.secretBox, user, otp)) {
        const code = normalRecoveryCode(otp);
        if (!code || !(await this.accounts.spendRecoveryCode(user.id, digestOf(code))))
          return failed('invalid_otp', 'Code de double authentification invalide', invalidSignInOtp());
        await recoveryUsed?.(user, await this.accounts.recoveryCodesLeft(user.id));
      }
    }
    return user;
  }

  /** After a successful sign-in: the lock-out forgets the account, and a session opens for the policy's lifetime. */
  async open(user: UserRow, policy: SecurityPolicy): Promise<OpenedSession> {
    await this.lockout.clear(lockoutKey(user.id, user.username));
    await this.users.touchLastLogin(user.id);
    const fresh = (await this.users.findById(user.id)) ?? user;
    const memberships = await this.users.membershipsOf(user.id);
    const tokens = await this.#sessions.issue(fresh, undefined, policy.sessionLifetimeMinutes * 60);
    return {
      user: fresh,
      memberships,
      tokens,
      setupRequired: twoFactorSetupRequired(policy, fresh, memberships),
      tenantId:
        memberships.find((m) => m.tenantId === fresh.defaultTenantId)?.tenantId ?? memberships[0]?.tenantId ?? null,
    };
  }

  /**
   * A new pair for a refresh token. A token used twice revokes its family, and `reused` hears of it (the audit
   * trail) before the 401.
   */
  async refresh(
    presented: string,
    lifetimeS: number,
    reused: (owner: { userId: number | null; tenantId: string | null; familyId?: string }) => Promise<void>,
  ): Promise<IssuedTokens> {
    const result = await this.#sessions.rotate(presented, (id) => this.users.findById(id), lifetimeS);
    if (result.ok) return result.tokens;
    if (result.reason === 'reused') {
      const { userId, familyId } = result;
      const tenantId = userId ? ((await this.users.findById(userId))?.defaultTenantId ?? null) : null;
      await reused({ userId: userId ?? null, tenantId, familyId });
    }
    throw invalidRefresh();
  }

  /**
   * Ends every session the caller names: the refresh tokens presented and the access token's own. Never fails;
   * answers the account signed out, when the access token names one.
   */
  async signOut(refreshTokens: readonly unknown[], access: string | undefined): Promise<UserRow | undefined> {
    const families = new Set<string>();
    for (const candidate of refreshTokens) {
      const family = typeof candidate === 'string' && candidate ? await this.#sessions.familyOf(candidate) : undefined;
      if (family) families.add(family);
    }
    let userId: number | undefined;
    if (access) {
      try {
        const claims = await this.tokens.verifyAccess(access);
        if (claims.sid) families.add(claims.sid);
        userId = Number(claims.sub);
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
      }
    }
    for (const family of families) await this.#sessions.revokeFamily(family, 'logout');
    return userId === undefined ? undefined : this.users.findById(userId);
  }
}
