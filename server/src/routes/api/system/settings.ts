import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { canChangeSystemSettings, canReadSystemSettings, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { validateSettingsPatch } from '../../../services/system-settings.ts';

/** GET and PATCH /api/system/settings/ (docs/api-admin.md "System settings"). */
const systemSettingsRoutes: FastifyPluginAsync = async (app) => {
  const refuse = async (request: FastifyRequest): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé aux paramètres système',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: '/api/system/settings/' },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  app.get('/api/system/settings/', { preValidation: [app.authenticate] }, async (request) => {
    if (!canReadSystemSettings(request.auth!.actor)) await refuse(request);
    return app.systemSettings.get();
  });

  app.patch('/api/system/settings/', { preValidation: [app.authenticate] }, async (request) => {
    if (!canChangeSystemSettings(request.auth!.actor)) await refuse(request);
    const patch = validateSettingsPatch(request.body);
    const { before, after } = await app.systemSettings.update(patch, request.auth!.user.id);
    const changes = Object.fromEntries(
      Object.keys(patch)
        .filter((k) => before[k as keyof typeof before] !== after[k as keyof typeof after])
        .map((k) => [k, { from: before[k as keyof typeof before], to: after[k as keyof typeof after] }]),
    );
    if (Object.keys(changes).length > 0) {
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: `Paramètres système modifiés : ${Object.keys(changes).join(', ')}`,
        severity: 'maintenance_mode' in changes ? 'WARNING' : 'INFO',
        tenantId: null,
        extra: { changes },
      });
    }
    return after;
  });
};

export default systemSettingsRoutes;
