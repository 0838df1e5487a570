/**
 * The refusals whose audit line is a sentence of its own (« Modification refusée : … », « Accès refusé aux
 * politiques de sécurité ») rather than app.authorize's « Accès refusé : … »: the same 403 and audit fields, with
 * the description kept word for word.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { signedIn, type Policy } from '../../../plugins/app/authorization.ts';

export async function refuse(app: FastifyInstance, request: FastifyRequest, description: string): Promise<never> {
  await app.audit.record(request, {
    eventType: 'permission_denied',
    description,
    severity: 'WARNING',
    success: false,
    extra: { method: request.method, path: request.routeOptions.url },
  });
  throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
}

/** Route options like app.guard's (no tenant needed), a refusal audited as `description`. */
export function guardWith(app: FastifyInstance, policy: Policy, description: string) {
  const check = async (request: FastifyRequest) => {
    if (!policy(signedIn(request))) await refuse(app, request, description);
  };
  return { preValidation: [app.authenticate, check] };
}
