import { and, desc, eq, inArray, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import {
  FINDING_STATES,
  projectAssets,
  projects,
  scans,
  vulnerabilities,
  type FindingState,
  type FindingSeverity,
} from '../db/schema.ts';
import { severityCounts } from '../../../contract/severity.ts';

export interface AssetOverview {
  byState: Record<FindingState, number>;
  openBySeverity: Record<FindingSeverity, number>;
  scans: { id: number; name: string; status: string; scanner: string; createdAt: Date; completedAt: Date | null }[];
  projects: { id: number; name: string; status: string }[];
}

const SCANS_SHOWN = 20;
const current = sql`app_current_tenant()`;

/** What an asset's page shows beside the asset (issue 21): its findings by state, its scans and its projects. */
export class AssetOverviewRepository {
  /** `readableProjects`: the caller's project visibility (ProjectAccessRepository.readable). */
  async overview(tx: TenantDb, assetId: number, readableProjects: SQL): Promise<AssetOverview> {
    const v = vulnerabilities;
    const mine = and(eq(v.tenantId, current), eq(v.assetId, assetId));
    const byState = Object.fromEntries(FINDING_STATES.map((s) => [s, 0])) as Record<FindingState, number>;
    for (const r of await tx
      .select({ state: v.state, n: sql<string>`count(*)` })
      .from(v)
      .where(mine)
      .groupBy(v.state)) {
      byState[r.state] = Number(r.n);
    }
    const openBySeverity = severityCounts();
    for (const r of await tx
      .select({ severity: v.severity, n: sql<string>`count(*)` })
      .from(v)
      .where(and(mine, sql`not ${v.isResolved}`))
      .groupBy(v.severity)) {
      openBySeverity[r.severity] = Number(r.n);
    }
    // The scans aimed at it, and those that found something on it.
    const seenBy = tx
      .selectDistinct({ id: v.scanId })
      .from(v)
      .where(and(mine, isNotNull(v.scanId)));
    const scanRows = await tx
      .select({
        id: scans.id,
        name: scans.name,
        status: scans.status,
        scanner: scans.scanner,
        createdAt: scans.createdAt,
        completedAt: scans.completedAt,
      })
      .from(scans)
      .where(and(eq(scans.tenantId, current), or(eq(scans.assetId, assetId), inArray(scans.id, seenBy))))
      .orderBy(desc(scans.createdAt), desc(scans.id))
      .limit(SCANS_SHOWN);
    const projectRows = await tx
      .select({ id: projects.id, name: projects.name, status: projects.status })
      .from(projectAssets)
      .innerJoin(projects, and(eq(projects.tenantId, projectAssets.tenantId), eq(projects.id, projectAssets.projectId)))
      .where(and(eq(projectAssets.tenantId, current), eq(projectAssets.assetId, assetId), readableProjects))
      .orderBy(projects.name);
    return { byState, openBySeverity, scans: scanRows, projects: projectRows };
  }
}
