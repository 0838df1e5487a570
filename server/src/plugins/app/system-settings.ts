import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { SystemSettingsStore } from '../../services/system-settings.ts';
import { passesMaintenance } from '../../policies/index.ts';
import { ApiError } from '../../domain/errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    systemSettings: SystemSettingsStore;
  }
}

export const MAINTENANCE_MESSAGE =
  'Maintenance en cours : l’application est momentanément indisponible. Réessayez plus tard.';

// Signing in, the profile, health and the settings themselves stay open, so an administrator can end maintenance.
const OPEN_DURING_MAINTENANCE = [
  /^\/api\/(token|auth|logout|register|current-user|health)(\/|$)/,
  /^\/api\/(accounts|users)\/me(\/|$)/,
  /^\/api\/accounts\/(2fa|password)(\/|$)/,
  /^\/api\/system\/(settings|health)(\/|$)/,
  /^\/api\/audit\/events(\/|$)/,
];

async function actorOf(request: FastifyRequest) {
  if (!request.auth) {
    try {
      await request.server.authenticate(request);
    } catch {
      return undefined;
    }
  }
  return request.auth?.actor;
}

/** The system settings store, and maintenance mode: the API answers 503 to everyone but administrators. */
export default fp(
  async (app) => {
    app.decorate('systemSettings', SystemSettingsStore.of(app.database.db));
    app.addHook('preHandler', async (request) => {
      const path = request.url.split('?')[0] ?? '';
      if (!path.startsWith('/api/') || OPEN_DURING_MAINTENANCE.some((re) => re.test(path))) return;
      if (!(await app.systemSettings.get()).maintenance_mode) return;
      if (passesMaintenance(await actorOf(request))) return;
      throw new ApiError(503, 'maintenance', MAINTENANCE_MESSAGE, {}, { 'Retry-After': '300' });
    });
  },
  { name: 'system-settings', dependencies: ['database', 'authentication'] },
);
