/**
 * The blog's input (docs/api-blog.md): the list's querystring, a post's body checked field by field, the slug of a
 * path, and the limits and messages of an image upload, each with the contract's French message.
 */
import { BLOG_STATUSES, type BlogStatus } from '../db/schema.ts';
import { charCount } from '../../../contract/text.ts';
import { ApiError, FieldErrors, notFound } from '../domain/errors.ts';
import { BlogPostSchema } from '../presenters/blog-post.ts';
import { SLUG_RE, type BlogPostValues } from '../repositories/blog.ts';
import { ListQuery, Nullable, Type } from './common.ts';
import { parsePaging, parseText, type RawQuery } from './query.ts';

const DEFAULT_PAGE_SIZE = 10;
const MAX_PAGE_SIZE = 50;
const LIMITS = { title: 200, slug: 100, excerpt: 500, content: 200_000, tags: 10, tag: 40, imagePath: 500 };
/** 200 000 characters may take several bytes each in JSON (accents, escapes): above the app's 1 MiB default. */
export const POST_BODY_LIMIT = 4 * 1024 * 1024;
export const BLOG_IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** The largest acceptable upload: the image, and room for the multipart framing (and a stray text field). */
export const IMAGE_FORM_MAX_BYTES = BLOG_IMAGE_MAX_BYTES + 64 * 1024;

const LIST_STATUSES = ['published', 'draft', 'all'] as const;

export const MESSAGES = {
  title: `Le titre est obligatoire (${LIMITS.title} caractères au plus).`,
  slug: 'Lien invalide : lettres minuscules, chiffres et tirets.',
  slugTaken: 'Ce lien (slug) est déjà utilisé.',
  excerpt: `Le résumé ne doit pas dépasser ${LIMITS.excerpt} caractères.`,
  content: 'Le contenu est obligatoire (200 000 caractères au plus).',
  tags: `${LIMITS.tags} étiquettes au plus, de ${LIMITS.tag} caractères chacune.`,
  featuredImage: 'Image mise en avant invalide : un chemin de ce site commençant par un seul / est attendu.',
  status: 'Statut invalide : draft ou published.',
  listStatus: 'Statut invalide : published, draft ou all.',
  body: 'Corps invalide : un objet JSON est attendu.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
} as const;

export const IMAGE_MESSAGES = {
  format: "Format d'image non accepté : PNG, JPEG, GIF ou WebP.",
  tooLarge: 'Image trop volumineuse (5 Mio au plus).',
  multipartRequired: "L'image doit être envoyée en multipart/form-data (champ file).",
  fileRequired: "L'image est requise (champ file).",
} as const;

export const imageTooLarge = () =>
  new ApiError(413, 'file_too_large', IMAGE_MESSAGES.tooLarge, { fields: { file: [IMAGE_MESSAGES.tooLarge] } });

export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 1000 }) });
export const ListPostsQuery = ListQuery({
  tag: 'Étiquette exacte',
  q: 'Recherche dans le titre, le résumé et le contenu',
  status: 'published (défaut), draft ou all (rédacteurs seulement)',
});
export const LIST_KEYS = Object.keys(ListPostsQuery.properties);

/**
 * Types by the schema, each with the contract's message; trimming, sizes in characters, the slug and image rules
 * and unknown fields (« Champ inattendu ») by checkPost. Read-only fields a client sends back are ignored.
 */
export const PostBody = Type.Object(
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

const isOneOf = <T extends string>(values: readonly T[], v: string): v is T =>
  (values as readonly string[]).includes(v);
// One leading slash, then no slash or backslash (`//host` and `/\host` leave the origin), no space or control.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const SAME_ORIGIN_PATH = /^\/(?![/\\])[^\s\\\u0000-\u001f\u007f]*$/;

/** The list's paging (10 by default, at most 50), tag and text filters, and the statuses asked for. */
export function readPostList(query: RawQuery) {
  const errors = new FieldErrors();
  const paging = parsePaging(errors, query, MAX_PAGE_SIZE);
  if (!query.page_size?.trim()) paging.pageSize = DEFAULT_PAGE_SIZE;
  const tag = parseText(errors, query, 'tag');
  const text = parseText(errors, query, 'q');
  const status = query.status?.trim().toLowerCase() || 'published';
  if (!isOneOf(LIST_STATUSES, status)) errors.add('status', MESSAGES.listStatus);
  errors.throwIfAny();
  const statuses: BlogStatus[] = status === 'all' ? [...BLOG_STATUSES] : [status as BlogStatus];
  return { paging, tag, text, statuses, draftsAsked: status !== 'published' };
}

/** The slug of a path: one that could not exist is simply not found. */
export function slugOf(raw: string): string {
  if (charCount(raw) > LIMITS.slug || !SLUG_RE.test(raw)) throw notFound();
  return raw;
}

export interface CheckedPost {
  values: BlogPostValues;
  /** The slug the writer asked for; undefined on creation means "derive it from the title". */
  slug?: string;
}

/** Field checks with the contract's messages; on creation title and content are required. */
export function checkPost(raw: unknown, creating: boolean): CheckedPost {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError(400, 'invalid', MESSAGES.body);
  }
  const body = raw as Record<string, unknown>;
  const errors = new FieldErrors();
  // Any field of a BlogPost may come back from a post the client read; the read-only ones are ignored.
  for (const key of Object.keys(body)) {
    if (!Object.hasOwn(BlogPostSchema.properties, key)) errors.add(key, MESSAGES.unexpectedField(key));
  }
  const out: CheckedPost = { values: {} };
  const has = (key: string) => Object.hasOwn(body, key);

  if (has('title') || creating) {
    const title = typeof body.title === 'string' ? body.title.trim() : '';
    if (title === '' || charCount(title) > LIMITS.title) errors.add('title', MESSAGES.title);
    else out.values.title = title;
  }
  const slug = body.slug;
  if (has('slug') && !(creating && (slug === null || slug === ''))) {
    if (typeof slug !== 'string' || charCount(slug) > LIMITS.slug || !SLUG_RE.test(slug)) {
      errors.add('slug', MESSAGES.slug);
    } else out.slug = slug;
  }
  if (has('excerpt')) {
    const excerpt = body.excerpt === null ? '' : typeof body.excerpt === 'string' ? body.excerpt.trim() : undefined;
    if (excerpt === undefined || charCount(excerpt) > LIMITS.excerpt) errors.add('excerpt', MESSAGES.excerpt);
    else out.values.excerpt = excerpt;
  }
  if (has('content') || creating) {
    // Kept exactly as written (Markdown): clients render and sanitise it.
    const content = body.content;
    if (typeof content !== 'string' || content.trim() === '' || charCount(content) > LIMITS.content) {
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
    else if (typeof image !== 'string' || charCount(image) > LIMITS.imagePath || !SAME_ORIGIN_PATH.test(image.trim())) {
      errors.add('featured_image', MESSAGES.featuredImage);
    } else out.values.featuredImage = image.trim();
  }
  if (has('status')) {
    const status = typeof body.status === 'string' ? body.status.trim().toLowerCase() : '';
    if (!isOneOf(BLOG_STATUSES, status)) errors.add('status', MESSAGES.status);
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
    if (charCount(tag) > LIMITS.tag) return undefined;
    seen.add(tag.toLowerCase());
    tags.push(tag);
  }
  return tags.length > LIMITS.tags ? undefined : tags;
}
