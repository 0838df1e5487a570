import fp from 'fastify-plugin';
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { FORBIDDEN_MESSAGE } from '../../policies/index.ts';
import type { TenantId } from '../../db/tenant-scope.ts';
import type { AuthContext } from './authentication.ts';

/** The signed-in caller, narrowed: every route behind `app.authenticate` reads it through here. */
export function signedIn(request: FastifyRequest): AuthContext {
  const auth = request.auth;
  if (!auth) throw new ApiError(401, 'not_authenticated', "Informations d'authentification non fournies.");
  return auth;
}

/** The current tenant's id; 403 for an account that belongs to none. */
export function currentTenant(request: FastifyRequest): TenantId {
  const tenant = signedIn(request).tenant;
  if (!tenant) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  return tenant.id;
}

/** A question asked of the policies (policies/index.ts) about the caller. */
export type Policy = (auth: AuthContext) => boolean;

export interface GuardOptions {
  /** Completes the audit line « Accès refusé : … »; without it a refusal is not audited (plain reads). */
  refusal?: string;
  /** The route reads tenant data: an account with no tenant is refused too (default true). */
  tenant?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** 403 unless `allowed`; the refusal is audited (« Accès refusé : reason ») when a reason is given. */
    authorize(request: FastifyRequest, allowed: boolean, refusal?: string): Promise<void>;
    /** Route options: authenticate, then ask `policy`, before the body is even looked at. */
    guard(policy: Policy, options?: GuardOptions): { preValidation: preValidationAsyncHookHandler[] };
  }
}

/** One way to refuse: the same 403, and the same audit line, everywhere. */
export default fp(
  async (app) => {
    app.decorate('authorize', async (request: FastifyRequest, allowed: boolean, refusal?: string) => {
      if (allowed) return;
      if (refusal !== undefined) {
        await app.audit.record(request, {
          eventType: 'permission_denied',
          description: `Accès refusé : ${refusal}`,
          severity: 'WARNING',
          success: false,
          extra: { method: request.method, path: request.routeOptions.url },
        });
      }
      throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
    });
    app.decorate('guard', (policy: Policy, options: GuardOptions = {}) => {
      const check: preValidationAsyncHookHandler = async (request) => {
        const auth = signedIn(request);
        if (options.tenant !== false && !auth.tenant) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
        await app.authorize(request, policy(auth), options.refusal);
      };
      return { preValidation: [app.authenticate, check] };
    });
  },
  { name: 'authorization', dependencies: ['authentication', 'audit'] },
);
