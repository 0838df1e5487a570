import type { FastifyPluginAsync } from 'fastify';

// Not built yet (issue 7 in progress): see docs/api-projects.md for the routes this file will serve.
const routes: FastifyPluginAsync = async () => {};

export default routes;
