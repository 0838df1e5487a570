import type { FastifyPluginAsync } from 'fastify';

// Placeholder: routes are being written (identity issue).
const routes: FastifyPluginAsync = async () => {};

export default routes;
