import { and, asc, count, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { assets, vulnerabilityCounts, type AssetType, type Criticality } from '../db/schema.ts';
import { containsPattern } from './tenant-users.ts';

export type AssetRecord = typeof assets.$inferSelect;

/** An asset with its finding counts (from the per-tenant counters). */
export interface AssetRow extends AssetRecord {
  vulnerabilityCount: number;
  openVulnerabilityCount: number;
}

export interface AssetFilters {
  assetType?: AssetType | undefined;
  criticality?: Criticality | undefined;
  text?: string | undefined;
}

export const ASSET_ORDERINGS = ['name', 'created_at', 'criticality'] as const;
export type AssetOrderField = (typeof ASSET_ORDERINGS)[number];

export interface AssetValues {
  name?: string;
  assetType?: AssetType;
  hostname?: string | null;
  ipAddress?: string | null;
  operatingSystem?: string | null;
  criticality?: Criticality;
  internetExposed?: boolean;
  owner?: string | null;
  description?: string;
  tags?: string[];
}

// Business order, not alphabetical: low < medium < high < critical.
const criticalityRank = sql`(case ${assets.criticality} when 'critical' then 4 when 'high' then 3 when 'medium' then 2 else 1 end)`;

// Row-level security already confines the table; naming the tenant again lets the planner use the tenant indexes.
const inCurrentTenant = eq(assets.tenantId, sql`app_current_tenant()`);

/** Assets of the current tenant. Every method takes a TenantDb: the database itself hides other tenants. */
export class AssetsRepository {
  private conditions(filters: AssetFilters): SQL | undefined {
    const where: SQL[] = [inCurrentTenant];
    if (filters.assetType) where.push(eq(assets.assetType, filters.assetType));
    if (filters.criticality) where.push(eq(assets.criticality, filters.criticality));
    if (filters.text) {
      const p = containsPattern(filters.text);
      where.push(
        or(
          ilike(assets.name, p),
          ilike(assets.hostname, p),
          ilike(assets.ipAddress, p),
          ilike(assets.description, p),
          ilike(assets.operatingSystem, p),
        )!,
      );
    }
    return and(...where);
  }

  async page(
    tx: TenantDb,
    opts: { filters: AssetFilters; ordering: { field: AssetOrderField; desc: boolean }; limit: number; offset: number },
  ): Promise<{ count: number; rows: AssetRow[] }> {
    const where = this.conditions(opts.filters);
    const [total] = await tx.select({ n: count() }).from(assets).where(where);
    const dir = opts.ordering.desc ? desc : asc;
    const key =
      opts.ordering.field === 'name'
        ? assets.name
        : opts.ordering.field === 'created_at'
          ? assets.createdAt
          : criticalityRank;
    const rows = await tx
      .select()
      .from(assets)
      .where(where)
      .orderBy(dir(key), dir(assets.id))
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: total?.n ?? 0, rows: await withFindingCounts(tx, rows) };
  }

  async find(tx: TenantDb, id: number): Promise<AssetRow | undefined> {
    const [row] = await tx
      .select()
      .from(assets)
      .where(and(inCurrentTenant, eq(assets.id, id)))
      .limit(1);
    return row ? (await withFindingCounts(tx, [row]))[0] : undefined;
  }

  /** The names of these assets, when they are in the current tenant (a finding's asset_id is checked here). */
  async names(tx: TenantDb, ids: number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await tx
      .select({ id: assets.id, name: assets.name })
      .from(assets)
      .where(and(inCurrentTenant, inArray(assets.id, ids)));
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async create(tx: TenantDb, values: AssetValues & { name: string }): Promise<AssetRow> {
    const [row] = await tx
      .insert(assets)
      .values({ ...values, tenantId: sql`app_current_tenant()` })
      .returning();
    return { ...row!, vulnerabilityCount: 0, openVulnerabilityCount: 0 };
  }

  async update(tx: TenantDb, id: number, values: AssetValues): Promise<AssetRow | undefined> {
    const [row] = await tx
      .update(assets)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(inCurrentTenant, eq(assets.id, id)))
      .returning();
    return row ? (await withFindingCounts(tx, [row]))[0] : undefined;
  }

  /** Deleting an asset deletes its findings (foreign key cascade). */
  async remove(tx: TenantDb, id: number): Promise<boolean> {
    const removed = await tx
      .delete(assets)
      .where(and(inCurrentTenant, eq(assets.id, id)))
      .returning({ id: assets.id });
    return removed.length > 0;
  }
}

/**
 * Finding counts per asset from the tenant's counters (the figures the assets API shows), for these rows; an asset
 * linked several times (project links) is counted once and its counts given to each row.
 */
export async function withFindingCounts<T extends AssetRecord>(
  tx: TenantDb,
  rows: T[],
): Promise<(T & { vulnerabilityCount: number; openVulnerabilityCount: number })[]> {
  if (rows.length === 0) return [];
  const counts = await tx
    .select({
      assetId: vulnerabilityCounts.assetId,
      total: sql<string>`sum(${vulnerabilityCounts.n})`,
      open: sql<string>`coalesce(sum(${vulnerabilityCounts.n}) filter (where not ${vulnerabilityCounts.isResolved}), 0)`,
    })
    .from(vulnerabilityCounts)
    .where(
      and(
        eq(vulnerabilityCounts.tenantId, sql`app_current_tenant()`),
        inArray(vulnerabilityCounts.assetId, [...new Set(rows.map((r) => r.id))]),
      ),
    )
    .groupBy(vulnerabilityCounts.assetId);
  const byAsset = new Map(counts.map((c) => [c.assetId, c]));
  return rows.map((r) => {
    const c = byAsset.get(r.id);
    return { ...r, vulnerabilityCount: Number(c?.total ?? 0), openVulnerabilityCount: Number(c?.open ?? 0) };
  });
}
