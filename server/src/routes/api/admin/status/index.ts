import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { canReadSystemStatus } from '../../../../policies/index.ts';
import {
  ConnectionHoldsSchema,
  presentConnectionHolds,
  SystemStatusSchema,
} from '../../../../presenters/system-status.ts';
import { replies } from '../../../../schemas/common.ts';
import { systemStatus } from '../../../../services/admin-status.ts';

/** GET /api/admin/status/ (docs/api-admin.md "Health and status"): superusers only. */
const adminStatusRoutes: FastifyPluginAsyncTypebox<{ runJobs: boolean }> = async (app, opts) => {
  app.get(
    '/api/admin/status/',
    {
      ...app.guard((auth) => canReadSystemStatus(auth.actor), { refusal: 'état du système', tenant: false }),
      schema: { tags: ['État du système'], response: replies.signedIn({ 200: SystemStatusSchema }) },
    },
    async () =>
      systemStatus({
        database: app.database,
        dataDir: app.filesDir,
        runJobs: opts.runJobs,
        log: app.log.child({ module: 'status' }),
      }),
  );

  // How long each route held a database connection in this process (issue 19; docs/SCALING.md).
  app.get(
    '/api/admin/status/connections/',
    {
      ...app.guard((auth) => canReadSystemStatus(auth.actor), { refusal: 'état du système', tenant: false }),
      schema: { tags: ['État du système'], response: replies.signedIn({ 200: ConnectionHoldsSchema }) },
    },
    async () => presentConnectionHolds(app.connectionHolds, app.requestGate),
  );
};

export default adminStatusRoutes;
