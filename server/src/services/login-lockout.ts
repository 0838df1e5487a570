/**
 * Account lock-out after consecutive failed sign-ins (docs/api-admin.md "Security policies"). In memory, per
 * server process: a restart forgets the counts, and with several processes each counts its own failures.
 * Only failures in a row count; a successful sign-in or a password reset clears them.
 */
export class LoginLockout {
  readonly #entries = new Map<string, { failures: number; lockedUntil: number }>();
  // Date.now is looked up at each call, so tests with a mocked clock see it.
  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Seconds left on the account's lock, or 0 when it may try. */
  lockedFor(key: string): number {
    const entry = this.#entries.get(key);
    if (!entry || entry.lockedUntil === 0) return 0;
    const left = entry.lockedUntil - this.now();
    if (left > 0) return Math.ceil(left / 1000);
    // The lock has run out: the account starts again from zero failures.
    this.#entries.delete(key);
    return 0;
  }

  /** Counts one failure; returns true when it reaches the threshold and the account is now locked. */
  fail(key: string, threshold: number, lockMinutes: number): boolean {
    const entry = this.#entries.get(key) ?? { failures: 0, lockedUntil: 0 };
    entry.failures++;
    const locked = entry.failures >= threshold;
    if (locked) entry.lockedUntil = this.now() + lockMinutes * 60_000;
    this.#entries.set(key, entry);
    if (this.#entries.size > 50_000) this.#sweep();
    return locked;
  }

  clear(key: string): void {
    this.#entries.delete(key);
  }

  // Forgets counts that never led to a lock and finished locks, oldest first, to bound memory.
  #sweep(): void {
    const t = this.now();
    for (const [k, e] of this.#entries) {
      if (e.lockedUntil <= t) this.#entries.delete(k);
      if (this.#entries.size <= 25_000) break;
    }
  }
}

/**
 * An existing account is counted by id (whatever name it signs in with), an unknown name by itself: a lock
 * then looks the same whether or not the account exists.
 */
export function lockoutKey(userId: number | undefined, login: string): string {
  return userId !== undefined ? `user:${userId}` : `login:${login.trim().toLowerCase()}`;
}
