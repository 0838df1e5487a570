import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { canReadSystemLogs } from '../../../policies/index.ts';
import { presentSystemLog, SystemLogSchema } from '../../../presenters/system-log.ts';
import { serverLogReads } from '../../../repositories/server-logs.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { parseSystemLogsQuery, SystemLogsQuery } from '../../../schemas/system-logs.ts';

/**
 * GET /api/system/logs/ (spec §7 "system"): the newest lines at or above a level (warnings and worse unless
 * asked), for the status screen. The same platform-wide store as the logs console: superusers only.
 */
const systemLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.guard((auth) => canReadSystemLogs(auth.actor), { refusal: 'journaux du système', tenant: false });
  const Logs = Type.Object(
    {
      logs: Type.Array(SystemLogSchema),
      total: Type.Integer({ minimum: 0, description: 'Lignes de ces niveaux dans le journal, toutes dates' }),
    },
    { description: 'Les lignes les plus récentes d’abord' },
  );

  app.get(
    '/api/system/logs/',
    {
      ...guard,
      schema: { tags: ['Système'], querystring: SystemLogsQuery, response: replies.signedIn({ 200: Logs }, 400) },
    },
    async (request) => {
      const { limit, levels } = parseSystemLogsQuery(request.query);
      const { total, rows } = await serverLogReads.page(app.database.db, { levels }, limit, 0);
      return { logs: rows.map(presentSystemLog), total };
    },
  );
};

export default systemLogRoutes;
