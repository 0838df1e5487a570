import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { FORBIDDEN_MESSAGE, hasProjectAccess, type ProjectAccess } from '../../../policies/index.ts';
import {
  ProjectAccessRepository,
  type ActivityEntry,
  type ProjectRecord,
} from '../../../repositories/project-access.ts';

export type ProjectNeed = Exclude<ProjectAccess, 'none'>;

/** A title quoted in an activity summary, kept short. */
export const quoted = (text: string) => `« ${text.length > 120 ? `${text.slice(0, 119)}…` : text} »`;

/**
 * A refusal on a project the caller can read. Thrown inside the tenant transaction; the projects area audits it
 * once the transaction is over (PGlite has a single connection: writing the audit row from inside would wait on
 * the very transaction that waits for it).
 */
export class ProjectAccessDenied extends ApiError {
  constructor(
    readonly projectId: number,
    readonly need: ProjectNeed,
  ) {
    super(403, 'permission_denied', FORBIDDEN_MESSAGE);
  }
}

/** onError hook of the projects area: the audit trail records every refused project action. */
export function auditProjectRefusals(app: FastifyInstance) {
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof ProjectAccessDenied)) return;
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : action réservée à l’équipe du projet',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url, project_id: error.projectId, need: error.need },
    });
  });
}

/**
 * The gate every project route goes through: a project of another tenant, or one the caller cannot read, is 404
 * (its existence is not revealed); a readable one the caller may not change is 403 (ProjectAccessDenied).
 */
export function projectGate() {
  const repo = new ProjectAccessRepository();
  return {
    repo,
    async require(
      request: FastifyRequest,
      tx: TenantDb,
      projectId: number,
      need: ProjectNeed,
    ): Promise<{ project: ProjectRecord; access: ProjectAccess }> {
      const found = await repo.load(tx, projectId, signedIn(request).actor);
      if (!found || found.access === 'none') throw notFound();
      if (!hasProjectAccess(found.access, need)) throw new ProjectAccessDenied(projectId, need);
      return found;
    },
  };
}

/** A project write worth auditing: the activity line's wording, audited after the transaction committed. */
export async function auditProjectWrite(app: FastifyInstance, request: FastifyRequest, entry: ActivityEntry) {
  await app.audit.record(request, {
    eventType: 'data_change',
    description: `Projet ${entry.projectId} : ${entry.summary}`,
    extra: {
      action: entry.action,
      project_id: entry.projectId,
      object_type: entry.objectType,
      object_id: entry.objectId,
    },
  });
}
