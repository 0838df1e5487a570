import type { FastifyPluginAsync } from 'fastify';

// Not built yet (issue 6).
const routes: FastifyPluginAsync = async () => {};

export default routes;
