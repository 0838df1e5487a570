import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canWriteBlog } from '../../../policies/index.ts';
import { BlogPostSchema, presentBlogPost } from '../../../presenters/blog-post.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { BlogRepository, type BlogPostRow } from '../../../repositories/blog.ts';
import {
  checkPost,
  LIST_KEYS,
  ListPostsQuery,
  POST_BODY_LIMIT,
  PostBody,
  readPostList,
  SlugParams,
  slugOf,
} from '../../../schemas/blog.ts';
import { NoContent, Paged, replies, Type } from '../../../schemas/common.ts';
import { BlogPosts, postAudit } from '../../../services/blog-posts.ts';
import { blogGuards } from './guards.ts';
import { pageWindow } from '../../../schemas/query.ts';

const LIST_PATH = '/api/blog/posts/';
const POST_PATH = `${LIST_PATH}:slug/`;
const tags = ['Blog'];

/** Posts and tags (docs/api-blog.md "Paths"). */
const postRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = blogGuards(app);
  const repo = new BlogRepository();
  const posts = new BlogPosts();
  const canWrite = (request: FastifyRequest) => canWriteBlog(signedIn(request).actor);
  const audit = (request: FastifyRequest, before: BlogPostRow | undefined, after: BlogPostRow | undefined) =>
    app.audit.record(request, postAudit(before, after));

  app.get(
    LIST_PATH,
    {
      ...guard.read,
      schema: { tags, querystring: ListPostsQuery, response: replies.signedIn({ 200: Paged(BlogPostSchema) }, 400) },
    },
    async (request) => {
      const { paging, tag, text, statuses, draftsAsked } = readPostList(request.query);
      if (draftsAsked && !canWrite(request)) await guard.deny(request);
      const page = await request.tenantDb((tx) => repo.page(tx, { statuses, tag, q: text, ...pageWindow(paging) }));
      return pagedResponse(LIST_PATH, request.query, LIST_KEYS, paging, page.count, page.rows.map(presentBlogPost));
    },
  );

  app.get(
    '/api/blog/tags/',
    {
      ...guard.read,
      schema: {
        tags,
        response: replies.signedIn({
          200: Type.Object({ results: Type.Array(Type.Object({ tag: Type.String(), count: Type.Integer() })) }),
        }),
      },
    },
    async (request) => ({ results: await request.tenantDb((tx) => repo.tags(tx)) }),
  );

  app.get(
    POST_PATH,
    {
      ...guard.read,
      schema: { tags, params: SlugParams, response: replies.signedIn({ 200: BlogPostSchema }, 404) },
    },
    async (request) => {
      const slug = slugOf(request.params.slug);
      const post = await request.tenantDb((tx) => repo.findBySlug(tx, slug));
      // Drafts exist only for writers.
      if (!post || (post.status === 'draft' && !canWrite(request))) throw notFound();
      return presentBlogPost(post);
    },
  );

  app.post(
    LIST_PATH,
    {
      ...guard.write,
      bodyLimit: POST_BODY_LIMIT,
      schema: { tags, body: PostBody, response: replies.signedIn({ 201: BlogPostSchema }, 400, 409, 413) },
    },
    async (request, reply) => {
      const checked = checkPost(request.body, true);
      const { actor, user } = signedIn(request);
      // Signed with the writer's full name, else the username.
      const author = {
        id: actor.userId,
        name: `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim() || user.username,
      };
      const post = await request.tenantDb((tx) => posts.create(tx, checked, author));
      await audit(request, undefined, post);
      return reply.code(201).send(presentBlogPost(post));
    },
  );

  app.patch(
    POST_PATH,
    {
      ...guard.write,
      bodyLimit: POST_BODY_LIMIT,
      schema: {
        tags,
        params: SlugParams,
        body: PostBody,
        response: replies.signedIn({ 200: BlogPostSchema }, 400, 404, 409, 413),
      },
    },
    async (request) => {
      const current = slugOf(request.params.slug);
      const checked = checkPost(request.body, false);
      const { before, after } = await request.tenantDb((tx) => posts.update(tx, current, checked));
      await audit(request, before, after);
      return presentBlogPost(after);
    },
  );

  app.delete(
    POST_PATH,
    { ...guard.write, schema: { tags, params: SlugParams, response: replies.signedIn({ 204: NoContent }, 404) } },
    async (request, reply) => {
      const slug = slugOf(request.params.slug);
      const removed = await request.tenantDb((tx) => posts.remove(tx, slug));
      await audit(request, removed, undefined);
      return reply.code(204).send();
    },
  );
};

export default postRoutes;
