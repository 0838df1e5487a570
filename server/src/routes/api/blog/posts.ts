import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { BLOG_STATUSES, type BlogStatus } from '../../../db/schema.ts';
import { ApiError, FieldErrors, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canWriteBlog } from '../../../policies/index.ts';
import { BlogPostSchema, presentBlogPost } from '../../../presenters/blog-post.ts';
import {
  BlogRepository,
  SLUG_RE,
  slugify,
  SlugTakenError,
  type BlogPostRow,
  type BlogPostValues,
} from '../../../repositories/blog.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import { ListQuery, NoContent, Nullable, Paged, replies, Type } from '../../../schemas/common.ts';
import { blogGuards } from './guards.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { parsePaging, parseText } from '../../../schemas/query.ts';

const LIST_PATH = '/api/blog/posts/';
const POST_PATH = `${LIST_PATH}:slug/`;
const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 50;
const MAX_TITLE = 200;
const MAX_SLUG = 100;
const MAX_EXCERPT = 500;
const MAX_CONTENT = 200_000;
const MAX_TAGS = 10;
const MAX_TAG = 40;
const MAX_IMAGE_PATH = 500;
// 200 000 characters may take several bytes each in JSON (accents, escapes): above the app's 1 MiB default.
const BODY_LIMIT = 4 * 1024 * 1024;

const LIST_STATUSES = ['published', 'draft', 'all'] as const;
type ListStatus = (typeof LIST_STATUSES)[number];

export const MESSAGES = {
  title: 'Le titre est obligatoire (200 caractères au plus).',
  slug: 'Lien invalide : lettres minuscules, chiffres et tirets.',
  slugTaken: 'Ce lien (slug) est déjà utilisé.',
  excerpt: 'Le résumé ne doit pas dépasser 500 caractères.',
  content: 'Le contenu est obligatoire (200 000 caractères au plus).',
  tags: '10 étiquettes au plus, de 40 caractères chacune.',
  featuredImage: 'Image mise en avant invalide : un chemin de ce site commençant par un seul / est attendu.',
  status: 'Statut invalide : draft ou published.',
  listStatus: 'Statut invalide : published, draft ou all.',
  body: 'Corps invalide : un objet JSON est attendu.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
} as const;

const EDITABLE = new Set(['title', 'slug', 'excerpt', 'content', 'tags', 'featured_image', 'status']);
// Fields of a BlogPost a client may send back from a post it read: ignored.
const READ_ONLY = new Set(['id', 'author', 'published_date', 'created_at', 'updated_at']);

const SlugParams = Type.Object({ slug: Type.String({ maxLength: 1000 }) });
const ListPostsQuery = ListQuery({
  tag: 'Étiquette exacte',
  q: 'Recherche dans le titre, le résumé et le contenu',
  status: 'published (défaut), draft ou all (rédacteurs seulement)',
});
const LIST_KEYS = Object.keys(ListPostsQuery.properties);

/**
 * Types by the schema, each with the contract's message; trimming, sizes in characters, the slug and image rules
 * and unknown fields (« Champ inattendu ») by checkPost. Read-only fields a client sends back are ignored.
 */
const PostBody = Type.Object(
  {
    title: Type.Optional(Type.String({ errorMessage: MESSAGES.title })),
    slug: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.slug }))),
    excerpt: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.excerpt }))),
    content: Type.Optional(Type.String({ errorMessage: MESSAGES.content, description: 'Markdown' })),
    tags: Type.Optional(Nullable(Type.Array(Type.String(), { errorMessage: MESSAGES.tags }))),
    featured_image: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.featuredImage }))),
    status: Type.Optional(Type.String({ errorMessage: MESSAGES.status, description: 'draft ou published' })),
  },
  { errorMessage: { type: MESSAGES.body } },
);
const tags = ['Blog'];

