import { apiRequest, apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { hasPermission, rightsIn } from '../../lib/auth/roles.ts';
import type { UserProfile } from '../../lib/auth/types.ts';
import blogSample from '../../../sample-data/blog-posts.json';

/** docs/api-blog.md */
export type BlogStatus = 'draft' | 'published';

export interface BlogPost {
  id: number;
  title: string;
  slug: string;
  excerpt: string;
  /** Markdown source, rendered and sanitised by markdown.ts. */
  content: string;
  author: string;
  published_date: string | null;
  tags: string[];
  featured_image: string | null;
  status: BlogStatus;
  created_at?: string;
  updated_at?: string;
}

export interface BlogPage {
  count: number;
  next: string | null;
  previous: string | null;
  results: BlogPost[];
}

export interface BlogQuery {
  page?: number;
  tag?: string;
  q?: string;
  /** Writers only: 'draft' or 'all' ('' = published). */
  status?: string;
}

export interface BlogInput {
  title: string;
  slug?: string;
  excerpt?: string;
  content: string;
  tags?: string[];
  featured_image?: string | null;
  status?: BlogStatus;
}

export interface BlogImage {
  id: number | string;
  url: string;
  content_type: string;
  size: number;
}

export const BLOG_PAGE_SIZE = 10;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

export const BLOG_MESSAGES = {
  forbidden: "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource",
  notFound: 'Article introuvable.',
  imageType: "Format d'image non accepté : PNG, JPEG, GIF ou WebP.",
  imageSize: 'Image trop volumineuse (5 Mio au plus).',
  title: 'Le titre est obligatoire (200 caractères au plus).',
  slug: 'Lien invalide : lettres minuscules, chiffres et tirets.',
  slugTaken: 'Ce lien (slug) est déjà utilisé.',
  excerpt: 'Le résumé dépasse 500 caractères.',
  content: 'Le contenu dépasse 200 000 caractères.',
  tags: '10 étiquettes au plus, de 40 caractères chacune.',
} as const;

/**
 * docs/api-blog.md: tenant admins and managers, staff and superusers write (the server decides; this only hides
 * the buttons from the others).
 */
export function mayWriteBlog(profile: UserProfile | null | undefined, tenantId: string | undefined): boolean {
  return hasPermission(rightsIn(profile, tenantId), 'write_blog');
}

/** The server's slug rule: lower-case ASCII, accents removed, words joined by '-'. */
export function slugify(title: string): string {
  return title
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function toPost(raw: unknown): BlogPost | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.slug !== 'string' || typeof r.title !== 'string') return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    id: Number(r.id),
    title: r.title,
    slug: r.slug,
    excerpt: str(r.excerpt),
    content: str(r.content),
    author: str(r.author),
    published_date: typeof r.published_date === 'string' ? r.published_date : null,
    tags: Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === 'string') : [],
    featured_image: typeof r.featured_image === 'string' && r.featured_image !== '' ? r.featured_image : null,
    // The spec §8 sample has no status: its posts are published ones.
    status: r.status === 'draft' ? 'draft' : r.published_date || r.status === 'published' ? 'published' : 'draft',
    ...(typeof r.created_at === 'string' ? { created_at: r.created_at } : {}),
    ...(typeof r.updated_at === 'string' ? { updated_at: r.updated_at } : {}),
  };
}

function toPage(data: unknown): BlogPage | null {
  if (!data || typeof data !== 'object' || !Array.isArray((data as { results?: unknown }).results)) return null;
  const d = data as { results: unknown[]; count?: unknown; next?: unknown; previous?: unknown };
  const results = d.results.map(toPost).filter((p): p is BlogPost => p !== null);
  return {
    results,
    count: typeof d.count === 'number' ? d.count : results.length,
    next: typeof d.next === 'string' ? d.next : null,
    previous: typeof d.previous === 'string' ? d.previous : null,
  };
}

/** spec §8: the two built-in posts, filtered and paged as the server would, for when no answer came at all. */
function samplePage(query: BlogQuery): BlogPage {
  return filterSample(toPage(blogSample)!, query);
}

/** The sample answers every list URL with every post: apply the tag and text filters here. */
function filterSample(page: BlogPage, query: BlogQuery): BlogPage {
  const tag = query.tag?.toLowerCase();
  const q = query.q?.toLowerCase();
  const results = page.results.filter(
    (p) =>
      (!tag || p.tags.some((t) => t.toLowerCase() === tag)) &&
      (!q || p.title.toLowerCase().includes(q) || p.excerpt.toLowerCase().includes(q)) &&
      (query.status === 'all' || (query.status === 'draft' ? p.status === 'draft' : p.status === 'published')),
  );
  return { results, count: results.length, next: null, previous: null };
}

