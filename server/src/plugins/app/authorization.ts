import fp from 'fastify-plugin';
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { displayMayCall, FORBIDDEN_MESSAGE } from '../../policies/index.ts';
import type { TenantId } from '../../db/tenant-scope.ts';
import { displayRefused, type AuthContext } from './authentication.ts';

/** The signed-in caller, narrowed: every route behind `app.authenticate` reads it through here. */
export function signedIn(request: FastifyRequest): AuthContext {
  // A wall screen is no person: whatever asks for one refuses it (403, never the 401 that would make it re-pair).
  if (request.display) throw displayRefused();
  const auth = request.auth;
  if (!auth) throw new ApiError(401, 'not_authenticated', "Informations d'authentification non fournies.");
  return auth;
}

/** The current tenant's id (a person's, or a wall screen's); 403 for an account that belongs to none. */
export function currentTenant(request: FastifyRequest): TenantId {
  const tenant = request.display ? request.display.tenant : signedIn(request).tenant;
  if (!tenant) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  return tenant.id;
}

/** A question asked of the policies (policies/index.ts) about the caller. */
export type Policy = (auth: AuthContext) => boolean;

/**
 * What a refusal's audit line says: a reason completes « Accès refusé : … »; `{ audit }` is a sentence of its own
 * (« Modification refusée : … », « Accès refusé aux paramètres système »), kept word for word.
 */
export type Refusal = string | { audit: string };

export interface GuardOptions {
  /** The refusal's audit line; without it a refusal is not audited (plain reads). */
  refusal?: Refusal;
  /** The route reads tenant data: an account with no tenant is refused too (default true). */
  tenant?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** 403 unless `allowed`; the refusal is audited when it says why. */
    authorize(request: FastifyRequest, allowed: boolean, refusal?: Refusal): Promise<void>;
    /** The 403 itself, audited: for a refusal decided inside a service (a rule about the record, not the caller). */
    refuse(request: FastifyRequest, refusal: Refusal): Promise<never>;
    /** Route options: authenticate, then ask `policy`, before the body is even looked at. */
    guard(policy: Policy, options?: GuardOptions): { preValidation: preValidationAsyncHookHandler[] };
  }
}

/** One way to refuse: the same 403, and the same audit line, everywhere. */
export default fp(
  async (app) => {
    const refuse = async (request: FastifyRequest, refusal?: Refusal): Promise<never> => {
      if (refusal !== undefined) {
        await app.audit.record(request, {
          eventType: 'permission_denied',
          description: typeof refusal === 'string' ? `Accès refusé : ${refusal}` : refusal.audit,
          severity: 'WARNING',
          success: false,
          extra: { method: request.method, path: request.routeOptions.url },
        });
      }
      throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
    };
    app.decorate('refuse', refuse);
    app.decorate('authorize', async (request: FastifyRequest, allowed: boolean, refusal?: Refusal) => {
      if (!allowed) await refuse(request, refusal);
    });
    app.decorate('guard', (policy: Policy, options: GuardOptions = {}) => {
      const check: preValidationAsyncHookHandler = async (request) => {
        // A wall screen reaches a guarded route only when it is one of its reads (display-devices.ts decided it
        // before; asked again here so that no route opens to it by mistake). The policy is a question about a person.
        const display = request.display;
        if (display) {
          if (!displayMayCall(request.method, request.routeOptions.url, request.query)) throw displayRefused();
          if (options.tenant !== false && !display.tenant) throw displayRefused();
          return;
        }
        const auth = signedIn(request);
        if (options.tenant !== false && !auth.tenant) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
        await app.authorize(request, policy(auth), options.refusal);
      };
      return { preValidation: [app.authenticate, check] };
    });
  },
  { name: 'authorization', dependencies: ['authentication', 'audit'] },
);