/** Characters as a reader counts them (a surrogate pair is one). */
const chars = (s: string) => s.length - (s.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
const isBlogStatus = (v: string): v is BlogStatus => (BLOG_STATUSES as readonly string[]).includes(v);
const isListStatus = (v: string): v is ListStatus => (LIST_STATUSES as readonly string[]).includes(v);
// One leading slash, then no slash or backslash (`//host` and `/\host` leave the origin), no space or control.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const SAME_ORIGIN_PATH = /^\/(?![/\\])[^\s\\\u0000-\u001f\u007f]*$/;

const slugTaken = () => new ApiError(409, 'slug_taken', MESSAGES.slugTaken, { fields: { slug: [MESSAGES.slugTaken] } });

interface CheckedPost {
  values: BlogPostValues;
  /** The slug the writer asked for; undefined on creation means "derive it from the title". */
  slug?: string;
}

/** Field checks with the contract's messages; on creation title and content are required. */
function checkPost(raw: unknown, creating: boolean): CheckedPost {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError(400, 'invalid', MESSAGES.body);
  }
  const body = raw as Record<string, unknown>;
  const errors = new FieldErrors();
  for (const key of Object.keys(body)) {
    if (!EDITABLE.has(key) && !READ_ONLY.has(key)) errors.add(key, MESSAGES.unexpectedField(key));
  }
  const out: CheckedPost = { values: {} };
  const has = (key: string) => Object.hasOwn(body, key);

  if (has('title') || creating) {
    const title = typeof body.title === 'string' ? body.title.trim() : '';
    if (title === '' || chars(title) > MAX_TITLE) errors.add('title', MESSAGES.title);
    else out.values.title = title;
  }
  const slug = body.slug;
  if (has('slug') && !(creating && (slug === null || slug === ''))) {
    if (typeof slug !== 'string' || slug.length > MAX_SLUG || !SLUG_RE.test(slug)) errors.add('slug', MESSAGES.slug);
    else out.slug = slug;
  }
  if (has('excerpt')) {
    const excerpt = body.excerpt === null ? '' : typeof body.excerpt === 'string' ? body.excerpt.trim() : undefined;
    if (excerpt === undefined || chars(excerpt) > MAX_EXCERPT) errors.add('excerpt', MESSAGES.excerpt);
    else out.values.excerpt = excerpt;
  }
  if (has('content') || creating) {
    // Kept exactly as written (Markdown): clients render and sanitise it.
    const content = body.content;
    if (typeof content !== 'string' || content.trim() === '' || chars(content) > MAX_CONTENT) {
      errors.add('content', MESSAGES.content);
    } else out.values.content = content;
  }
  if (has('tags')) {
    const tags = checkTags(body.tags);
    if (tags === undefined) errors.add('tags', MESSAGES.tags);
    else out.values.tags = tags;
  }
  if (has('featured_image')) {
    const image = body.featured_image;
    if (image === null || image === '') out.values.featuredImage = null;
    else if (typeof image !== 'string' || image.length > MAX_IMAGE_PATH || !SAME_ORIGIN_PATH.test(image.trim())) {
      errors.add('featured_image', MESSAGES.featuredImage);
    } else out.values.featuredImage = image.trim();
  }
  if (has('status')) {
    const status = typeof body.status === 'string' ? body.status.trim().toLowerCase() : '';
    if (!isBlogStatus(status)) errors.add('status', MESSAGES.status);
    else out.values.status = status;
  }
  errors.throwIfAny();
  return out;
}

/** Trimmed, blanks dropped, one spelling per tag (case-insensitive); undefined when the list breaks the limits. */
function checkTags(raw: unknown): string[] | undefined {
  if (raw === null) return [];
  if (!Array.isArray(raw) || !raw.every((t) => typeof t === 'string')) return undefined;
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const tag of raw.map((t) => t.trim().replace(/\s+/g, ' '))) {
    if (tag === '' || seen.has(tag.toLowerCase())) continue;
    if (chars(tag) > MAX_TAG) return undefined;
    seen.add(tag.toLowerCase());
    tags.push(tag);
  }
  return tags.length > MAX_TAGS ? undefined : tags;
}

/** The name a post is signed with: the writer's full name, else the username. */
function authorName(request: FastifyRequest): string {
  const user = signedIn(request).user;
  return `${user.firstName ?? ''} ${user.lastName ?? ''}`.trim() || user.username;
}

function auditAction(before: BlogPostRow | undefined, after: BlogPostRow | undefined): string {
  if (!before) return 'blog_post_created';
  if (!after) return 'blog_post_deleted';
  if (before.status !== after.status)
    return after.status === 'published' ? 'blog_post_published' : 'blog_post_unpublished';
  return 'blog_post_updated';
}

const DESCRIPTIONS: Record<string, string> = {
  blog_post_created: 'créé',
  blog_post_updated: 'modifié',
  blog_post_published: 'publié',
  blog_post_unpublished: 'repassé en brouillon',
  blog_post_deleted: 'supprimé',
};

