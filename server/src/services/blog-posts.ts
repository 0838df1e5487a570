/**
 * Writing blog posts (docs/api-blog.md): the slug (derived from the title, or the writer's own; 409 when taken),
 * the first publication date, and the audit entry of each change.
 */
import type { TenantDb } from '../db/tenant-scope.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import {
  BlogRepository,
  slugify,
  SlugTakenError,
  type BlogPostRow,
  type BlogPostValues,
} from '../repositories/blog.ts';
import { uniqueViolation } from '../repositories/tenant-users.ts';
import { MESSAGES, type CheckedPost } from '../schemas/blog.ts';

const slugTaken = () => new ApiError(409, 'slug_taken', MESSAGES.slugTaken, { fields: { slug: [MESSAGES.slugTaken] } });

/** What a post's change is called in the trail, and how the description says it. */
function changeOf(before: BlogPostRow | undefined, after: BlogPostRow | undefined): [action: string, said: string] {
  if (!before) return ['blog_post_created', 'créé'];
  if (!after) return ['blog_post_deleted', 'supprimé'];
  if (before.status === after.status) return ['blog_post_updated', 'modifié'];
  return after.status === 'published'
    ? ['blog_post_published', 'publié']
    : ['blog_post_unpublished', 'repassé en brouillon'];
}

/** The audit entry of a post created (no `before`), changed, or deleted (no `after`). */
export function postAudit(before: BlogPostRow | undefined, after: BlogPostRow | undefined) {
  const post = (after ?? before)!;
  const [action, said] = changeOf(before, after);
  return {
    eventType: 'data_change' as const,
    description: `Blog : article « ${post.title} » ${said}`,
    extra: { action, post_id: post.id, slug: post.slug, status: post.status },
  };
}

export class BlogPosts {
  private readonly repo = new BlogRepository();

  /** A new post signed by `author` (a draft unless published now), under its own slug or one from its title. */
  async create(tx: TenantDb, { values, slug }: CheckedPost, author: { id: number; name: string }) {
    const status = values.status ?? 'draft';
    const fields = {
      title: values.title!,
      excerpt: values.excerpt ?? '',
      content: values.content!,
      tags: values.tags ?? [],
      featuredImage: values.featuredImage ?? null,
      status,
      publishedDate: status === 'published' ? new Date() : null,
      authorId: author.id,
      authorName: author.name,
    };
    try {
      const post =
        slug === undefined
          ? await this.repo.createWithFreeSlug(tx, slugify(fields.title), fields)
          : await this.repo.createWithSlug(tx, slug, fields);
      if (!post) throw slugTaken();
      return post;
    } catch (err) {
      if (err instanceof SlugTakenError) throw slugTaken();
      throw err;
    }
  }

  /** The post of `current` changed: answers it before and after. */
  async update(tx: TenantDb, current: string, { values, slug }: CheckedPost) {
    const post = await this.repo.findBySlug(tx, current);
    if (!post) throw notFound();
    const changes: BlogPostValues = { ...values };
    if (slug !== undefined && slug !== post.slug) {
      if (await this.repo.slugTaken(tx, slug, post.id)) throw slugTaken();
      changes.slug = slug;
    }
    // Published the first time: the date stays through later unpublishing and republishing.
    if (values.status === 'published' && !post.publishedDate) changes.publishedDate = new Date();
    let row: BlogPostRow | undefined;
    try {
      row = await this.repo.update(tx, post.id, changes);
    } catch (err) {
      // Another writer took the slug between the check and the update.
      if (uniqueViolation(err) !== undefined) throw slugTaken();
      throw err;
    }
    if (!row) throw notFound();
    return { before: post, after: row };
  }

  /** Deletes the post of `slug`; answers it as it was. */
  async remove(tx: TenantDb, slug: string): Promise<BlogPostRow> {
    const post = await this.repo.findBySlug(tx, slug);
    const row = post && (await this.repo.remove(tx, post.id));
    if (!row) throw notFound();
    return row;
  }
}
