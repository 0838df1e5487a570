import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../../../contract/levels.ts';
import { ApiError, FieldErrors, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canSendNotifications } from '../../../policies/index.ts';
import { NotificationSchema, presentNotification } from '../../../presenters/notification.ts';
import { NotificationsRepository, type NotificationView } from '../../../repositories/notifications.ts';
import { FilterQuery, IdParams, Nullable, QueryText, replies, Type, type Static } from '../../../schemas/common.ts';
import { BODY_MAX, notifierOf, TITLE_MAX } from '../../../services/notifier.ts';
import { eachTenant, scopeOf } from './scope.ts';
import { parseBoolean, positiveInt } from '../../../schemas/query.ts';

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

const TenantQuery = FilterQuery({ tenant: 'Organisation (UUID) ; sans elle, toutes celles de l’appelant' });
const ListNotificationsQuery = Type.Object(
  {
    tenant: QueryText('Organisation (UUID) ; sans elle, toutes celles de l’appelant'),
    unread: QueryText('true : seulement les non lues'),
    page: QueryText('Numéro de page, à partir de 1'),
    size: QueryText(`Taille de page (défaut ${DEFAULT_SIZE}, au plus ${MAX_SIZE})`),
  },
  { additionalProperties: true },
);

/** Types by the schema (each with the contract's message); trimming, lengths and the link rule by readNotice. */
const CreateBody = Type.Object(
  {
    title: Type.Optional(Type.String({ errorMessage: MESSAGES.title })),
    body: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.body }))),
    level: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.level }))),
    link: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.link }))),
    user: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, errorMessage: MESSAGES.user })),
    ),
  },
  { additionalProperties: false },
);
type CreateBody = Static<typeof CreateBody>;

const NotificationList = Type.Object({
  results: Type.Array(NotificationSchema),
  count: Type.Integer(),
  unread: Type.Integer(),
});
const tags = ['Notifications'];

/** An app path: one leading slash (never '//', which browsers read as another host), no backslash or space. */
function isAppPath(link: string): boolean {
  // eslint-disable-next-line no-control-regex
  return link.length <= MAX_LINK && /^\/(?!\/)/.test(link) && !/[\\\s\u0000-\u001f\u007f]/.test(link);
}

/** The create body checked field by field, with the contract's French messages. */
function readNotice(body: CreateBody) {
  const errors = new FieldErrors();
  const title = body.title?.trim() ?? '';
  if (title === '' || title.length > TITLE_MAX || title.includes('\u0000')) errors.add('title', MESSAGES.title);

  let text = '';
  if (typeof body.body === 'string') {
    if (body.body.length <= BODY_MAX && !body.body.includes('\u0000')) text = body.body.trim();
    else errors.add('body', MESSAGES.body);
  }

  let level: NotificationLevel = 'info';
  if (typeof body.level === 'string') {
    const raw = body.level.trim().toLowerCase();
    if ((NOTIFICATION_LEVELS as readonly string[]).includes(raw)) level = raw as NotificationLevel;
    else errors.add('level', MESSAGES.level);
  }

  let link: string | null = null;
  if (typeof body.link === 'string' && body.link !== '') {
    const raw = body.link.trim();
    if (isAppPath(raw)) link = raw;
    else errors.add('link', MESSAGES.link);
  }

  const user = typeof body.user === 'number' ? body.user : undefined;
  errors.throwIfAny();
  return { title, body: text, level, link, user };
}

const userError = () => new ApiError(400, 'invalid', MESSAGES.user, { fields: { user: [MESSAGES.user] } });

/** Newest first, then the highest id (two rows written in the same transaction share created_at). */
const newestFirst = (a: NotificationView, b: NotificationView) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id;

/** The caller's notifications: list, unread count, marks, and the managers' messages (docs/api-notifications.md). */
const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new NotificationsRepository();
  const notifier = notifierOf(app.database, app.log.child({ module: 'notifications' }));
  const anyone = { preValidation: [app.authenticate] };
  const sender = app.guard((auth) => canSendNotifications(auth.actor), {
    refusal: 'envoi de notifications réservé aux responsables',
  });

  app.get(
    LIST,
    {
      ...anyone,
      schema: {
        tags,
        summary: 'Les notifications de l’appelant, les plus récentes d’abord',
        querystring: ListNotificationsQuery,
        response: replies.signedIn({ 200: NotificationList }, 400),
      },
    },
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
      const userId = signedIn(request).user.id;
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

  app.get(
    `${LIST}unread_count/`,
    {
      ...anyone,
      schema: {
        tags,
        querystring: TenantQuery,
        response: replies.signedIn({ 200: Type.Object({ count: Type.Integer() }) }, 400),
      },
    },
    async (request) => {
      const scope = await scopeOf(app, request, request.query.tenant);
      const userId = signedIn(request).user.id;
      const counts = await eachTenant(app, scope, (tx) => repo.unreadCount(tx, userId));
      return { count: counts.reduce((a, b) => a + b, 0) };
    },
  );

  app.post(
    `${LIST}:id/mark_as_read/`,
    {
      ...anyone,
      schema: {
        tags,
        params: IdParams,
        response: replies.signedIn({ 200: Type.Object({ id: Type.Integer(), read: Type.Literal(true) }) }, 404),
      },
    },
    async (request) => {
      const id = Number(request.params.id);
      const userId = signedIn(request).user.id;
      // The id alone does not say which tenant holds it: look in each of the caller's, stop at the first hit.
      for (const tenant of await scopeOf(app, request, undefined)) {
        const [marked] = await eachTenant(app, [tenant], (tx) => repo.markRead(tx, userId, id));
        if (!marked) continue;
        if (marked.changed) notifier.changed(userId);
        return { id, read: true as const };
      }
      throw notFound();
    },
  );

  app.post(
    `${LIST}mark_all_as_read/`,
    {
      ...anyone,
      schema: {
        tags,
        querystring: TenantQuery,
        // The body is optional (`{tenant}` may come there instead of the query), so it is read, not validated.
        description: 'Organisation dans la requête (`?tenant=`) ou le corps (`{"tenant": "…"}`).',
        response: replies.signedIn({ 200: Type.Object({ updated: Type.Integer() }) }, 400),
      },
    },
    async (request) => {
      const body = request.body;
      const fromBody =
        typeof body === 'object' && body !== null && !Array.isArray(body)
          ? (body as { tenant?: unknown }).tenant
          : undefined;
      const scope = await scopeOf(app, request, request.query.tenant ?? fromBody);
      const userId = signedIn(request).user.id;
      const updated = (await eachTenant(app, scope, (tx) => repo.markAllRead(tx, userId))).reduce((a, b) => a + b, 0);
      if (updated > 0) notifier.changed(userId);
      return { updated };
    },
  );

  app.post(
    LIST,
    {
      ...sender,
      schema: {
        tags,
        summary: 'Message d’un responsable à un membre ou à toute l’organisation',
        body: CreateBody,
        response: replies.signedIn(
          { 201: Type.Object({ results: Type.Array(NotificationSchema), count: Type.Integer() }) },
          400,
        ),
      },
    },
    async (request, reply) => {
      const notice = readNotice(request.body);
      const senderId = signedIn(request).user.id;
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
            createdBy: senderId,
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
