import type { FastifyPluginAsync } from 'fastify';

/** The notifications area (docs/api-notifications.md). Being built (issue 8). */
const notificationsArea: FastifyPluginAsync = async () => {};

export default notificationsArea;
