import { and, count, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { assets, threats, type Severity, type ThreatStatus } from '../db/schema.ts';
import type { TenantDb } from '../db/tenant-scope.ts';

export type ThreatRecord = typeof threats.$inferSelect;
/** A threat with the name of its asset (null when it has none). */
export interface ThreatRow extends ThreatRecord {
  assetName: string | null;
}
export type ThreatValues = Partial<Omit<typeof threats.$inferInsert, 'id' | 'tenantId' | 'createdAt'>>;

export interface ThreatFilters {
  severity?: Severity[] | undefined;
  status?: ThreatStatus[] | undefined;
  text?: string | undefined;
  isMitigated?: boolean | undefined;
}

/** LIKE wildcards in user text are literal. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const columns = {
  id: threats.id,
  tenantId: threats.tenantId,
  title: threats.title,
  description: threats.description,
  threatType: threats.threatType,
  severity: threats.severity,
  status: threats.status,
  isMitigated: threats.isMitigated,
  mitigatedAt: threats.mitigatedAt,
  mitigatedBy: threats.mitigatedBy,
  source: threats.source,
  cveId: threats.cveId,
  assetId: threats.assetId,
  createdAt: threats.createdAt,
  updatedAt: threats.updatedAt,
  assetName: assets.name,
};

/** Threats of the tenant the transaction is confined to (row-level security). */
export class ThreatsRepository {
  private where(filters: ThreatFilters): SQL | undefined {
    const where: SQL[] = [];
    if (filters.severity?.length) where.push(inArray(threats.severity, filters.severity));
    if (filters.status?.length) where.push(inArray(threats.status, filters.status));
    if (filters.isMitigated !== undefined) where.push(eq(threats.isMitigated, filters.isMitigated));
    if (filters.text) {
      const pattern = `%${escapeLike(filters.text)}%`;
      where.push(
        or(ilike(threats.title, pattern), ilike(threats.description, pattern), ilike(threats.cveId, pattern))!,
      );
    }
    return where.length > 0 ? and(...where) : undefined;
  }

  async page(
    tx: TenantDb,
    filters: ThreatFilters,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ThreatRow[] }> {
    const condition = this.where(filters);
    const [total] = await tx.select({ n: count() }).from(threats).where(condition);
    const rows = await tx
      .select(columns)
      .from(threats)
      .leftJoin(assets, eq(assets.id, threats.assetId))
      .where(condition)
      .orderBy(desc(threats.createdAt), desc(threats.id))
      .limit(limit)
      .offset(offset);
    return { total: total?.n ?? 0, rows };
  }

  async find(tx: TenantDb, id: number): Promise<ThreatRow | undefined> {
    const [row] = await tx
      .select(columns)
      .from(threats)
      .leftJoin(assets, eq(assets.id, threats.assetId))
      .where(eq(threats.id, id));
    return row;
  }

  async create(tx: TenantDb, tenantId: string, values: ThreatValues & { title: string }): Promise<ThreatRow> {
    const [row] = await tx
      .insert(threats)
      .values({ ...values, tenantId })
      .returning({ id: threats.id });
    return (await this.find(tx, row!.id))!;
  }

  async update(tx: TenantDb, id: number, values: ThreatValues): Promise<ThreatRow | undefined> {
    const [row] = await tx
      .update(threats)
      .set({ ...values, updatedAt: new Date() })
      .where(eq(threats.id, id))
      .returning({ id: threats.id });
    return row ? this.find(tx, row.id) : undefined;
  }

  async remove(tx: TenantDb, id: number): Promise<boolean> {
    const rows = await tx.delete(threats).where(eq(threats.id, id)).returning({ id: threats.id });
    return rows.length > 0;
  }

  async countsBy(tx: TenantDb, column: 'severity' | 'status'): Promise<Map<string, number>> {
    const field = column === 'severity' ? threats.severity : threats.status;
    const rows = await tx
      .select({ key: sql<string>`${field}`, n: count() })
      .from(threats)
      .groupBy(field);
    return new Map(rows.map((r) => [r.key, r.n]));
  }

  async recent(tx: TenantDb, limit: number): Promise<ThreatRow[]> {
    return tx
      .select(columns)
      .from(threats)
      .leftJoin(assets, eq(assets.id, threats.assetId))
      .orderBy(desc(threats.createdAt), desc(threats.id))
      .limit(limit);
  }

  async assetExists(tx: TenantDb, assetId: number): Promise<boolean> {
    const [row] = await tx.select({ id: assets.id }).from(assets).where(eq(assets.id, assetId));
    return row !== undefined;
  }
}
