import type { Db } from '../db/client.ts';
import { loginLockoutRepo } from '../repositories/attempts.ts';

/**
 * Account lock-out after consecutive failed sign-ins (docs/api-admin.md "Security policies"), kept in the
 * database so every server process counts the same failures and a restart forgets nothing. Only failures in a
 * row count; a successful sign-in or a password reset clears them.
 */
export class LoginLockout {
  // Date.now is looked up at each call, so tests with a mocked clock see it.
  constructor(
    private readonly db: Db,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Seconds left on the account's lock, or 0 when it may try. */
  async lockedFor(key: string): Promise<number> {
    const until = await loginLockoutRepo.lockedUntil(this.db, key);
    if (!until) return 0;
    const left = until.getTime() - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Counts one failure; true when it reaches the threshold and the account is now locked. */
  async fail(key: string, threshold: number, lockMinutes: number): Promise<boolean> {
    const now = this.now();
    const until = new Date(now + lockMinutes * 60_000);
    const { failures } = await loginLockoutRepo.fail(this.db, key, threshold, until, new Date(now));
    return failures >= threshold;
  }

  clear(key: string): Promise<void> {
    return loginLockoutRepo.clear(this.db, key);
  }
}

/**
 * An existing account is counted by id (whatever name it signs in with), an unknown name by itself: a lock
 * then looks the same whether or not the account exists.
 */
export function lockoutKey(userId: number | undefined, login: string): string {
  return userId !== undefined ? `user:${userId}` : `login:${login.trim().toLowerCase()}`;
}
