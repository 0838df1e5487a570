import type { FastifyPluginAsync } from 'fastify';
import { notifierOf } from '../../../services/notifier.ts';
import notificationRoutes from './notifications.ts';
import streamRoutes from './stream.ts';

/**
 * /api/notifications (docs/api-notifications.md): the caller's notifications across their tenants, the managers'
 * messages, and the live stream. Notifications themselves are made by services/notifier.ts.
 */
const notificationsArea: FastifyPluginAsync = async (app) => {
  await app.register(notificationRoutes);
  await app.register(streamRoutes);
  // E-mails still being written go out before the database closes.
  app.addHook('onClose', async () => notifierOf(app.database).close());
};

export default notificationsArea;
