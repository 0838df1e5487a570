import { and, asc, eq, inArray, isNotNull, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { memberships, tenants } from '../db/schema.ts';

export type TenantRecord = typeof tenants.$inferSelect;
export type TenantView = TenantRecord & { userCount: number };

export interface NewTenant {
  name: string;
  domain: string;
  subscriptionPlan: string;
  status: string;
  contactEmail: string | null;
  logoUrl: string | null;
}

export type TenantChanges = Partial<NewTenant>;

const userCount = sql<number>`(select count(*)::int from ${memberships} where ${memberships.tenantId} = ${tenants.id})`;
const viewColumns = { tenant: tenants, userCount };

function toView(row: { tenant: TenantRecord; userCount: number }): TenantView {
  return { ...row.tenant, userCount: Number(row.userCount) };
}

/** The unique constraint a failed insert/update ran into, if that is why it failed. */
export function tenantUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/**
 * Tenants are platform rows (the organisations themselves), so this works on the owner connection; the routes
 * narrow what a caller sees to the tenants policy lets them administer. A soft-deleted tenant keeps its row and
 * every row it owns; only `deleted_at` hides it.
 */
export class TenantsRepository {
  constructor(private readonly db: Db) {}

  /** Tenants by name: every one (`ids` undefined) or the given ones; deleted ones only when asked. */
  async list(opts: { ids?: readonly string[]; includeDeleted?: boolean; activeOnly?: boolean }): Promise<TenantView[]> {
    if (opts.ids && opts.ids.length === 0) return [];
    const conditions: (SQL | undefined)[] = [
      opts.ids ? inArray(tenants.id, [...opts.ids]) : undefined,
      opts.includeDeleted ? undefined : isNull(tenants.deletedAt),
      opts.activeOnly ? eq(tenants.status, 'active') : undefined,
    ];
    const rows = await this.db
      .select(viewColumns)
      .from(tenants)
      .where(and(...conditions))
      .orderBy(asc(tenants.name), asc(tenants.id));
    return rows.map(toView);
  }

  /** One tenant, deleted or not (the caller decides what a deleted one means). */
  async find(id: string): Promise<TenantView | undefined> {
    const [row] = await this.db.select(viewColumns).from(tenants).where(eq(tenants.id, id)).limit(1);
    return row ? toView(row) : undefined;
  }

  /** Whether another tenant (deleted ones included: the column is unique) already uses the domain. */
  async domainTaken(domain: string, exceptId?: string): Promise<boolean> {
    const [row] = await this.db
      .select({ id: tenants.id })
      .from(tenants)
      .where(and(eq(tenants.domain, domain), exceptId ? ne(tenants.id, exceptId) : undefined))
      .limit(1);
    return row !== undefined;
  }

  async create(values: NewTenant): Promise<TenantView> {
    const [row] = await this.db.insert(tenants).values(values).returning({ id: tenants.id });
    return (await this.find(row!.id))!;
  }

  /** Changes a live tenant; undefined when it does not exist or is deleted. */
  async update(id: string, changes: TenantChanges): Promise<TenantView | undefined> {
    if (Object.keys(changes).length > 0) {
      await this.db
        .update(tenants)
        .set(changes)
        .where(and(eq(tenants.id, id), isNull(tenants.deletedAt)));
    }
    const row = await this.find(id);
    return row && !row.deletedAt ? row : undefined;
  }

  /** Marks a live tenant deleted; false when it was not live. */
  async softDelete(id: string, byUserId: number): Promise<boolean> {
    const done = await this.db
      .update(tenants)
      .set({ deletedAt: new Date(), deletedBy: byUserId })
      .where(and(eq(tenants.id, id), isNull(tenants.deletedAt)))
      .returning({ id: tenants.id });
    return done.length > 0;
  }

  /** Brings a deleted tenant back; false when it was not deleted. */
  async restore(id: string): Promise<boolean> {
    const done = await this.db
      .update(tenants)
      .set({ deletedAt: null, deletedBy: null })
      .where(and(eq(tenants.id, id), isNotNull(tenants.deletedAt)))
      .returning({ id: tenants.id });
    return done.length > 0;
  }
}
