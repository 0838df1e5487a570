import { PassThrough } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { replies, Type } from '../../../schemas/common.ts';
import type { TenantId } from '../../../db/tenant-scope.ts';
import { ACCESS_TOKEN_TTL_S, type AccessClaims } from '../../../lib/tokens.ts';
import { presentNotification } from '../../../presenters/notification.ts';
import { NotificationsRepository } from '../../../repositories/notifications.ts';
import { notifierOf, type BusEvent } from '../../../services/notifier.ts';
import { eachTenant } from './scope.ts';

export const HEARTBEAT_MS = 25_000;

/**
 * GET /api/notifications/stream/: server-sent events for the signed-in user (docs/api-notifications.md § Paths).
 * `unread` on connect and after every change, `notification` for each new one, a comment every 25 s; the stream
 * ends when the access token expires (the client reconnects with a fresh one). Fed by the in-process bus.
 */
const streamRoutes: FastifyPluginAsync = async (app) => {
  const repo = new NotificationsRepository();
  const notifier = notifierOf(app.database);
  const open = new Set<PassThrough>();

  // Open streams never go idle: end them, or closing the server would wait for them forever.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });

  const schema = {
    tags: ['Notifications'],
    summary: 'Flux server-sent events : unread, notification, et un commentaire toutes les 25 s',
    response: replies.signedIn({ 200: Type.String({ description: 'text/event-stream' }) }),
  };
  app.get('/api/notifications/stream/', { preValidation: [app.authenticate], schema }, async (request, reply) => {
    const auth = signedIn(request);
    const userId = auth.user.id;
    const scope = auth.memberships.map((m) => ({ tenantId: m.tenantId as TenantId, tenantName: m.tenantName }));
    const tenantIds = new Set(scope.map((s) => s.tenantId));
    const stream = new PassThrough();
    open.add(stream);
    let closed = false;

    const write = (chunk: string) => {
      if (!closed) stream.write(chunk);
    };
    const send = (event: string, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

    // One count at a time; changes that arrive meanwhile are folded into one more count.
    let counting = false;
    let again = false;
    const sendUnread = async (): Promise<void> => {
      if (counting) {
        again = true;
        return;
      }
      counting = true;
      try {
        do {
          again = false;
          const counts = await eachTenant(app, scope, (tx) => repo.unreadCount(tx, userId));
          send('unread', { count: counts.reduce((a, b) => a + b, 0) });
        } while (again && !closed);
      } catch (err) {
        request.log.warn({ err }, 'notification stream: unread count failed');
      } finally {
        counting = false;
      }
    };

    const unsubscribe = notifier.bus.subscribe(userId, (event: BusEvent) => {
      if (event.type === 'notification') {
        if (!tenantIds.has(event.notification.tenantId as TenantId)) return;
        send('notification', presentNotification(event.notification));
      }
      void sendUnread();
    });
    const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
    // verifyAccess hands back the whole JWT payload: exp is there even though AccessClaims does not name it.
    const exp = (auth.claims as AccessClaims & { exp?: number }).exp;
    const expiresAt = typeof exp === 'number' ? exp * 1000 : Date.now() + ACCESS_TOKEN_TTL_S * 1000;
    const expiry = setTimeout(() => stream.end(), Math.max(0, expiresAt - Date.now()));

    const cleanup = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(expiry);
      unsubscribe();
      open.delete(stream);
    };
    stream.once('close', cleanup);
    stream.once('finish', cleanup);
    // The client went away: Fastify stops piping, and the stream is released here.
    reply.raw.once('close', () => {
      cleanup();
      stream.destroy();
    });

    write('retry: 5000\n\n');
    void sendUnread();
    return reply
      .header('Content-Type', 'text/event-stream; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('X-Accel-Buffering', 'no')
      .send(stream);
  });
};

export default streamRoutes;
