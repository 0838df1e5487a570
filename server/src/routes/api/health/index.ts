import type { FastifyPluginAsync } from 'fastify';
import { VERSION } from '../../../version.ts';

const PING_TIMEOUT_MS = 2000;

const health: FastifyPluginAsync = async (app) => {
  app.get('/api/health/', async (_request, reply) => {
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
  });
};

export default health;
