import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import { canChangeConfiguration, canReadConfiguration } from '../../../../policies/index.ts';
import { ConfigurationSchema, presentConfiguration } from '../../../../presenters/admin-config.ts';
import { replies } from '../../../../schemas/common.ts';
import {
  AdminConfigStore,
  configChanges,
  describeRuntime,
  validateConfigPatch,
} from '../../../../services/admin-config.ts';
import { keyedBody } from '../../../../schemas/admin/common.ts';

const PATH = '/api/admin/config/';

/** GET and PATCH /api/admin/config/ (docs/api-admin.md "Configuration"): superusers only. */
const adminConfigRoutes: FastifyPluginAsyncTypebox<{ runJobs: boolean }> = async (app, opts) => {
  const store = AdminConfigStore.of(app.database.db);
  const runtime = describeRuntime({ database: app.database, dataDir: app.filesDir, runJobs: opts.runJobs });
  const refusal = 'configuration du système';
  const tags = ['Configuration'];

  app.get(
    PATH,
    {
      ...app.guard((auth) => canReadConfiguration(auth.actor), { refusal, tenant: false }),
      schema: { tags, response: replies.signedIn({ 200: ConfigurationSchema }) },
    },
    async () => presentConfiguration(runtime, await store.read(), app.filesDir),
  );

  app.patch(
    PATH,
    {
      ...app.guard((auth) => canChangeConfiguration(auth.actor), { refusal, tenant: false }),
      schema: {
        tags,
        // Each key is checked by validateConfigPatch, with its French message.
        body: keyedBody('backup_location, backup_retention_count', 'Un objet JSON de paramètres est attendu.'),
        response: replies.signedIn({ 200: ConfigurationSchema }, 400),
      },
    },
    async (request) => {
      const patch = await validateConfigPatch(request.body, app.filesDir);
      const { before, after } = await store.update(patch, signedIn(request).user.id);
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
    },
  );
};

export default adminConfigRoutes;
