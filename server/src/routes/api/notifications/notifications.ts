import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canSendNotifications } from '../../../policies/index.ts';
import { NotificationSchema, presentNotification } from '../../../presenters/notification.ts';
import { IdParams, replies, Type } from '../../../schemas/common.ts';
import {
  CreateBody,
  ListNotificationsQuery,
  markAllTenant,
  readListQuery,
  readNotice,
  TenantQuery,
} from '../../../schemas/notifications.ts';
import { NotificationInbox } from '../../../services/notification-inbox.ts';
import { notifierOf } from '../../../services/notifier.ts';
import { scopeOf } from './scope.ts';

const LIST = '/api/notifications/notifications/';
const tags = ['Notifications'];
const NotificationList = Type.Object({
  results: Type.Array(NotificationSchema),
  count: Type.Integer(),
  unread: Type.Integer(),
});

/** The caller's notifications: list, unread count, marks, and the managers' messages (docs/api-notifications.md). */
const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const notifier = notifierOf(app.database, app.log.child({ module: 'notifications' }));
  const inbox = new NotificationInbox(app.database.db, notifier, app.database.statementTimeouts.write);
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
    async (request, reply) => {
      const options = readListQuery(request.query);
      const scope = await scopeOf(app, request, request.query.tenant);
      const userId = signedIn(request).user.id;
      // Kept under a crowd until any of the user's notifications changes (services/kept-sign-in.ts).
      const key = `inbox|${userId}|${scope.map((t) => t.tenantId).join(',')}|${JSON.stringify(options)}`;
      return reply.keptAnswer(
        app.keptSignIn.inboxVersion(userId),
        key,
        async () => {
          const { rows, count, unread } = await inbox.list(scope, userId, options);
          return { results: rows.map(presentNotification), count, unread };
        },
        'inboxes',
      );
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
    async (request, reply) => {
      const scope = await scopeOf(app, request, request.query.tenant);
      const userId = signedIn(request).user.id;
      return reply.keptAnswer(
        app.keptSignIn.inboxVersion(userId),
        `inbox-unread|${userId}|${scope.map((t) => t.tenantId).join(',')}`,
        async () => ({ count: await inbox.unreadCount(scope, userId) }),
        'inboxes',
      );
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
      const scope = await scopeOf(app, request, undefined);
      if (!(await inbox.markRead(scope, signedIn(request).user.id, id))) throw notFound();
      return { id, read: true as const };
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
      const scope = await scopeOf(app, request, markAllTenant(request.query, request.body));
      return { updated: await inbox.markAllRead(scope, signedIn(request).user.id) };
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
      const created = await request.tenantDb((tx) => inbox.send(tx, notice, signedIn(request).user.id));
      notifier.publish(created);
      const count = created.length;
      await app.audit.record(request, {
        eventType: 'data_change',
        description: `Notification « ${notice.title} » envoyée (${count} destinataire${count > 1 ? 's' : ''})`,
        extra: {
          action: 'notification_created',
          object_type: 'notification',
          count,
          recipient: notice.user ?? 'all',
          level: notice.level,
          notification_ids: created.slice(0, 100).map((c) => c.notification.id),
        },
      });
      return reply.code(201).send({ results: created.map((c) => presentNotification(c.notification)), count });
    },
  );
};

export default notificationRoutes;
