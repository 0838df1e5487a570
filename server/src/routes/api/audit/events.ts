import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auditEvents, type AuditSeverity } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { ACCESS_COOKIE, readAuthorization } from '../../../plugins/app/authentication.ts';
import { describeUserAgent } from '../../../plugins/app/audit.ts';
import { replies, Type } from '../../../schemas/common.ts';

const MAX_EVENTS = 200;
const MAX_BODY = 256 * 1024;
// Anonymous clients may only leave a few events (an expired session's last words), per IP and minute.
const ANONYMOUS_EVENTS_PER_MINUTE = 60;

// The client's levels (lower case, with debug) onto the trail's severities.
const SEVERITY: Record<string, AuditSeverity> = {
  debug: 'INFO',
  info: 'INFO',
  warning: 'WARNING',
  error: 'ERROR',
  critical: 'CRITICAL',
};

/** One event as the client wrote it (event_id, timestamp, event_type, severity, details, url): nothing trusted. */
type ClientEvent = Record<string, unknown>;

const Accepted = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0, description: 'Événements enregistrés' }),
    duplicates: Type.Optional(Type.Integer({ minimum: 0, description: 'Déjà reçus (même event_id), ignorés' })),
  },
  { description: 'Événements reçus' },
);

const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined);

/** Bodies arrive as JSON from fetch, and as a text/plain JSON string from sendBeacon. */
function readBody(body: unknown): { events: ClientEvent[]; token?: string } {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new ApiError(400, 'invalid', 'Corps JSON invalide.');
    }
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { events?: unknown }).events)) {
    throw new ApiError(400, 'invalid', 'Le champ events (liste) est requis.', {
      fields: { events: ['Liste requise.'] },
    });
  }
  const { events, token } = parsed as { events: unknown[]; token?: unknown };
  if (events.length > MAX_EVENTS)
    throw new ApiError(413, 'too_many_events', `Au plus ${MAX_EVENTS} événements par envoi.`);
  if (!events.every((e) => e && typeof e === 'object' && !Array.isArray(e))) {
    throw new ApiError(400, 'invalid', 'Chaque événement doit être un objet.');
  }
  return { events: events as ClientEvent[], ...(typeof token === 'string' ? { token } : {}) };
}

/** The client's audit buffer: events posted by fetch or sendBeacon, signed in or not (docs/api-audit.md). */
const auditEventsRoute: FastifyPluginAsyncTypebox = async (app) => {
  // sendBeacon with a string body sends text/plain.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: MAX_BODY }, (_req, body, done) =>
    done(null, body),
  );

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
    const { events, token } = readBody(request.body);
    const authenticated = await authenticateEvents(request, token);
    if (!authenticated)
      await app.limits.hitCount(request, 'anonymous_audit', events.length, ANONYMOUS_EVENTS_PER_MINUTE);

    const ua = describeUserAgent(request.headers['user-agent']);
    const auth = request.auth;
    const rows = events.map((e) => {
      const eventType = (text(e.event_type, 64) ?? 'ui_event').replace(/[^\w.:-]/g, '_');
      const details =
        e.details && typeof e.details === 'object' && !Array.isArray(e.details)
          ? (e.details as Record<string, unknown>)
          : {};
      const detailsJson = JSON.stringify(details);
      return {
        tenantId: auth?.tenant?.id ?? null,
        eventType,
        // Identity comes from the credentials, never from what the client wrote into the event.
        userId: auth?.user.id ?? null,
        username: auth?.user.username ?? null,
        ipAddress: request.ip,
        description: text(details.description, 500) ?? eventType,
        severity: SEVERITY[String(e.severity)] ?? 'INFO',
        source: 'frontend',
        clientEventId: text(e.event_id, 64) ?? null,
        details: {
          ...ua,
          success: details.success !== false,
          client_timestamp: text(e.timestamp, 40),
          url: text(e.url, 2000),
          client: detailsJson.length > 8192 ? { truncated: true } : details,
          ...(authenticated ? {} : { unauthenticated: true }),
        },
      };
    });
    if (rows.length === 0) return reply.code(202).send({ accepted: 0 });

    const insert = async (db: typeof app.database.db) =>
      db.insert(auditEvents).values(rows).onConflictDoNothing().returning({ id: auditEvents.id });
    const inserted = auth?.tenant ? await request.tenantDb((tx) => insert(tx)) : await insert(app.database.db);
    return reply.code(202).send({ accepted: inserted.length, duplicates: rows.length - inserted.length });
  });
};

export default auditEventsRoute;
