import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { securityPolicies } from '../db/schema.ts';
import { DEFAULT_POLICY, TWO_FACTOR_ROLES, type PolicyPatch, type SecurityPolicy } from '../domain/security-policy.ts';

/**
 * Reads and writes the platform's security policies (one row). Identity decisions (sign-in, registration, a
 * new password) read the row fresh, so a change applies at once; the per-request 2FA check uses `cached()`,
 * at most CACHE_MS old (and dropped at once by a change made through this process).
 */
export class SecurityPolicyStore {
  static readonly CACHE_MS = 5_000;
  private static readonly shared = new WeakMap<Db, SecurityPolicyStore>();
  private recent: { at: number; value: SecurityPolicy } | undefined;

  /** One store per database in a process, so every reader here sees a change at once. */
  static of(db: Db): SecurityPolicyStore {
    let store = SecurityPolicyStore.shared.get(db);
    if (!store) SecurityPolicyStore.shared.set(db, (store = new SecurityPolicyStore(db)));
    return store;
  }

  private constructor(private readonly db: Db) {}

  /** Forgets the cached value: a backup restore replaced the row underneath. */
  invalidate(): void {
    this.recent = undefined;
  }

  async get(): Promise<SecurityPolicy> {
    const [row] = await this.db.select().from(securityPolicies).where(eq(securityPolicies.id, 1));
    const value: SecurityPolicy = row
      ? {
          ...row,
          twoFactorRequiredRoles: TWO_FACTOR_ROLES.filter((r) => row.twoFactorRequiredRoles.includes(r)),
        }
      : { ...DEFAULT_POLICY, updatedAt: new Date(0) };
    this.recent = { at: Date.now(), value };
    return value;
  }

  async cached(): Promise<SecurityPolicy> {
    if (this.recent && Date.now() - this.recent.at < SecurityPolicyStore.CACHE_MS) return this.recent.value;
    return this.get();
  }

  /** Applies a validated patch; returns the policies before and after. */
  async update(patch: PolicyPatch): Promise<{ before: SecurityPolicy; after: SecurityPolicy }> {
    const before = await this.get();
    if (Object.keys(patch).length > 0) {
      const now = new Date();
      await this.db
        .insert(securityPolicies)
        .values({ id: 1, ...patch, updatedAt: now })
        .onConflictDoUpdate({ target: securityPolicies.id, set: { ...patch, updatedAt: now } });
    }
    return { before, after: await this.get() };
  }
}
