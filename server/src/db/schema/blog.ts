import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { bigId, createdAt, tenantRef, timestamps, userRef } from './columns.ts';

// The tenant's blog (issue 8, docs/api-blog.md).

export const BLOG_STATUSES = ['draft', 'published'] as const;
export type BlogStatus = (typeof BLOG_STATUSES)[number];

/** A post of the tenant's blog; content is Markdown, rendered and sanitised by the client. */
export const blogPosts = pgTable(
  'blog_posts',
  {
    id: bigId(),
    tenantId: tenantRef(),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    excerpt: text('excerpt').notNull().default(''),
    content: text('content').notNull().default(''),
    authorId: userRef('author_id'),
    /** The author's display name when the post was written (kept if the account goes). */
    authorName: text('author_name').notNull().default(''),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    featuredImage: text('featured_image'),
    status: text('status').$type<BlogStatus>().notNull().default('draft'),
    publishedDate: timestamp('published_date', { withTimezone: true }),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('blog_posts_tenant_slug_idx').on(t.tenantId, t.slug),
    index('blog_posts_tenant_published_idx').on(t.tenantId, t.status, t.publishedDate),
    check('blog_posts_slug', sql`${t.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
  ],
);

/** An image uploaded for the blog; bytes in the document store under a generated key, type from its magic bytes. */
export const blogImages = pgTable(
  'blog_images',
  {
    id: bigId(),
    tenantId: tenantRef(),
    originalName: text('original_name').notNull(),
    contentType: text('content_type').notNull(),
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    uploadedBy: userRef('uploaded_by'),
    createdAt: createdAt(),
  },
  (t) => [index('blog_images_tenant_idx').on(t.tenantId)],
);
