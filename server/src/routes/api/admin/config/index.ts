import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../domain/errors.ts';
import { canChangeConfiguration, canReadConfiguration, FORBIDDEN_MESSAGE } from '../../../../policies/index.ts';
import { presentConfiguration } from '../../../../presenters/admin-config.ts';
import {
  AdminConfigStore,
  configChanges,
  describeRuntime,
  validateConfigPatch,
} from '../../../../services/admin-config.ts';

/** GET and PATCH /api/admin/config/ (docs/api-admin.md "Configuration"): superusers only. */
const adminConfigRoutes: FastifyPluginAsync<{ runJobs: boolean }> = async (app, opts) => {
  const store = AdminConfigStore.of(app.database.db);
  const runtime = describeRuntime({ database: app.database, dataDir: app.filesDir, runJobs: opts.runJobs });

  const refuse = async (request: FastifyRequest): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : configuration du système',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: '/api/admin/config/' },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  app.get('/api/admin/config/', { preValidation: [app.authenticate] }, async (request) => {
    if (!canReadConfiguration(request.auth!.actor)) await refuse(request);
    return presentConfiguration(runtime, await store.read(), app.filesDir);
  });

  app.patch('/api/admin/config/', { preValidation: [app.authenticate] }, async (request) => {
    if (!canChangeConfiguration(request.auth!.actor)) await refuse(request);
    const patch = await validateConfigPatch(request.body, app.filesDir);
    const { before, after } = await store.update(patch, request.auth!.user.id);
    const changes = configChanges(before, after);
    if (Object.keys(changes).length > 0) {
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: `Configuration modifiée : ${Object.keys(changes).join(', ')}`,
        tenantId: null,
        extra: { changes },
      });
    }
    return presentConfiguration(runtime, await store.read(), app.filesDir);
  });
};

export default adminConfigRoutes;
