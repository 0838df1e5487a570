import { and, desc, eq, gte, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import {
  assets,
  cwes,
  scans,
  taskRuns,
  threats,
  vulnerabilities,
  vulnerabilityCounts,
  vulnerabilityCweCounts,
  vulnerabilityDailyCounts,
  vulnerabilityTotals,
  type FindingSeverity,
} from '../db/schema.ts';
import { severityCounts } from '../../../contract/severity.ts';
import { VulnerabilitiesRepository } from './vulnerabilities.ts';
import { ssvcRank } from '../domain/ssvc.ts';

const ACT = ssvcRank('act');

export interface SummaryFilters {
  /** Length of the trend window, in UTC days ending today. */
  days: number;
  assetId?: number | undefined;
  severities?: FindingSeverity[] | undefined;
  /** Undefined: open findings only (open_count and resolved_count still cover both). */
  isResolved?: boolean | undefined;
  kev?: boolean | undefined;
}

const CVE_UPDATE_TASK = 'vulnerabilities.tasks.update_cve_database';
const DAY_MS = 86_400_000;

const num = (v: unknown) => Number(v ?? 0);
const inTenant = (column: Parameters<typeof eq>[0]) => eq(column, sql`app_current_tenant()`);

/** The UTC dates of the window, oldest first. */
export function windowDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * The dashboards. Counts come from the per-tenant counters (migrations 0007 and 0010): the tenant's totals, the
 * per-asset, per-day and per-CWE rows, whatever the number of findings; only an asset filter falls back to the
 * findings themselves (one asset's rows, by index).
 */
export class DashboardRepository {
  private readonly findings = new VulnerabilitiesRepository();

  async vulnerabilitySummary(tx: TenantDb, f: SummaryFilters) {
    const scopeResolved = f.isResolved ?? false;
    const dims = (
      t:
        | typeof vulnerabilityCounts
        | typeof vulnerabilityTotals
        | typeof vulnerabilityDailyCounts
        | typeof vulnerabilityCweCounts,
    ) => {
      const where: SQL[] = [inTenant(t.tenantId)];
      if (f.severities && f.severities.length > 0) where.push(inArray(t.severity, f.severities));
      if (f.kev !== undefined) where.push(eq(t.kev, f.kev));
      return where;
    };
    const countWhere = dims(vulnerabilityCounts);
    if (f.assetId !== undefined) countWhere.push(eq(vulnerabilityCounts.assetId, f.assetId));

    // Without an asset, the tenant's totals (at most 20 rows) rather than a row per asset.
    const totalsTable = f.assetId === undefined ? vulnerabilityTotals : vulnerabilityCounts;
    const totals = await tx
      .select({
        severity: totalsTable.severity,
        isResolved: totalsTable.isResolved,
        kev: totalsTable.kev,
        n: sql<string>`sum(${totalsTable.n})`,
      })
      .from(totalsTable)
      .where(and(...(f.assetId === undefined ? dims(vulnerabilityTotals) : countWhere)))
      .groupBy(totalsTable.severity, totalsTable.isResolved, totalsTable.kev);

    const distribution = severityCounts();
    let total = 0;
    let kevCount = 0;
    let open = 0;
    let resolved = 0;
    // « À traiter maintenant »: the open findings whose SSVC decision is Act (a resolved finding has none). The
    // tenant's totals count them by decision; one asset's are counted on its findings (its index).
    let actCount = 0;
    if (f.assetId === undefined) {
      const [act] = await tx
        .select({ n: sql<string>`coalesce(sum(${vulnerabilityTotals.n}), 0)` })
        .from(vulnerabilityTotals)
        .where(and(...dims(vulnerabilityTotals), eq(vulnerabilityTotals.ssvcDecision, ACT)));
      actCount = num(act?.n);
    } else {
      const [act] = await tx
        .select({ n: sql<string>`count(*)` })
        .from(vulnerabilities)
        .where(
          and(
            ...this.findings.conditions({
              severities: f.severities,
              kev: f.kev,
              assetId: f.assetId,
              isResolved: false,
              ssvc: ['act'],
            }),
          ),
        );
      actCount = num(act?.n);
    }
    for (const r of totals) {
      const n = num(r.n);
      if (r.isResolved) resolved += n;
      else open += n;
      if (r.isResolved !== scopeResolved) continue;
      total += n;
      if (r.kev) kevCount += n;
      if (r.severity in distribution) distribution[r.severity] += n;
    }

    const scopeFilters = {
      severities: f.severities,
      isResolved: scopeResolved,
      kev: f.kev,
      assetId: f.assetId,
    };
    const recent = await tx
      .select({
        id: vulnerabilities.id,
        cveId: vulnerabilities.cveId,
        title: vulnerabilities.title,
        severity: vulnerabilities.severity,
        assetId: vulnerabilities.assetId,
        assetName: assets.name,
        createdAt: vulnerabilities.createdAt,
      })
      .from(vulnerabilities)
      .leftJoin(assets, eq(assets.id, vulnerabilities.assetId))
      .where(and(...this.findings.conditions(scopeFilters)))
      .orderBy(desc(vulnerabilities.createdAt), desc(vulnerabilities.id))
      .limit(10);

    const topAssets = await tx
      .select({
        id: vulnerabilityCounts.assetId,
        name: assets.name,
        count: sql<string>`sum(${vulnerabilityCounts.n})`,
        critical: sql<string>`coalesce(sum(${vulnerabilityCounts.n}) filter (where ${vulnerabilityCounts.severity} = 'critical'), 0)`,
      })
      .from(vulnerabilityCounts)
      .innerJoin(assets, eq(assets.id, vulnerabilityCounts.assetId))
      .where(and(...countWhere, ne(vulnerabilityCounts.assetId, 0), eq(vulnerabilityCounts.isResolved, scopeResolved)))
      .groupBy(vulnerabilityCounts.assetId, assets.name)
      .having(sql`sum(${vulnerabilityCounts.n}) > 0`)
      .orderBy(sql`sum(${vulnerabilityCounts.n}) desc`, vulnerabilityCounts.assetId)
      .limit(10);

    const days = windowDays(f.days);
    const since = days[0]!;
    let topCwes: { cweId: string; n: string }[];
    let trendRows: { day: string; n: string }[];
    if (f.assetId === undefined) {
      topCwes = await tx
        .select({ cweId: vulnerabilityCweCounts.cweId, n: sql<string>`sum(${vulnerabilityCweCounts.n})` })
        .from(vulnerabilityCweCounts)
        .where(and(...dims(vulnerabilityCweCounts), eq(vulnerabilityCweCounts.isResolved, scopeResolved)))
        .groupBy(vulnerabilityCweCounts.cweId)
        .having(sql`sum(${vulnerabilityCweCounts.n}) > 0`)
        .orderBy(sql`sum(${vulnerabilityCweCounts.n}) desc`, vulnerabilityCweCounts.cweId)
        .limit(10);
      trendRows = await tx
        .select({
          day: sql<string>`${vulnerabilityDailyCounts.day}::text`,
          n: sql<string>`sum(${vulnerabilityDailyCounts.n})`,
        })
        .from(vulnerabilityDailyCounts)
        .where(
          and(
            ...dims(vulnerabilityDailyCounts),
            eq(vulnerabilityDailyCounts.isResolved, scopeResolved),
            gte(vulnerabilityDailyCounts.day, since),
          ),
        )
        .groupBy(vulnerabilityDailyCounts.day);
    } else {
      // One asset's findings: few rows, read directly.
      const where = and(...this.findings.conditions(scopeFilters));
      topCwes = await tx
        .select({ cweId: sql<string>`w.cwe_id`, n: sql<string>`count(*)` })
        .from(vulnerabilities)
        .innerJoin(sql`lateral (select distinct u as cwe_id from unnest(${vulnerabilities.cweIds}) u) w`, sql`true`)
        .where(where)
        .groupBy(sql`w.cwe_id`)
        .orderBy(sql`count(*) desc`, sql`w.cwe_id`)
        .limit(10);
      const dayExpr = sql<string>`((${vulnerabilities.createdAt} at time zone 'UTC')::date)::text`;
      trendRows = await tx
        .select({ day: dayExpr, n: sql<string>`count(*)` })
        .from(vulnerabilities)
        .where(and(where, gte(vulnerabilities.createdAt, new Date(`${since}T00:00:00Z`))))
        .groupBy(dayExpr);
    }
    const cweNames =
      topCwes.length > 0
        ? new Map(
            (
              await tx
                .select()
                .from(cwes)
                .where(
                  inArray(
                    cwes.id,
                    topCwes.map((c) => c.cweId),
                  ),
                )
            ).map((c) => [c.id, c.name]),
          )
        : new Map<string, string>();
    const perDay = new Map(trendRows.map((r) => [r.day, num(r.n)]));

    return {
      total_vulnerabilities: total,
      severity_distribution: distribution,
      recently_added: recent.map((r) => ({
        id: r.id,
        cve_id: r.cveId,
        title: r.title,
        severity: r.severity,
        asset: r.assetId !== null && r.assetName !== null ? { id: r.assetId, name: r.assetName } : null,
        created_at: r.createdAt.toISOString(),
      })),
      top_affected_assets: topAssets.map((a) => ({
        id: a.id,
        name: a.name,
        count: num(a.count),
        critical: num(a.critical),
      })),
      top_cwe_categories: topCwes.map((c) => ({ cwe_id: c.cweId, name: cweNames.get(c.cweId) ?? '', count: num(c.n) })),
      vulnerability_trends: days.map((date) => ({ date, count: perDay.get(date) ?? 0 })),
      kev_count: kevCount,
      ssvc_act_count: actCount,
      open_count: open,
      resolved_count: resolved,
      generated_at: new Date().toISOString(),
    };
  }

  /** GET /api/dashboard/summary/: the home page's figures for the current tenant. */
  async homeSummary(tx: TenantDb) {
    const [v] = await tx
      .select({
        total: sql<string>`coalesce(sum(${vulnerabilityTotals.n}), 0)`,
        open: sql<string>`coalesce(sum(${vulnerabilityTotals.n}) filter (where not ${vulnerabilityTotals.isResolved}), 0)`,
        critical: sql<string>`coalesce(sum(${vulnerabilityTotals.n}) filter (where not ${vulnerabilityTotals.isResolved} and ${vulnerabilityTotals.severity} = 'critical'), 0)`,
        high: sql<string>`coalesce(sum(${vulnerabilityTotals.n}) filter (where not ${vulnerabilityTotals.isResolved} and ${vulnerabilityTotals.severity} = 'high'), 0)`,
        kev: sql<string>`coalesce(sum(${vulnerabilityTotals.n}) filter (where not ${vulnerabilityTotals.isResolved} and ${vulnerabilityTotals.kev}), 0)`,
      })
      .from(vulnerabilityTotals)
      .where(inTenant(vulnerabilityTotals.tenantId));
    const [a] = await tx
      .select({
        total: sql<string>`count(*)`,
        critical: sql<string>`count(*) filter (where ${assets.criticality} = 'critical')`,
      })
      .from(assets)
      .where(inTenant(assets.tenantId));
    const [t] = await tx
      .select({
        total: sql<string>`count(*)`,
        active: sql<string>`count(*) filter (where ${threats.status} in ('ACTIVE', 'INVESTIGATING'))`,
      })
      .from(threats)
      .where(inTenant(threats.tenantId));
    const [s] = await tx
      .select({
        total: sql<string>`count(*)`,
        running: sql<string>`count(*) filter (where ${scans.status} = 'RUNNING')`,
        lastCompleted: sql<
          Date | string | null
        >`max(${scans.completedAt}) filter (where ${scans.status} = 'COMPLETED')`,
      })
      .from(scans)
      .where(inTenant(scans.tenantId));
    // Row-level security shows the platform's runs (tenant_id null) and this tenant's own.
    const [k] = await tx
      .select({
        running: sql<string>`count(*) filter (where ${taskRuns.status} = 'STARTED')`,
        failed: sql<string>`count(*) filter (where ${taskRuns.status} = 'FAILURE' and coalesce(${taskRuns.dateDone}, ${taskRuns.createdAt}) > now() - interval '24 hours')`,
        lastCveUpdate: sql<
          Date | string | null
        >`max(${taskRuns.dateDone}) filter (where ${taskRuns.taskName} = ${CVE_UPDATE_TASK} and ${taskRuns.status} = 'SUCCESS')`,
      })
      .from(taskRuns);
    const isoOrNull = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
    return {
      vulnerabilities: {
        total: num(v?.total),
        open: num(v?.open),
        critical: num(v?.critical),
        high: num(v?.high),
        kev: num(v?.kev),
        resolved: num(v?.total) - num(v?.open),
      },
      assets: { total: num(a?.total), critical: num(a?.critical) },
      threats: { total: num(t?.total), active: num(t?.active) },
      scans: { total: num(s?.total), running: num(s?.running), last_completed_at: isoOrNull(s?.lastCompleted) },
      tasks: { running: num(k?.running), failed_24h: num(k?.failed) },
      last_cve_update: isoOrNull(k?.lastCveUpdate),
      generated_at: new Date().toISOString(),
    };
  }
}
