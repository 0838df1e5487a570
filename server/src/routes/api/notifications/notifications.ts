import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { canSendNotifications, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { presentNotification } from '../../../presenters/notification.ts';
import { NotificationsRepository, type NotificationView } from '../../../repositories/notifications.ts';
import { BODY_MAX, notifierOf, TITLE_MAX } from '../../../services/notifier.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import { idParams, notFound, parseBoolean, parseId, positiveInt, stringQuery, type RawQuery } from '../shared.ts';
import { eachTenant, scopeOf } from './scope.ts';

const LIST = '/api/notifications/notifications/';
const DEFAULT_SIZE = 50;
const MAX_SIZE = 200;
const MAX_LINK = 1000;

const MESSAGES = {
  page: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  size: `Taille de page invalide : un entier entre 1 et ${MAX_SIZE} est attendu.`,
  title: `Le titre est obligatoire (${TITLE_MAX} caractères au plus).`,
  body: `Le texte dépasse ${BODY_MAX} caractères.`,
  level: 'Niveau invalide : info, warning ou critical.',
  link: "Lien invalide : un chemin de l'application commençant par « / » est attendu.",
  user: 'Destinataire inconnu dans cette organisation.',
} as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: { title: {}, body: {}, level: {}, link: {}, user: {} },
} as const;

type Body = Record<string, unknown>;
const isRecord = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An app path: one leading slash (never '//', which browsers read as another host), no backslash or space. */
function isAppPath(link: string): boolean {
  // eslint-disable-next-line no-control-regex
  return link.length <= MAX_LINK && /^\/(?!\/)/.test(link) && !/[\\\s\u0000-\u001f\u007f]/.test(link);
}

/** The create body checked field by field, with the contract's French messages. */
function readNotice(body: Body) {
  const errors = new FieldErrors();
  const title = typeof body.title === 'string' ? body.title.trim() : '';
  if (title === '' || title.length > TITLE_MAX || title.includes('\u0000')) errors.add('title', MESSAGES.title);

  let text = '';
  if (body.body !== undefined && body.body !== null) {
    if (typeof body.body === 'string' && body.body.length <= BODY_MAX && !body.body.includes('\u0000')) {
      text = body.body.trim();
    } else errors.add('body', MESSAGES.body);
  }

  let level: NotificationLevel = 'info';
  if (body.level !== undefined && body.level !== null) {
    const raw = typeof body.level === 'string' ? body.level.trim().toLowerCase() : '';
    if ((NOTIFICATION_LEVELS as readonly string[]).includes(raw)) level = raw as NotificationLevel;
    else errors.add('level', MESSAGES.level);
  }

  let link: string | null = null;
  if (body.link !== undefined && body.link !== null && body.link !== '') {
    const raw = typeof body.link === 'string' ? body.link.trim() : '';
    if (isAppPath(raw)) link = raw;
    else errors.add('link', MESSAGES.link);
  }

  let user: number | undefined;
  if (body.user !== undefined && body.user !== null) {
    if (typeof body.user === 'number' && Number.isSafeInteger(body.user) && body.user > 0) user = body.user;
    else errors.add('user', MESSAGES.user);
  }
  errors.throwIfAny();
  return { title, body: text, level, link, user };
}

const userError = () => new ApiError(400, 'invalid', MESSAGES.user, { fields: { user: [MESSAGES.user] } });

/** Newest first, then the highest id (two rows written in the same transaction share created_at). */
const newestFirst = (a: NotificationView, b: NotificationView) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id;

