import type { FastifyPluginAsync } from 'fastify';

/** The blog area (docs/api-blog.md). Being built (issue 8). */
const blogArea: FastifyPluginAsync = async () => {};

export default blogArea;
