import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../../db/client.ts';
import { ApiError } from '../../../domain/errors.ts';
import { ACCESS_COOKIE, readAuthorization } from '../../../plugins/app/authentication.ts';
import { describeUserAgent } from '../../../plugins/app/audit.ts';
import { MAX_EVENTS, readEventBatch } from '../../../schemas/audit.ts';
import { replies, Type } from '../../../schemas/common.ts';
import { storeClientEvents } from '../../../services/client-audit-events.ts';

const MAX_BODY = 256 * 1024;
// Anonymous clients may only leave a few events (an expired session's last words), per IP and minute.
const ANONYMOUS_EVENTS_PER_MINUTE = 60;
/** A wall screen's events (its failed reads during an outage, sent once the server is back). */
const DISPLAY_EVENTS_PER_MINUTE = 300;

const Accepted = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0, description: 'Événements enregistrés' }),
    duplicates: Type.Optional(Type.Integer({ minimum: 0, description: 'Déjà reçus (même event_id), ignorés' })),
  },
  { description: 'Événements reçus' },
);

/** The client's audit buffer: events posted by fetch or sendBeacon, signed in or not (docs/api-audit.md). */
const auditEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  // sendBeacon with a string body sends text/plain. Parsed here, so the input guard reads its events as it reads
  // a JSON body's.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: MAX_BODY }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new ApiError(400, 'invalid', 'Corps JSON invalide.'), undefined);
    }
  });

  /**
   * Who sent the events: the Bearer header (fetch), else the token inside a beacon body, else the access cookie.
   * The cookie is SameSite=Strict, so another site cannot make a browser send it here; that is why this write
   * accepts it without the CSRF header a beacon cannot carry.
   */
  const authenticateEvents = async (request: FastifyRequest, bodyToken: string | undefined) => {
    const header = readAuthorization(request.headers.authorization);
    const token = header ?? bodyToken ?? request.cookies[ACCESS_COOKIE];
    if (!token) return false;
    if (!header) request.headers.authorization = `Bearer ${token}`;
    try {
      await app.authenticate(request);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 401) return false;
      throw err;
    }
  };

  const schema = {
    tags: ['Journal d’audit'],
    description: `Corps : {events: [...], token?} en JSON, ou la même chose en text/plain (sendBeacon) ; au plus ${MAX_EVENTS} événements.`,
    response: replies({ 202: Accepted }, 400, 403, 413, 429),
  };
  app.post('/api/audit/events/', { bodyLimit: MAX_BODY, schema }, async (request, reply) => {
    const { events, token } = readEventBatch(request.body);
    const display = request.display;
    if (display) {
      // A wall screen (plugins/app/display-devices.ts recognised it): its events go to its tenant, on a budget of its own.
      await app.limits.hitCount(request, 'display_audit', events.length, DISPLAY_EVENTS_PER_MINUTE, display.id);
      if (events.length === 0) return reply.code(202).send({ accepted: 0 });
      const tenantId = display.tenant?.id ?? null;
      const store = (db: Db) =>
        storeClientEvents(db, events, {
          tenantId,
          userId: null,
          username: null,
          ip: request.ip,
          userAgent: describeUserAgent(request.headers['user-agent']),
          authenticated: true,
          displayId: display.id,
        });
      const accepted = display.tenant ? await request.tenantDb(store) : await store(app.database.db);
      return reply.code(202).send({ accepted, duplicates: events.length - accepted });
    }
    const authenticated = await authenticateEvents(request, token);
    if (!authenticated) {
      await app.limits.hitCount(request, 'anonymous_audit', events.length, ANONYMOUS_EVENTS_PER_MINUTE);
    }
    if (events.length === 0) return reply.code(202).send({ accepted: 0 });

    const auth = request.auth;
    const store = (db: Db) =>
      storeClientEvents(db, events, {
        tenantId: auth?.tenant?.id ?? null,
        userId: auth?.user.id ?? null,
        username: auth?.user.username ?? null,
        ip: request.ip,
        userAgent: describeUserAgent(request.headers['user-agent']),
        authenticated,
      });
    const accepted = auth?.tenant ? await request.tenantDb(store) : await store(app.database.db);
    return reply.code(202).send({ accepted, duplicates: events.length - accepted });
  });
};

export default auditEventsRoute;