/** Posts and tags (docs/api-blog.md "Paths"). */
const postRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = blogGuards(app);
  const repo = new BlogRepository();
  const canWrite = (request: FastifyRequest) => canWriteBlog(signedIn(request).actor);

  const audit = async (request: FastifyRequest, before: BlogPostRow | undefined, after: BlogPostRow | undefined) => {
    const post = (after ?? before)!;
    const action = auditAction(before, after);
    await app.audit.record(request, {
      eventType: 'data_change',
      description: `Blog : article « ${post.title} » ${DESCRIPTIONS[action] ?? action}`,
      extra: { action, post_id: post.id, slug: post.slug, status: post.status },
    });
  };

  app.get(
    LIST_PATH,
    {
      ...guard.read,
      schema: { tags, querystring: ListPostsQuery, response: replies.signedIn({ 200: Paged(BlogPostSchema) }, 400) },
    },
    async (request) => {
      const q = request.query;
      const errors = new FieldErrors();
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      if (!q.page_size?.trim()) paging.pageSize = DEFAULT_PAGE_SIZE;
      const tag = parseText(errors, q, 'tag');
      const text = parseText(errors, q, 'q');
      const status = q.status?.trim().toLowerCase() || 'published';
      if (!isListStatus(status)) errors.add('status', MESSAGES.listStatus);
      errors.throwIfAny();
      if (status !== 'published' && !canWrite(request)) await guard.deny(request);
      const statuses: BlogStatus[] = status === 'all' ? [...BLOG_STATUSES] : [status as BlogStatus];
      const page = await request.tenantDb((tx) =>
        repo.page(tx, {
          statuses,
          tag,
          q: text,
          limit: paging.pageSize,
          offset: (paging.page - 1) * paging.pageSize,
        }),
      );
      return pagedResponse(LIST_PATH, q, LIST_KEYS, paging, page.count, page.rows.map(presentBlogPost));
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

  /** The post of a slug as this caller may see it: drafts exist only for writers. */
  const visible = (request: FastifyRequest, post: BlogPostRow | undefined) => {
    if (!post || (post.status === 'draft' && !canWrite(request))) throw notFound();
    return post;
  };
  const slugOf = (raw: string) => {
    if (raw.length > MAX_SLUG || !SLUG_RE.test(raw)) throw notFound();
    return raw;
  };

  app.get(
    POST_PATH,
    {
      ...guard.read,
      schema: { tags, params: SlugParams, response: replies.signedIn({ 200: BlogPostSchema }, 404) },
    },
    async (request) => {
      const slug = slugOf(request.params.slug);
      const post = await request.tenantDb((tx) => repo.findBySlug(tx, slug));
      return presentBlogPost(visible(request, post));
    },
  );

  app.post(
    LIST_PATH,
    {
      ...guard.write,
      bodyLimit: BODY_LIMIT,
      schema: { tags, body: PostBody, response: replies.signedIn({ 201: BlogPostSchema }, 400, 409, 413) },
    },
    async (request, reply) => {
      const { values, slug } = checkPost(request.body, true);
      const status = values.status ?? 'draft';
      const fields = {
        title: values.title!,
        excerpt: values.excerpt ?? '',
        content: values.content!,
        tags: values.tags ?? [],
        featuredImage: values.featuredImage ?? null,
        status,
        publishedDate: status === 'published' ? new Date() : null,
        authorId: signedIn(request).actor.userId,
        authorName: authorName(request),
      };
      let post: BlogPostRow | undefined;
      try {
        post = await request.tenantDb((tx) =>
          slug === undefined
            ? repo.createWithFreeSlug(tx, slugify(fields.title), fields)
            : repo.createWithSlug(tx, slug, fields),
        );
      } catch (err) {
        if (err instanceof SlugTakenError) throw slugTaken();
        throw err;
      }
      if (!post) throw slugTaken();
      await audit(request, undefined, post);
      return reply.code(201).send(presentBlogPost(post));
    },
  );

  app.patch(
    POST_PATH,
    {
      ...guard.write,
      bodyLimit: BODY_LIMIT,
      schema: {
        tags,
        params: SlugParams,
        body: PostBody,
        response: replies.signedIn({ 200: BlogPostSchema }, 400, 404, 409, 413),
      },
    },
    async (request) => {
      const current = slugOf(request.params.slug);
      const { values, slug } = checkPost(request.body, false);
      let before: BlogPostRow | undefined;
      let after: BlogPostRow | undefined;
      try {
        [before, after] = await request.tenantDb(async (tx) => {
          const post = await repo.findBySlug(tx, current);
          if (!post) throw notFound();
          const changes: BlogPostValues = { ...values };
          if (slug !== undefined && slug !== post.slug) {
            if (await repo.slugTaken(tx, slug, post.id)) throw slugTaken();
            changes.slug = slug;
          }
          // Published the first time: the date stays through later unpublishing and republishing.
          if (values.status === 'published' && !post.publishedDate) changes.publishedDate = new Date();
          const row = await repo.update(tx, post.id, changes);
          if (!row) throw notFound();
          return [post, row] as const;
        });
      } catch (err) {
        // Another writer took the slug between the check and the update.
        if (uniqueViolation(err) !== undefined) throw slugTaken();
        throw err;
      }
      await audit(request, before, after);
      return presentBlogPost(after);
    },
  );

  app.delete(
    POST_PATH,
    { ...guard.write, schema: { tags, params: SlugParams, response: replies.signedIn({ 204: NoContent }, 404) } },
    async (request, reply) => {
      const slug = slugOf(request.params.slug);
      const removed = await request.tenantDb(async (tx) => {
        const post = await repo.findBySlug(tx, slug);
        if (!post) throw notFound();
        const row = await repo.remove(tx, post.id);
        if (!row) throw notFound();
        return row;
      });
      await audit(request, removed, undefined);
      return reply.code(204).send();
    },
  );
};

export default postRoutes;
