import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { VERSION } from '../../../version.ts';

const PING_TIMEOUT_MS = 2000;

const health: FastifyPluginAsync = async (app) => {
  const handler = async (_request: FastifyRequest, reply: FastifyReply) => {
    let database: 'ok' | 'down' = 'ok';
    try {
      await Promise.race([
        app.database.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS).unref()),
      ]);
    } catch {
      database = 'down';
    }
    // Health answers are never stored: a cached 'ok' would hide an outage.
    reply.header('Cache-Control', 'no-store');
    if (database === 'down') return reply.code(503).send({ status: 'error', database, version: VERSION });
    return { status: 'ok', database, version: VERSION };
  };

  // §7 names both paths; one handler answers them (docs/api-admin.md "Health and status").
  app.get('/api/health/', handler);
  app.get('/api/system/health/', handler);
};

export default health;
