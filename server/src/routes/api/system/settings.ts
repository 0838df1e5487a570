import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canChangeSystemSettings, canReadSystemSettings } from '../../../policies/index.ts';
import { SystemSettingsSchema } from '../../../presenters/system-settings.ts';
import { keyedBody } from '../../../schemas/admin/common.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { settingChanges, validateSettingsPatch } from '../../../services/system-settings.ts';
import systemLogRoutes from './logs.ts';

const PATH = '/api/system/settings/';
// Platform settings: no tenant needed; the refusal's audit line is a sentence of its own.
const GUARD = { refusal: { audit: 'Accès refusé aux paramètres système' }, tenant: false };

/** GET and PATCH /api/system/settings/ (docs/api-admin.md "System settings"), and the rest of /api/system/. */
const systemSettingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Paramètres système'];
  // app.ts registers one plugin for the system area: its other routes ride along here.
  await app.register(systemLogRoutes);

  app.get(
    PATH,
    {
      ...app.guard((auth) => canReadSystemSettings(auth.actor), GUARD),
      schema: { tags, response: replies.signedIn({ 200: SystemSettingsSchema }) },
    },
    async () => app.systemSettings.get(),
  );

  // What every screen shows of the settings (name, theme, time zone, language): public, as the sign-in page uses
  // them too, and nothing in it is a secret.
  app.get(
    '/api/system/appearance/',
    {
      schema: {
        tags,
        response: replies({
          200: Type.Object(
            {
              app_name: Type.String(),
              theme: Type.String({ description: 'Thème par défaut : light ou dark' }),
              timezone: Type.String({ description: 'Fuseau IANA des dates affichées' }),
              language: Type.String(),
            },
            { description: 'Les paramètres d’affichage de la plateforme' },
          ),
        }),
      },
    },
    async (_request, reply) => {
      const { app_name, theme, timezone, language } = await app.systemSettings.get();
      reply.header('Cache-Control', 'no-cache');
      return { app_name, theme, timezone, language };
    },
  );

  app.patch(
    PATH,
    {
      ...app.guard((auth) => canChangeSystemSettings(auth.actor), GUARD),
      schema: {
        tags,
        // Each key is checked by validateSettingsPatch, with its French message.
        body: keyedBody('Les paramètres à changer, par clé', 'Un objet JSON de paramètres est attendu.'),
        response: replies.signedIn({ 200: SystemSettingsSchema }, 400),
      },
    },
    async (request) => {
      const patch = validateSettingsPatch(request.body);
      const { before, after } = await app.systemSettings.update(patch, signedIn(request).user.id);
      const changes = settingChanges(patch, before, after);
      const changed = Object.keys(changes);
      if (changed.length > 0) {
        await app.audit.record(request, {
          eventType: 'configuration_change',
          description: `Paramètres système modifiés : ${changed.join(', ')}`,
          severity: changed.includes('maintenance_mode') ? 'WARNING' : 'INFO',
          tenantId: null,
          extra: { changes },
        });
      }
      return after;
    },
  );
};

export default systemSettingsRoutes;
