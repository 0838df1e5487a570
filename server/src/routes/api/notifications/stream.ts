import type { FastifyPluginAsync } from 'fastify';
import { ACCESS_TOKEN_TTL_S, type AccessClaims } from '../../../lib/tokens.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { NotificationInbox } from '../../../services/notification-inbox.ts';
import { NotificationStreams } from '../../../services/notification-stream.ts';
import { notifierOf } from '../../../services/notifier.ts';
import { memberTenants } from './scope.ts';

/** GET /api/notifications/stream/: the signed-in user's server-sent events (services/notification-stream.ts). */
const streamRoutes: FastifyPluginAsync = async (app) => {
  const notifier = notifierOf(app.database);
  const streams = new NotificationStreams(
    new NotificationInbox(app.database.db, notifier, app.database.statementTimeouts.write),
    notifier.bus,
  );
  app.addHook('preClose', async () => streams.endAll());

  const schema = {
    tags: ['Notifications'],
    summary: 'Flux server-sent events : unread, notification, et un commentaire toutes les 25 s',
    response: replies.signedIn({ 200: Type.String({ description: 'text/event-stream' }) }),
  };
  app.get('/api/notifications/stream/', { preValidation: [app.authenticate], schema }, async (request, reply) => {
    const auth = signedIn(request);
    // verifyAccess hands back the whole JWT payload: exp is there even though AccessClaims does not name it.
    const exp = (auth.claims as AccessClaims & { exp?: number }).exp;
    // Listening before the stream opens: nothing published after this answer starts can be missed.
    await notifier.bus.ready();
    const { stream, release } = streams.open({
      userId: auth.user.id,
      scope: memberTenants(request),
      expiresAt: typeof exp === 'number' ? exp * 1000 : Date.now() + ACCESS_TOKEN_TTL_S * 1000,
      log: request.log,
    });
    // The client went away: Fastify stops piping, and the stream is released here.
    reply.raw.once('close', release);
    return reply
      .header('Content-Type', 'text/event-stream; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('X-Accel-Buffering', 'no')
      .send(stream);
  });
};

export default streamRoutes;