/** Reads fall back to the sample on no answer, a server failure or a backend without the blog (404). */
function fallsBack(err: unknown): boolean {
  return !(err instanceof ApiError) || err.status === 0 || err.status >= 500 || err.status === 404;
}

const SAMPLE: DataOrigin = { source: 'sample' };

export async function listPosts(query: BlogQuery = {}): Promise<{ data: BlogPage; origin: DataOrigin }> {
  try {
    const { data, origin } = await apiRequestWithOrigin<unknown>('/blog/posts/', {
      query: {
        page: query.page && query.page > 1 ? query.page : undefined,
        page_size: BLOG_PAGE_SIZE,
        tag: query.tag || undefined,
        q: query.q || undefined,
        status: query.status || undefined,
      },
      allowForbidden: true,
    });
    const page = toPage(data);
    if (!page) return { data: samplePage(query), origin: SAMPLE };
    return { data: origin.source === 'sample' ? filterSample(page, query) : page, origin };
  } catch (err) {
    if (fallsBack(err)) return { data: samplePage(query), origin: SAMPLE };
    throw err;
  }
}

export interface TagCount {
  tag: string;
  count: number;
}

function sampleTags(): TagCount[] {
  const counts = new Map<string, number>();
  for (const p of samplePage({}).results) for (const t of p.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].map(([tag, count]) => ({ tag, count })).sort((a, b) => b.count - a.count);
}

/** The published posts' tags, most used first; the sample's when the server has none to give. */
export async function listTags(): Promise<TagCount[]> {
  try {
    const { data, origin } = await apiRequestWithOrigin<{ results?: unknown } | null>('/blog/tags/', {
      allowForbidden: true,
    });
    const list = Array.isArray(data?.results) ? (data.results as unknown[]) : null;
    if (!list || origin.source === 'sample') return sampleTags();
    return list
      .filter((t): t is TagCount => !!t && typeof (t as TagCount).tag === 'string')
      .map((t) => ({ tag: t.tag, count: Number(t.count) || 0 }));
  } catch (err) {
    if (fallsBack(err)) return sampleTags();
    throw err;
  }
}

const postPath = (slug: string) => `/blog/posts/${encodeURIComponent(slug)}/`;

/**
 * One post, or null when there is none by that slug (a draft, for a reader, is none). A missing post is never
 * replaced by a sample one: samples stand in for a blog the backend does not serve, not for one missing post.
 */
export async function getPost(slug: string): Promise<{ data: BlogPost | null; origin: DataOrigin }> {
  try {
    const { data, origin } = await apiRequestWithOrigin<unknown>(postPath(slug), { allowForbidden: true });
    return { data: toPost(data), origin };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { data: null, origin: { source: 'network' } };
    throw err;
  }
}

function written(data: unknown): BlogPost {
  const post = toPost(data);
  if (!post) throw new ApiError(0, 'Réponse inattendue du serveur.', data);
  return post;
}

/** Creates a post (no `slug` yet) or changes one; rejects with the server's message and `fields`. */
export async function savePost(slug: string | null, input: Partial<BlogInput>): Promise<BlogPost> {
  const data = await apiRequest<unknown>(slug ? postPath(slug) : '/blog/posts/', {
    method: slug ? 'PATCH' : 'POST',
    body: input as Record<string, unknown>,
    allowForbidden: true,
  });
  return written(data);
}

export async function deletePost(slug: string): Promise<void> {
  await apiRequest(postPath(slug), { method: 'DELETE', allowForbidden: true });
}

/** Checked here first (the server checks the bytes again): PNG, JPEG, GIF or WebP, 5 MiB at most. */
export function imageProblem(file: File): string | null {
  if (!(IMAGE_TYPES as readonly string[]).includes(file.type)) return BLOG_MESSAGES.imageType;
  if (file.size > MAX_IMAGE_BYTES) return BLOG_MESSAGES.imageSize;
  return null;
}

export async function uploadImage(file: File): Promise<BlogImage> {
  const problem = imageProblem(file);
  if (problem) throw new ApiError(400, problem);
  const form = new FormData();
  form.append('file', file);
  try {
    return await apiRequest<BlogImage>('/blog/images/', { method: 'POST', body: form, allowForbidden: true });
  } catch (err) {
    if (err instanceof ApiError && err.status === 413) throw new ApiError(413, BLOG_MESSAGES.imageSize, err.data);
    throw err;
  }
}
