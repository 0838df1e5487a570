import { BLOG_STATUSES } from '../db/schema.ts';
import type { BlogImageRow, BlogPostRow } from '../repositories/blog.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

export const blogImageUrl = (id: number) => `/api/blog/images/${id}/`;

/** BlogPost (docs/api-blog.md): exactly these fields leave the server; never the author's account id. */
export const BlogPostSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    slug: Type.String(),
    excerpt: Type.String(),
    content: Type.String({ description: 'Markdown, tel qu’écrit' }),
    author: Type.String({ description: 'Nom affiché de l’auteur' }),
    published_date: Nullable(Type.String({ format: 'date-time' })),
    tags: Type.Array(Type.String()),
    featured_image: Nullable(Type.String()),
    status: Choice(BLOG_STATUSES),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'BlogPost' },
);
export type BlogPost = Static<typeof BlogPostSchema>;

export function presentBlogPost(p: BlogPostRow): BlogPost {
  return {
    id: p.id,
    title: p.title,
    slug: p.slug,
    excerpt: p.excerpt,
    content: p.content,
    author: p.authorName,
    published_date: p.publishedDate?.toISOString() ?? null,
    tags: p.tags,
    featured_image: p.featuredImage,
    status: p.status,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** An uploaded image: where to fetch it, never where it is stored. */
export const BlogImageSchema = Type.Object(
  { id: Type.Integer(), url: Type.String(), content_type: Type.String(), size: Type.Integer() },
  { title: 'BlogImage' },
);

export function presentBlogImage(i: BlogImageRow): Static<typeof BlogImageSchema> {
  return { id: i.id, url: blogImageUrl(i.id), content_type: i.contentType, size: i.fileSize };
}
