import { and, count, desc, eq, inArray, like, ne, or, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { blogImages, blogPosts, type BlogStatus } from '../db/schema.ts';

export type BlogPostRow = typeof blogPosts.$inferSelect;
export type BlogImageRow = typeof blogImages.$inferSelect;

/** What a writer may set on a post (author and dates are the server's). */
export interface BlogPostValues {
  title?: string;
  slug?: string;
  excerpt?: string;
  content?: string;
  tags?: string[];
  featuredImage?: string | null;
  status?: BlogStatus;
  publishedDate?: Date | null;
}

export type NewBlogPost = Required<Omit<BlogPostValues, 'slug'>> & {
  authorId: number | null;
  authorName: string;
};

export interface BlogPostFilters {
  statuses: readonly BlogStatus[];
  tag?: string | undefined;
  q?: string | undefined;
  limit: number;
  offset: number;
}

export type NewBlogImage = Omit<typeof blogImages.$inferInsert, 'id' | 'tenantId' | 'createdAt'>;

export const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_DERIVED_SLUG = 80;
const FREE_SLUG_ATTEMPTS = 5;

/**
 * A slug from a (French) title: accents removed, ligatures spelt out, lower-case ASCII letters and digits joined
 * by `-`, at most 80 characters cut at a word boundary; `article` when nothing is left.
 */
export function slugify(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/œ/g, 'oe')
    .replace(/Œ/g, 'OE')
    .replace(/æ/g, 'ae')
    .replace(/Æ/g, 'AE')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  let slug = '';
  for (const word of words) {
    const next = slug === '' ? word : `${slug}-${word}`;
    if (next.length > MAX_DERIVED_SLUG) {
      if (slug === '') slug = word.slice(0, MAX_DERIVED_SLUG);
      break;
    }
    slug = next;
  }
  return slug || 'article';
}

/** A slug that was free when looked at was taken by the time of the insert, several times over. */
export class SlugTakenError extends Error {}

// Row-level security already confines the tables; naming the tenant again lets the planner use the tenant indexes.
const postsInTenant = eq(blogPosts.tenantId, sql`app_current_tenant()`);
const imagesInTenant = eq(blogImages.tenantId, sql`app_current_tenant()`);

/** The tenant's blog: posts (Markdown kept as written) and the records of uploaded images. */
export class BlogRepository {
  private filters(f: Omit<BlogPostFilters, 'limit' | 'offset'>): SQL {
    const where: SQL[] = [postsInTenant, inArray(blogPosts.status, [...f.statuses])];
    if (f.tag !== undefined) {
      where.push(sql`exists (select 1 from unnest(${blogPosts.tags}) as t(tag) where lower(t.tag) = lower(${f.tag}))`);
    }
    if (f.q !== undefined) {
      // strpos, not LIKE: the user's % and _ are plain characters.
      const q = f.q.toLowerCase();
      where.push(
        or(sql`strpos(lower(${blogPosts.title}), ${q}) > 0`, sql`strpos(lower(${blogPosts.excerpt}), ${q}) > 0`)!,
      );
    }
    return and(...where)!;
  }

  /** Newest published first; drafts never published (no date) come before them. */
  async page(tx: TenantDb, f: BlogPostFilters): Promise<{ count: number; rows: BlogPostRow[] }> {
    const where = this.filters(f);
    const [total] = await tx.select({ n: count() }).from(blogPosts).where(where);
    const rows = await tx
      .select()
      .from(blogPosts)
      .where(where)
      .orderBy(sql`${blogPosts.publishedDate} desc nulls first`, desc(blogPosts.createdAt), desc(blogPosts.id))
      .limit(f.limit)
      .offset(f.offset);
    return { count: total?.n ?? 0, rows };
  }

  /** Tags of the published posts, most used first; spellings differing only by case count as one tag. */
  async tags(tx: TenantDb): Promise<{ tag: string; count: number }[]> {
    const tag = sql`t.tag`;
    return tx
      .select({
        tag: sql<string>`mode() within group (order by ${tag})`,
        count: sql<number>`count(distinct ${blogPosts.id})::int`,
      })
      .from(blogPosts)
      .innerJoin(sql`lateral unnest(${blogPosts.tags}) as t(tag)`, sql`true`)
      .where(and(postsInTenant, eq(blogPosts.status, 'published')))
      .groupBy(sql`lower(${tag})`)
      .orderBy(sql`count(distinct ${blogPosts.id}) desc`, sql`lower(${tag})`);
  }

  async findBySlug(tx: TenantDb, slug: string): Promise<BlogPostRow | undefined> {
    const [row] = await tx
      .select()
      .from(blogPosts)
      .where(and(postsInTenant, eq(blogPosts.slug, slug)))
      .limit(1);
    return row;
  }

  /** Whether another post of the tenant already has this slug. */
  async slugTaken(tx: TenantDb, slug: string, exceptId?: number): Promise<boolean> {
    const [row] = await tx
      .select({ id: blogPosts.id })
      .from(blogPosts)
      .where(
        and(postsInTenant, eq(blogPosts.slug, slug), exceptId === undefined ? undefined : ne(blogPosts.id, exceptId)),
      )
      .limit(1);
    return row !== undefined;
  }

  /** Inserts under exactly this slug; undefined when the tenant already has it. */
  async createWithSlug(tx: TenantDb, slug: string, values: NewBlogPost): Promise<BlogPostRow | undefined> {
    const [row] = await tx
      .insert(blogPosts)
      .values({ ...values, slug, tenantId: sql`app_current_tenant()` })
      .onConflictDoNothing({ target: [blogPosts.tenantId, blogPosts.slug] })
      .returning();
    return row;
  }

  /** Inserts under `base`, else the first free `base-2`, `base-3`…; a concurrent writer only costs a retry. */
  async createWithFreeSlug(tx: TenantDb, base: string, values: NewBlogPost): Promise<BlogPostRow> {
    const taken = new Set(
      (
        await tx
          .select({ slug: blogPosts.slug })
          .from(blogPosts)
          .where(and(postsInTenant, or(eq(blogPosts.slug, base), like(blogPosts.slug, `${base}-%`))))
      ).map((r) => r.slug),
    );
    let n = 1;
    for (let attempt = 0; attempt < FREE_SLUG_ATTEMPTS; attempt++) {
      let candidate = base;
      while (taken.has(candidate)) candidate = `${base}-${++n}`;
      const row = await this.createWithSlug(tx, candidate, values);
      if (row) return row;
      taken.add(candidate);
    }
    throw new SlugTakenError(base);
  }

  async update(tx: TenantDb, id: number, values: BlogPostValues): Promise<BlogPostRow | undefined> {
    const [row] = await tx
      .update(blogPosts)
      .set({ ...values, updatedAt: new Date() })
      .where(and(postsInTenant, eq(blogPosts.id, id)))
      .returning();
    return row;
  }

  async remove(tx: TenantDb, id: number): Promise<BlogPostRow | undefined> {
    const [row] = await tx
      .delete(blogPosts)
      .where(and(postsInTenant, eq(blogPosts.id, id)))
      .returning();
    return row;
  }

  async createImage(tx: TenantDb, values: NewBlogImage): Promise<BlogImageRow> {
    const [row] = await tx
      .insert(blogImages)
      .values({ ...values, tenantId: sql`app_current_tenant()` })
      .returning();
    return row!;
  }

  async findImage(tx: TenantDb, id: number): Promise<BlogImageRow | undefined> {
    const [row] = await tx
      .select()
      .from(blogImages)
      .where(and(imagesInTenant, eq(blogImages.id, id)))
      .limit(1);
    return row;
  }
}
