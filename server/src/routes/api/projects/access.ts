import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../plugins/app/errors.ts';
import { FORBIDDEN_MESSAGE, hasProjectAccess, type ProjectAccess } from '../../../policies/index.ts';
import { ProjectAccessRepository, type ProjectRecord } from '../../../repositories/project-access.ts';
import { notFound } from '../shared.ts';

export type ProjectNeed = Exclude<ProjectAccess, 'none'>;

/**
 * The gate every project route goes through: a project of another tenant, or one the caller cannot read, is 404
 * (its existence is not revealed); a readable one the caller may not change is 403, audited as permission_denied.
 */
export function projectGate(app: FastifyInstance) {
  const repo = new ProjectAccessRepository();
  return {
    repo,
    async require(
      request: FastifyRequest,
      tx: TenantDb,
      projectId: number,
      need: ProjectNeed,
    ): Promise<{ project: ProjectRecord; access: ProjectAccess }> {
      const found = await repo.load(tx, projectId, request.auth!.actor);
      if (!found || found.access === 'none') throw notFound();
      if (!hasProjectAccess(found.access, need)) {
        await app.audit.record(request, {
          eventType: 'permission_denied',
          description: 'Accès refusé : action réservée à l’équipe du projet',
          severity: 'WARNING',
          success: false,
          extra: { method: request.method, path: request.routeOptions.url, project_id: projectId, need },
        });
        throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
      }
      return found;
    },
  };
}
