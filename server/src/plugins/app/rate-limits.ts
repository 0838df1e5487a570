import fp from 'fastify-plugin';
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { AttemptLimiter } from '../../lib/attempt-limiter.ts';
import { securityPolicies } from '../../db/schema.ts';
import { ApiError } from '../../domain/errors.ts';

export type LimitScope = 'login' | 'reset' | 'two_factor' | 'register' | 'anonymous_audit';

export interface RateLimits {
  /** Counts an attempt for the client IP and, when given, the account; throws 429 past the policy's limit. */
  hit(request: FastifyRequest, scope: LimitScope, account?: string): Promise<void>;
  /** Forgets the account's failures after a success. */
  clear(scope: LimitScope, account: string): void;
  /** Counts `n` units for the client IP against a fixed per-minute budget; throws 429 past it. */
  hitCount(request: FastifyRequest, scope: LimitScope, n: number, perMinute: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    limits: RateLimits;
  }
}

// An office behind one NAT shares an IP: the per-IP budget is a multiple of the per-account one.
const IP_FACTOR = 3;

export default fp(
  async (app) => {
    const limiter = new AttemptLimiter(60_000);
    const perMinute = async () => {
      const [row] = await app.database.db
        .select({ n: securityPolicies.loginAttemptsPerMinute })
        .from(securityPolicies)
        .where(eq(securityPolicies.id, 1));
      return row?.n ?? 10;
    };
    const refuse = (wait: number) =>
      new ApiError(
        429,
        'rate_limited',
        `Trop de tentatives. Réessayez dans ${wait} seconde${wait > 1 ? 's' : ''}.`,
        { retry_after: wait },
        { 'Retry-After': String(wait) },
      );
    app.decorate('limits', {
      async hit(request, scope, account) {
        const limit = await perMinute();
        const ipWait = limiter.hit(`${scope}:ip:${request.ip}`, limit * IP_FACTOR);
        const accountWait = account ? limiter.hit(`${scope}:acct:${account.trim().toLowerCase()}`, limit) : 0;
        const wait = Math.max(ipWait, accountWait);
        if (wait > 0) throw refuse(wait);
      },
      async hitCount(request, scope, n, perMinute) {
        let wait = 0;
        for (let i = 0; i < Math.max(1, n); i++)
          wait = Math.max(wait, limiter.hit(`${scope}:ip:${request.ip}`, perMinute));
        if (wait > 0) throw refuse(wait);
      },
      clear(scope, account) {
        limiter.reset(`${scope}:acct:${account.trim().toLowerCase()}`);
      },
    } satisfies RateLimits);
  },
  { name: 'rate-limits', dependencies: ['database'] },
);
