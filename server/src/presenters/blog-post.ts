import type { BlogImageRow, BlogPostRow } from '../repositories/blog.ts';

export const blogImageUrl = (id: number) => `/api/blog/images/${id}/`;

/** BlogPost (docs/api-blog.md): exactly these fields leave the server; never the author's account id. */
export function presentBlogPost(p: BlogPostRow) {
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

export type BlogPost = ReturnType<typeof presentBlogPost>;

/** An uploaded image: where to fetch it, never where it is stored. */
export function presentBlogImage(i: BlogImageRow) {
  return { id: i.id, url: blogImageUrl(i.id), content_type: i.contentType, size: i.fileSize };
}
