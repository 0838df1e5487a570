import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../domain/errors.ts';
import { canReadSystemStatus, FORBIDDEN_MESSAGE } from '../../../../policies/index.ts';
import { systemStatus } from '../../../../services/admin-status.ts';

/** GET /api/admin/status/ (docs/api-admin.md "Health and status"): superusers only. */
const adminStatusRoutes: FastifyPluginAsync<{ runJobs: boolean }> = async (app, opts) => {
  const requireReader = async (request: FastifyRequest) => {
    if (canReadSystemStatus(request.auth!.actor)) return;
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : état du système',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  app.get('/api/admin/status/', { preValidation: [app.authenticate, requireReader] }, async () =>
    systemStatus({
      database: app.database,
      dataDir: app.filesDir,
      runJobs: opts.runJobs,
      log: app.log.child({ module: 'status' }),
    }),
  );
};

export default adminStatusRoutes;
