import { and, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { assets, scans, type Scanner, type ScanStatus } from '../db/schema.ts';
import type { TenantDb } from '../db/tenant-scope.ts';

export type ScanRow = typeof scans.$inferSelect;
export type ScanValues = Partial<Omit<typeof scans.$inferInsert, 'id' | 'tenantId' | 'createdAt'>>;

export interface ScanFilters {
  status?: ScanStatus[] | undefined;
  scanner?: Scanner[] | undefined;
}

/** Scans of the tenant the transaction is confined to (row-level security); the tenant id is written explicitly. */
export class ScansRepository {
  async page(
    tx: TenantDb,
    filters: ScanFilters,
    limit: number,
    offset: number,
  ): Promise<{ count: number; rows: ScanRow[] }> {
    const where: SQL[] = [];
    if (filters.status?.length) where.push(inArray(scans.status, filters.status));
    if (filters.scanner?.length) where.push(inArray(scans.scanner, filters.scanner));
    const condition = where.length > 0 ? and(...where) : undefined;
    const [total] = await tx.select({ n: count() }).from(scans).where(condition);
    const rows = await tx
      .select()
      .from(scans)
      .where(condition)
      .orderBy(desc(scans.createdAt), desc(scans.id))
      .limit(limit)
      .offset(offset);
    return { count: total?.n ?? 0, rows };
  }

  async find(tx: TenantDb, id: number): Promise<ScanRow | undefined> {
    const [row] = await tx.select().from(scans).where(eq(scans.id, id));
    return row;
  }

  async create(tx: TenantDb, tenantId: string, values: ScanValues & { name: string }): Promise<ScanRow> {
    const [row] = await tx
      .insert(scans)
      .values({ ...values, tenantId })
      .returning();
    return row!;
  }

  async update(tx: TenantDb, id: number, values: ScanValues): Promise<ScanRow | undefined> {
    const [row] = await tx
      .update(scans)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(scans.id, id))
      .returning();
    return row;
  }

  /** A lifecycle move: applied only while the scan is in one of `from` (a concurrent move makes it miss). */
  async transition(
    tx: TenantDb,
    id: number,
    from: readonly ScanStatus[],
    values: ScanValues,
  ): Promise<ScanRow | undefined> {
    const [row] = await tx
      .update(scans)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(scans.id, id), inArray(scans.status, [...from])))
      .returning();
    return row;
  }

  async remove(tx: TenantDb, id: number): Promise<ScanRow | undefined> {
    const [row] = await tx.delete(scans).where(eq(scans.id, id)).returning();
    return row;
  }

  async assetName(tx: TenantDb, assetId: number): Promise<string | undefined> {
    const [row] = await tx.select({ name: assets.name }).from(assets).where(eq(assets.id, assetId));
    return row?.name;
  }
}
