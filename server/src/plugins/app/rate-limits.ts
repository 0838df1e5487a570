import fp from 'fastify-plugin';
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { securityPolicies } from '../../db/schema.ts';
import { attemptCounterRepo, loginLockoutRepo } from '../../repositories/attempts.ts';
import { ApiError } from '../../domain/errors.ts';

export type LimitScope =
  | 'login'
  | 'reset'
  | 'two_factor'
  | 'register'
  | 'anonymous_audit'
  | 'display_audit'
  | 'display_pairing'
  | 'display_approval';

/** A budget of its own, not the sign-in policy's: `limit` attempts per `windowMs`, and the 429's message. */
export interface Budget {
  limit: number;
  windowMs: number;
  message?: string;
}

export interface RateLimits {
  /** Counts an attempt for the client IP and, when given, the account; throws 429 past the policy's limit. */
  hit(request: FastifyRequest, scope: LimitScope, account?: string): Promise<void>;
  /** Forgets the account's failures after a success. */
  clear(scope: LimitScope, account: string): Promise<void>;
  /** Counts `n` units for the client IP (or `account`) against a fixed per-minute budget; throws 429 past it. */
  hitCount(request: FastifyRequest, scope: LimitScope, n: number, perMinute: number, account?: string): Promise<void>;
  /** Counts an attempt against `budget`: for the account when given, else for the client IP; throws 429 past it. */
  hitBudget(request: FastifyRequest, scope: LimitScope, budget: Budget, account?: string): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    limits: RateLimits;
  }
}

// An office behind one NAT shares an IP: the per-IP budget is a multiple of the per-account one.
const IP_FACTOR = 3;
const WINDOW_MS = 60_000;
const PURGE_EVERY_MS = 10 * 60_000;
/** Windows are forgotten this long after they started: past the longest budget's (10 min, display pairings). */
const KEEP_WINDOWS_MS = 15 * 60_000;

export default fp(
  async (app) => {
    // Counted in the database: every process on it spends the same budget (docs/SCALING.md).
    const db = app.database.db;
    const hit = async (key: string, n: number, limit: number, windowMs = WINDOW_MS): Promise<number> => {
      const now = new Date();
      const { count, windowStart } = await attemptCounterRepo.hit(db, key, n, windowMs, now);
      return count > limit ? Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now.getTime()) / 1000)) : 0;
    };
    const perMinute = async () => {
      const [row] = await app.database.db
        .select({ n: securityPolicies.loginAttemptsPerMinute })
        .from(securityPolicies)
        .where(eq(securityPolicies.id, 1));
      return row?.n ?? 10;
    };
    const refuse = (wait: number, message?: string) =>
      new ApiError(
        429,
        'rate_limited',
        message ?? `Trop de tentatives. Réessayez dans ${wait} seconde${wait > 1 ? 's' : ''}.`,
        { retry_after: wait },
        { 'Retry-After': String(wait) },
      );
    // Ended windows, and failure counts left alone for a day, are forgotten now and then (by every process: harmless).
    const purge = setInterval(() => {
      const now = Date.now();
      void attemptCounterRepo
        .purge(db, new Date(now - KEEP_WINDOWS_MS))
        .then(() => loginLockoutRepo.purge(db, new Date(now - 24 * 3600_000)))
        .catch((err: unknown) => app.log.warn({ err }, 'attempt counters purge failed'));
    }, PURGE_EVERY_MS);
    purge.unref();
    app.addHook('onClose', async () => clearInterval(purge));

    app.decorate('limits', {
      async hit(request, scope, account) {
        const limit = await perMinute();
        const ipWait = await hit(`${scope}:ip:${request.ip}`, 1, limit * IP_FACTOR);
        const accountWait = account ? await hit(`${scope}:acct:${account.trim().toLowerCase()}`, 1, limit) : 0;
        const wait = Math.max(ipWait, accountWait);
        if (wait > 0) throw refuse(wait);
      },
      async hitCount(request, scope, n, perMinute, account) {
        const key = account === undefined ? `${scope}:ip:${request.ip}` : `${scope}:acct:${account}`;
        const wait = await hit(key, Math.max(1, n), perMinute);
        if (wait > 0) throw refuse(wait);
      },
      async hitBudget(request, scope, { limit, windowMs, message }, account) {
        const key =
          account === undefined ? `${scope}:ip:${request.ip}` : `${scope}:acct:${account.trim().toLowerCase()}`;
        const wait = await hit(key, 1, limit, windowMs);
        if (wait > 0) throw refuse(wait, message);
      },
      clear(scope, account) {
        return attemptCounterRepo.reset(db, `${scope}:acct:${account.trim().toLowerCase()}`);
      },
    } satisfies RateLimits);
  },
  { name: 'rate-limits', dependencies: ['database'] },
);
