import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Choice, Type } from '../../../schemas/common.ts';
import { databaseHealth } from '../../../services/admin-status.ts';
import { VERSION } from '../../../version.ts';

const PING_TIMEOUT_MS = 2000;

const MESSAGES = {
  timeout: `La base de données ne répond pas (délai de ${PING_TIMEOUT_MS / 1000} s dépassé) : réessayez dans un instant.`,
} as const;

const Health = Type.Object(
  {
    status: Choice(['ok', 'error']),
    database: Choice(['ok', 'down'], {
      description: 'La base répond-elle (délai 2 s), et la dernière écriture de ce processus a-t-elle réussi ?',
    }),
    version: Type.String(),
    detail: Type.Optional(Type.String({ description: 'Pourquoi le service est indisponible (503 seulement).' })),
  },
  { description: 'État du service et de sa base de données' },
);

/** Liveness for probes and the client (docs/api-admin.md "Health and status"): no authentication, never cached. */
const health: FastifyPluginAsyncTypebox = async (app) => {
  const options = { schema: { tags: ['Système'], response: { 200: Health, 503: Health } } };
  // spec §7 names both paths; one handler answers them.
  for (const url of ['/api/health/', '/api/system/health/']) {
    app.get(url, options, async (request, reply) => {
      const problem = await Promise.race([
        databaseHealth(app.database),
        new Promise<string>((resolve) => setTimeout(() => resolve(MESSAGES.timeout), PING_TIMEOUT_MS).unref()),
      ]);
      // Health answers are never stored: a cached 'ok' would hide an outage.
      reply.header('Cache-Control', 'no-store');
      if (problem === undefined) return { status: 'ok' as const, database: 'ok' as const, version: VERSION };
      request.log.warn({ problem }, 'health check failed');
      return reply.code(503).send({ status: 'error', database: 'down', version: VERSION, detail: problem });
    });
  }
};

export default health;
