import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Choice, Type } from '../../../schemas/common.ts';
import { VERSION } from '../../../version.ts';

const PING_TIMEOUT_MS = 2000;

const Health = Type.Object(
  {
    status: Choice(['ok', 'error']),
    database: Choice(['ok', 'down'], { description: 'La base répond-elle (délai 2 s) ?' }),
    version: Type.String(),
  },
  { description: 'État du service et de sa base de données' },
);

/** Liveness for probes and the client (docs/api-admin.md "Health and status"): no authentication, never cached. */
const health: FastifyPluginAsyncTypebox = async (app) => {
  const options = { schema: { tags: ['Système'], response: { 200: Health, 503: Health } } };
  // spec §7 names both paths; one handler answers them.
  for (const url of ['/api/health/', '/api/system/health/']) {
    app.get(url, options, async (_request, reply) => {
      const database = await Promise.race([
        app.database.ping().then(() => 'ok' as const),
        new Promise<'down'>((resolve) => setTimeout(() => resolve('down'), PING_TIMEOUT_MS).unref()),
      ]).catch(() => 'down' as const);
      // Health answers are never stored: a cached 'ok' would hide an outage.
      reply.header('Cache-Control', 'no-store');
      if (database === 'down') return reply.code(503).send({ status: 'error', database, version: VERSION });
      return { status: 'ok' as const, database, version: VERSION };
    });
  }
};

export default health;
