/** What the administration routes (admin/, security/, system/) share beyond ../shared.ts. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { signedIn, type Policy } from '../../../plugins/app/authorization.ts';
import { Type } from '../../../schemas/common.ts';

/** A UUID path segment, any case: anything else is not found. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** `subscriptionPlan` → `subscription_plan`: the API's name of a changed column, for the audit lines. */
export const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A settings-like PATCH body: an object whose every key the service checks, with its French messages. */
export const keyedBody = (description: string, notObject: string) =>
  Type.Record(Type.String(), Type.Unknown(), { description, errorMessage: notObject });

/**
 * The refusals whose audit line is a sentence of its own (« Modification refusée : … », « Accès refusé aux
 * politiques de sécurité ») rather than app.authorize's « Accès refusé : … »: the same 403 and audit fields, with
 * the description kept word for word.
 */
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
