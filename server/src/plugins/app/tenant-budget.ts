import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.ts';

export const TENANT_BUDGET_MESSAGE =
  'Trop de traitements lourds en cours pour cette organisation (exports, imports) : réessayez dans un instant.';

/** Seconds before asking again: an export of a large tenant takes seconds, not minutes. */
const RETRY_AFTER_S = 5;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A streamed export or an upload: counted against its tenant's budget (plugins/app/tenant-budget.ts). */
    heavy?: boolean;
  }
}

/** At most `max` holders per key at once; a holder releases once, whatever happens. */
export class ConcurrencyBudget {
  private readonly active = new Map<string, number>();

  constructor(readonly max: number) {}

  /** A release function, or undefined when `key` already holds `max`. */
  tryAcquire(key: string): (() => void) | undefined {
    const held = this.active.get(key) ?? 0;
    if (held >= this.max) return undefined;
    this.active.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.active.get(key) ?? 1) - 1;
      if (left > 0) this.active.set(key, left);
      else this.active.delete(key);
    };
  }

  inUse(key: string): number {
    return this.active.get(key) ?? 0;
  }
}

/** Whose budget a request draws on: its tenant's, or the platform's for a superuser's platform-wide export. */
const budgetKey = (request: FastifyRequest) => request.auth?.tenant?.id ?? 'platform';

/**
 * Fairness between tenants: heavy routes hold database connections for long (an export's batches, a report's
 * upload), so one tenant's burst could take the whole pool and starve every other tenant's reads. Each tenant runs
 * at most `budget.max` of them at once per process; one more is answered 503 with Retry-After at once, before any
 * work, and the other tenants are untouched.
 */
export default fp<{ budget: ConcurrencyBudget }>(
  async (app, { budget }) => {
    // preHandler: after the route's authentication (preValidation), so the tenant is known.
    app.addHook('preHandler', async (request, reply) => {
      if (!request.routeOptions.config.heavy) return;
      const release = budget.tryAcquire(budgetKey(request));
      if (!release) {
        request.log.warn('tenant heavy-request budget spent: answered 503');
        throw new ApiError(503, 'tenant_busy', TENANT_BUDGET_MESSAGE, {}, { 'Retry-After': String(RETRY_AFTER_S) });
      }
      // 'close' comes once the answer is sent or the client went away, streamed bodies included.
      reply.raw.once('close', release);
      reply.raw.once('finish', release);
    });
  },
  { name: 'tenant-budget', dependencies: ['authentication'] },
);
