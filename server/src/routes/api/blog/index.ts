import type { FastifyPluginAsync } from 'fastify';
import postRoutes from './posts.ts';
import imageRoutes from './images.ts';

/** The blog area (docs/api-blog.md): the tenant's posts and tags, and the images they show. */
const blogArea: FastifyPluginAsync = async (app) => {
  await app.register(postRoutes);
  await app.register(imageRoutes);
};

export default blogArea;
