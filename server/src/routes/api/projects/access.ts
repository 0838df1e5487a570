import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import type { ActivityEntry } from '../../../repositories/project-access.ts';
import { displayName, notifierOf } from '../../../services/notifier.ts';
import { ProjectAccessDenied, ProjectJournal, type ProjectGate } from '../../../services/projects/access.ts';

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

/**
 * `write(request, fn)`: runs a project write in one tenant transaction with its journal; the activity lines it
 * recorded are audited, and the notifications it wrote published, once the transaction committed.
 */
export function journaledWrites(app: FastifyInstance, gate: ProjectGate) {
  const notifier = notifierOf(app.database);
  return async <T>(request: FastifyRequest, fn: (tx: TenantDb, journal: ProjectJournal) => Promise<T>) => {
    const { actor, user } = signedIn(request);
    const journal = new ProjectJournal(gate, notifier, actor, displayName(user));
    const result = await request.tenantDb((tx) => fn(tx, journal));
    for (const entry of journal.entries) await auditProjectWrite(app, request, entry);
    notifier.publish(journal.notices);
    return result;
  };
}
