import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServerLogSink, type LogEntry, type LogLevel } from '../../services/server-logs.ts';

const MAX_USER_AGENT = 200;

function levelOf(path: string, status: number): LogLevel {
  if (status >= 500) return 'error';
  // Static files and the app shell are noise next to the API: kept only at the debug level.
  if (!path.startsWith('/api/')) return 'debug';
  return status >= 400 ? 'warning' : 'info';
}

/** The access line of one answered request (the URL and message are redacted by the sink). */
export function accessEntry(request: FastifyRequest, reply: FastifyReply): LogEntry {
  const path = request.url.split('?')[0] ?? '';
  const status = reply.statusCode;
  const userAgent = request.headers['user-agent'];
  return {
    time: new Date(),
    level: levelOf(path, status),
    message: `${request.method} ${path} ${status}`,
    requestId: request.id,
    method: request.method,
    url: request.url,
    statusCode: status,
    responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
    tenantId: request.auth?.tenant?.id ?? null,
    userId: request.auth?.user.id ?? null,
    context: {
      ip: request.ip,
      route: request.routeOptions.url ?? null,
      ...(userAgent ? { user_agent: userAgent.slice(0, MAX_USER_AGENT) } : {}),
    },
  };
}

/**
 * The queryable log store (docs/api-admin.md "Logs"): one access line per answered request, written in batches
 * by the sink; the server's other pino lines reach the same sink through its stream (server.ts).
 */
export default fp(
  async (app) => {
    const sink = ServerLogSink.of(app.database);
    sink.reopen();
    app.addHook('onResponse', async (request, reply) => {
      sink.push(accessEntry(request, reply));
    });
    // Before the database closes (plugins close before the root's own onClose).
    app.addHook('onClose', async () => sink.close());
  },
  { name: 'server-logs', dependencies: ['database', 'authentication'] },
);
