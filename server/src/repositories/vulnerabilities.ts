import { and, asc, desc, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import { getTableColumns } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import {
  assets,
  cves,
  cwes,
  vulnerabilities,
  vulnerabilityCounts,
  vulnerabilityTotals,
  type Severity,
} from '../db/schema.ts';
import { containsPattern } from './tenant-users.ts';

export type VulnerabilityRecord = typeof vulnerabilities.$inferSelect;

/** A finding as the API shows it: the row, its asset's name and the CVE's EPSS score (read live). */
export interface VulnerabilityRow extends VulnerabilityRecord {
  assetName: string | null;
  epssScore: number | null;
}

export interface VulnerabilityFilters {
  severities?: Severity[] | undefined;
  isResolved?: boolean | undefined;
  assetId?: number | undefined;
  cveId?: string | undefined;
  kev?: boolean | undefined;
  text?: string | undefined;
  scanId?: number | undefined;
}

export const VULNERABILITY_ORDERINGS = [
  'created_at',
  'updated_at',
  'severity',
  'cvss_score',
  'cve_id',
  'title',
  'last_seen',
] as const;
export type VulnerabilityOrderField = (typeof VULNERABILITY_ORDERINGS)[number];
export interface VulnerabilityOrdering {
  field: VulnerabilityOrderField;
  desc: boolean;
}

/** The columns a write may set (the route decides which come from the body and which from the CVE store). */
export type VulnerabilityValues = Partial<
  Pick<
    VulnerabilityRecord,
    | 'title'
    | 'cveId'
    | 'findingKey'
    | 'assetId'
    | 'severity'
    | 'cvssScore'
    | 'cvssVector'
    | 'kev'
    | 'cweIds'
    | 'description'
    | 'solution'
    | 'port'
    | 'protocol'
    | 'service'
    | 'isResolved'
    | 'resolvedAt'
    | 'resolvedBy'
    | 'source'
  >
>;

/** What a finding copies from the CVE store. */
export interface CveFacts {
  cveId: string;
  title: string;
  description: string;
  severity: Severity;
  cvssScore: number | null;
  cvssVector: string | null;
  kev: boolean;
  cweIds: string[];
}

export const SEVERITY_RANK = sql`(case ${vulnerabilities.severity} when 'critical' then 5 when 'high' then 4 when 'medium' then 3 when 'low' then 2 else 1 end)`;

// Row-level security already confines the table; naming the tenant again lets the planner use the tenant indexes.
const inCurrentTenant = eq(vulnerabilities.tenantId, sql`app_current_tenant()`);

const rowColumns = {
  ...getTableColumns(vulnerabilities),
  assetName: assets.name,
  epssScore: cves.epssScore,
};

/** Filters that the counters table can answer (no text, CVE or scan). */
function countable(f: VulnerabilityFilters): boolean {
  return f.text === undefined && f.cveId === undefined && f.scanId === undefined;
}

/**
 * Findings of the current tenant. Every method takes a TenantDb (request.tenantDb): row-level security hides
 * other tenants' rows even if a condition here were wrong.
 */
export class VulnerabilitiesRepository {
  conditions(f: VulnerabilityFilters): SQL[] {
    const where: SQL[] = [inCurrentTenant];
    if (f.severities && f.severities.length > 0) where.push(inArray(vulnerabilities.severity, f.severities));
    if (f.isResolved !== undefined) where.push(eq(vulnerabilities.isResolved, f.isResolved));
    if (f.assetId !== undefined) where.push(eq(vulnerabilities.assetId, f.assetId));
    if (f.cveId !== undefined) where.push(eq(vulnerabilities.cveId, f.cveId));
    if (f.kev !== undefined) where.push(eq(vulnerabilities.kev, f.kev));
    if (f.scanId !== undefined) where.push(eq(vulnerabilities.scanId, f.scanId));
    if (f.text) {
      // Through the owner-rights function of migration 0008, so the trigram index is usable under RLS; it applies
      // the indexed filters itself so PostgreSQL can combine the indexes.
      const severities =
        f.severities && f.severities.length > 0
          ? sql`array[${sql.join(
              f.severities.map((s) => sql`${s}`),
              sql`, `,
            )}]::text[]`
          : sql`null::text[]`;
      where.push(
        sql`${vulnerabilities.id} in (select vulnerability_text_matches(${containsPattern(f.text)}, ${severities}, ${f.isResolved ?? null}::boolean, ${f.kev ?? null}::boolean))`,
      );
    }
    return where;
  }

  /**
   * Exact count, from the counters when the filters allow it (a million rows are not counted per request): the
   * tenant's totals (at most 20 rows) unless an asset is named, else that asset's rows of the per-asset counters.
   */
  async count(tx: TenantDb, f: VulnerabilityFilters): Promise<number> {
    if (countable(f)) {
      const t = f.assetId === undefined ? vulnerabilityTotals : vulnerabilityCounts;
      const where: SQL[] = [eq(t.tenantId, sql`app_current_tenant()`)];
      if (f.assetId !== undefined) where.push(eq(vulnerabilityCounts.assetId, f.assetId));
      if (f.severities && f.severities.length > 0) where.push(inArray(t.severity, f.severities));
      if (f.isResolved !== undefined) where.push(eq(t.isResolved, f.isResolved));
      if (f.kev !== undefined) where.push(eq(t.kev, f.kev));
      const [row] = await tx
        .select({ n: sql<string>`coalesce(sum(${t.n}), 0)` })
        .from(t)
        .where(and(...where));
      return Number(row?.n ?? 0);
    }
    const [row] = await tx
      .select({ n: sql<string>`count(*)` })
      .from(vulnerabilities)
      .where(and(...this.conditions(f)));
    return Number(row?.n ?? 0);
  }

  async page(
    tx: TenantDb,
    opts: { filters: VulnerabilityFilters; ordering: VulnerabilityOrdering; limit: number; offset: number },
  ): Promise<{ count: number; rows: VulnerabilityRow[] }> {
    const { field, desc: descending } = opts.ordering;
    const key =
      field === 'severity'
        ? SEVERITY_RANK
        : {
            created_at: vulnerabilities.createdAt,
            updated_at: vulnerabilities.updatedAt,
            cvss_score: vulnerabilities.cvssScore,
            cve_id: vulnerabilities.cveId,
            title: vulnerabilities.title,
            last_seen: vulnerabilities.lastSeen,
          }[field];
    // Nullable keys (cvss_score, cve_id) sort their nulls last in both directions; the others keep the plain
    // order so the (tenant_id, created_at, id) index serves the default ordering.
    const nullable = field === 'cvss_score' || field === 'cve_id';
    const order = descending
      ? [nullable ? sql`${key} desc nulls last` : desc(key), desc(vulnerabilities.id)]
      : [nullable ? sql`${key} asc nulls last` : asc(key), asc(vulnerabilities.id)];
    const query = (withTotal: boolean) =>
      tx
        .select({ ...rowColumns, total: withTotal ? sql<string>`count(*) over ()` : sql<string>`0` })
        .from(vulnerabilities)
        .leftJoin(assets, eq(assets.id, vulnerabilities.assetId))
        .leftJoin(cves, eq(cves.cveId, vulnerabilities.cveId))
        .where(and(...this.conditions(opts.filters)))
        .orderBy(...order)
        .limit(opts.limit)
        .offset(opts.offset);
    const strip = (rows: (VulnerabilityRow & { total: string })[]) => rows.map(({ total: _, ...r }) => r);
    if (opts.filters.text) {
      // A text search runs once: its matches are few enough to count while the page is sorted.
      const rows = await query(true);
      const first = rows[0];
      if (first) return { count: Number(first.total), rows: strip(rows) };
      return { count: await this.count(tx, opts.filters), rows: [] };
    }
    const total = await this.count(tx, opts.filters);
    if (total === 0 || opts.offset >= total) return { count: total, rows: [] };
    return { count: total, rows: strip(await query(false)) };
  }

  /** One keyset batch of the export: rows after `afterId`, by id. */
  async batchAfter(tx: TenantDb, f: VulnerabilityFilters, afterId: number, limit: number): Promise<VulnerabilityRow[]> {
    return tx
      .select(rowColumns)
      .from(vulnerabilities)
      .leftJoin(assets, eq(assets.id, vulnerabilities.assetId))
      .leftJoin(cves, eq(cves.cveId, vulnerabilities.cveId))
      .where(and(...this.conditions(f), gt(vulnerabilities.id, afterId)))
      .orderBy(asc(vulnerabilities.id))
      .limit(limit);
  }

  async find(tx: TenantDb, id: number): Promise<VulnerabilityRow | undefined> {
    const [row] = await tx
      .select(rowColumns)
      .from(vulnerabilities)
      .leftJoin(assets, eq(assets.id, vulnerabilities.assetId))
      .leftJoin(cves, eq(cves.cveId, vulnerabilities.cveId))
      .where(and(inCurrentTenant, eq(vulnerabilities.id, id)))
      .limit(1);
    return row;
  }

  /** The CVE store's facts for this id (public reference data), or undefined when the store does not know it. */
  async cveFacts(tx: TenantDb, cveId: string): Promise<CveFacts | undefined> {
    const [row] = await tx.select().from(cves).where(eq(cves.cveId, cveId)).limit(1);
    if (!row) return undefined;
    // Score and vector of the version the store's severity came from: v4, else v3.x, else v2.
    const [cvssScore, cvssVector] =
      row.cvss4Score !== null
        ? [row.cvss4Score, row.cvss4Vector]
        : row.cvss3Score !== null
          ? [row.cvss3Score, row.cvss3Vector]
          : [row.cvss2Score, row.cvss2Vector];
    return {
      cveId: row.cveId,
      title: row.title,
      description: row.description,
      severity: row.severity,
      cvssScore,
      cvssVector,
      kev: row.kev,
      cweIds: row.cweIds,
    };
  }

  /** The CVE store record behind a finding, its CWEs and the tenant's open findings on it. */
  async cveDetail(
    tx: TenantDb,
    cveId: string,
  ): Promise<
    { record: typeof cves.$inferSelect; cwes: (typeof cwes.$inferSelect)[]; affectedAssets: number } | undefined
  > {
    const [record] = await tx.select().from(cves).where(eq(cves.cveId, cveId)).limit(1);
    if (!record) return undefined;
    const cweRows = record.cweIds.length > 0 ? await tx.select().from(cwes).where(inArray(cwes.id, record.cweIds)) : [];
    const [open] = await tx
      .select({ n: sql<string>`count(*)` })
      .from(vulnerabilities)
      .where(and(inCurrentTenant, eq(vulnerabilities.cveId, cveId), eq(vulnerabilities.isResolved, false)));
    return { record, cwes: cweRows, affectedAssets: Number(open?.n ?? 0) };
  }

  async create(tx: TenantDb, values: VulnerabilityValues & { title: string; findingKey: string }): Promise<number> {
    const [row] = await tx
      .insert(vulnerabilities)
      .values({ ...values, tenantId: sql`app_current_tenant()` })
      .returning({ id: vulnerabilities.id });
    return row!.id;
  }

  async update(tx: TenantDb, id: number, values: VulnerabilityValues): Promise<boolean> {
    const updated = await tx
      .update(vulnerabilities)
      .set({ ...values, updatedAt: sql`now()` })
      .where(and(inCurrentTenant, eq(vulnerabilities.id, id)))
      .returning({ id: vulnerabilities.id });
    return updated.length > 0;
  }

  async remove(tx: TenantDb, id: number): Promise<boolean> {
    const removed = await tx
      .delete(vulnerabilities)
      .where(and(inCurrentTenant, eq(vulnerabilities.id, id)))
      .returning({ id: vulnerabilities.id });
    return removed.length > 0;
  }
}