/** The caller's notifications: list, unread count, marks, and the managers' messages (docs/api-notifications.md). */
const notificationRoutes: FastifyPluginAsync = async (app) => {
  const repo = new NotificationsRepository();
  const notifier = notifierOf(app.database, app.log.child({ module: 'notifications' }));
  const signedIn = { preValidation: [app.authenticate] };

  const requireSender = async (request: FastifyRequest) => {
    const auth = request.auth!;
    if (auth.tenant && canSendNotifications(auth.actor)) return;
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : envoi de notifications réservé aux responsables',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  app.get<{ Querystring: RawQuery }>(
    LIST,
    { ...signedIn, schema: { querystring: stringQuery(['tenant', 'unread', 'page', 'size']) } },
    async (request) => {
      const q = request.query;
      const errors = new FieldErrors();
      const page = positiveInt(q.page);
      if (page === null) errors.add('page', MESSAGES.page);
      const size = positiveInt(q.size);
      if (size === null || (size !== undefined && size > MAX_SIZE)) errors.add('size', MESSAGES.size);
      const unreadOnly = parseBoolean(errors, q, 'unread') ?? false;
      errors.throwIfAny();
      const scope = await scopeOf(app, request, q.tenant);
      const limit = size ?? DEFAULT_SIZE;
      const offset = ((page ?? 1) - 1) * limit;
      const userId = request.auth!.user.id;
      // One tenant pages in the database; several are merged here from each one's first offset + limit rows.
      const single = scope.length === 1;
      const parts = await eachTenant(app, scope, (tx) =>
        repo.page(tx, userId, { unreadOnly, limit: single ? limit : offset + limit, offset: single ? offset : 0 }),
      );
      const rows = single ? (parts[0]?.rows ?? []) : parts.flatMap((p) => p.rows).sort(newestFirst);
      return {
        results: (single ? rows : rows.slice(offset, offset + limit)).map(presentNotification),
        count: parts.reduce((n, p) => n + p.count, 0),
        unread: parts.reduce((n, p) => n + p.unread, 0),
      };
    },
  );

  app.get<{ Querystring: RawQuery }>(
    `${LIST}unread_count/`,
    { ...signedIn, schema: { querystring: stringQuery(['tenant']) } },
    async (request) => {
      const scope = await scopeOf(app, request, request.query.tenant);
      const userId = request.auth!.user.id;
      const counts = await eachTenant(app, scope, (tx) => repo.unreadCount(tx, userId));
      return { count: counts.reduce((a, b) => a + b, 0) };
    },
  );

  app.post<{ Params: { id: string } }>(
    `${LIST}:id/mark_as_read/`,
    { ...signedIn, schema: { params: idParams } },
    async (request) => {
      const id = parseId(request.params.id);
      if (id === undefined) throw notFound();
      const userId = request.auth!.user.id;
      // The id alone does not say which tenant holds it: look in each of the caller's, stop at the first hit.
      for (const tenant of await scopeOf(app, request, undefined)) {
        const [marked] = await eachTenant(app, [tenant], (tx) => repo.markRead(tx, userId, id));
        if (!marked) continue;
        if (marked.changed) notifier.changed(userId);
        return { id, read: true };
      }
      throw notFound();
    },
  );

  app.post<{ Querystring: RawQuery }>(
    `${LIST}mark_all_as_read/`,
    { ...signedIn, schema: { querystring: stringQuery(['tenant']) } },
    async (request) => {
      const fromBody = isRecord(request.body) ? request.body.tenant : undefined;
      const scope = await scopeOf(app, request, request.query.tenant ?? fromBody);
      const userId = request.auth!.user.id;
      const updated = (await eachTenant(app, scope, (tx) => repo.markAllRead(tx, userId))).reduce((a, b) => a + b, 0);
      if (updated > 0) notifier.changed(userId);
      return { updated };
    },
  );

  app.post(
    LIST,
    { preValidation: [app.authenticate, requireSender], schema: { body: createBody } },
    async (request, reply) => {
      const notice = readNotice(isRecord(request.body) ? request.body : {});
      const sender = request.auth!.user;
      const created = await request.tenantDb(async (tx) => {
        const written = await notifier.write(
          tx,
          notice.user !== undefined ? { users: [notice.user] } : { everyone: true },
          {
            kind: 'manual',
            level: notice.level,
            title: notice.title,
            body: notice.body,
            link: notice.link,
            createdBy: sender.id,
          },
          { strict: true },
        );
        // Only active members of this tenant are recipients: anyone else is unknown here.
        if (notice.user !== undefined && written.length === 0) throw userError();
        return written;
      });
      notifier.publish(created);
      await app.audit.record(request, {
        eventType: 'data_change',
        description: `Notification « ${notice.title} » envoyée (${created.length} destinataire${created.length > 1 ? 's' : ''})`,
        extra: {
          action: 'notification_created',
          object_type: 'notification',
          count: created.length,
          recipient: notice.user ?? 'all',
          level: notice.level,
          notification_ids: created.slice(0, 100).map((c) => c.notification.id),
        },
      });
      return reply.code(201).send({
        results: created.map((c) => presentNotification(c.notification)),
        count: created.length,
      });
    },
  );
};

export default notificationRoutes;
