import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { canRead, canWriteBlog, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';

/**
 * The blog's preValidation hooks (docs/api-blog.md "Who may do what"): readers are every member, staff and
 * superusers; writers are tenant admins and managers, staff and superusers. A refused writer is audited before
 * its body is even looked at.
 */
export function blogGuards(app: FastifyInstance) {
  const deny = async (request: FastifyRequest): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : le blog est rédigé par les administrateurs et responsables',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };
  const requireRead = async (request: FastifyRequest) => {
    if (!request.auth!.tenant || !canRead(request.auth!.actor)) {
      throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
    }
  };
  const requireWrite = async (request: FastifyRequest) => {
    await requireRead(request);
    if (!canWriteBlog(request.auth!.actor)) await deny(request);
  };
  return {
    read: { preValidation: [app.authenticate, requireRead] },
    write: { preValidation: [app.authenticate, requireWrite] },
    /** For a read that asks for writers' data (drafts). */
    deny,
  };
}
