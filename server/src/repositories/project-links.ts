import { and, count, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { ProjectAccessRepository } from './project-access.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import {
  assets,
  cves,
  projectAssets,
  projects,
  projectThreats,
  projectVulnerabilities,
  threats,
  vulnerabilities,
  type FindingSeverity,
} from '../db/schema.ts';
import type { Actor } from '../policies/index.ts';
import { withFindingCounts, type AssetRow } from './assets.ts';
import { projectOf } from './project-joins.ts';
import type { ThreatRow } from './threats.ts';
import type { VulnerabilityRow } from './vulnerabilities.ts';

export type LinkType = 'asset' | 'vulnerability' | 'threat';

/** Which project a link belongs to and what it points at. */
export interface LinkRef {
  id: number;
  projectId: number;
  targetId: number;
}

interface LinkFields {
  linkId: number;
  projectId: number;
}

/** A project's asset link with the asset (and its finding counts) as the inventory shows it. */
export interface ProjectAssetRow extends AssetRow, LinkFields {
  linkCreatedAt: Date;
  linkUpdatedAt: Date;
}
export interface ProjectVulnerabilityRow extends VulnerabilityRow, LinkFields {}
export interface ProjectThreatRow extends ThreatRow, LinkFields {}

export interface LinkPage<T> {
  count: number;
  rows: T[];
}

interface Paging {
  projectId?: number | undefined;
  limit: number;
  offset: number;
}

export interface VulnerabilityLinkFilters extends Paging {
  severities?: FindingSeverity[] | undefined;
  isResolved?: boolean | undefined;
}

/** The foreign key a failed write ran into (23503), if that is why it failed. */
export function foreignKeyViolation(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown };
    if (code === '23503') return typeof constraint === 'string' ? constraint : '';
  }
  return undefined;
}

const projectAccess = new ProjectAccessRepository();

const tables = {
  asset: { table: projectAssets, target: projectAssets.assetId },
  vulnerability: { table: projectVulnerabilities, target: projectVulnerabilities.vulnerabilityId },
  threat: { table: projectThreats, target: projectThreats.threatId },
} as const;

type LinkTable = (typeof tables)[LinkType]['table'];

/** The current tenant's link of this id. */
const linkById = (table: LinkTable, linkId: number) =>
  and(eq(table.tenantId, sql`app_current_tenant()`), eq(table.id, linkId));

/** A finding link to its finding. */
const linkedFinding = and(
  eq(vulnerabilities.tenantId, projectVulnerabilities.tenantId),
  eq(vulnerabilities.id, projectVulnerabilities.vulnerabilityId),
);

// text_hash is the findings' search key, never sent out (as in VulnerabilitiesRepository).
const { textHash: _textHash, ...findingColumns } = getTableColumns(vulnerabilities);

/**
 * A project's links to the tenant's assets, findings and threats (nothing is copied). Every query names the
 * current tenant (row-level security confines it anyway); lists only reach projects the actor can read.
 */
export class ProjectLinksRepository {
  /** The link of this id, whatever the caller may see: the route then asks the project gate. */
  async ref(tx: TenantDb, type: LinkType, linkId: number): Promise<LinkRef | undefined> {
    const { table, target } = tables[type];
    const [row] = await tx
      .select({ id: table.id, projectId: table.projectId, targetId: target })
      .from(table)
      .where(linkById(table, linkId))
      .limit(1);
    return row;
  }

  /** Creates the link; a second link of the same object fails with the table's unique violation. */
  async link(tx: TenantDb, type: LinkType, projectId: number, targetId: number): Promise<number> {
    const tenantId = sql`app_current_tenant()`;
    const [row] =
      type === 'asset'
        ? await tx
            .insert(projectAssets)
            .values({ tenantId, projectId, assetId: targetId })
            .returning({ id: projectAssets.id })
        : type === 'vulnerability'
          ? await tx
              .insert(projectVulnerabilities)
              .values({ tenantId, projectId, vulnerabilityId: targetId })
              .returning({ id: projectVulnerabilities.id })
          : await tx
              .insert(projectThreats)
              .values({ tenantId, projectId, threatId: targetId })
              .returning({ id: projectThreats.id });
    return row!.id;
  }

  async touch(tx: TenantDb, type: LinkType, linkId: number): Promise<void> {
    const { table } = tables[type];
    await tx.update(table).set({ updatedAt: new Date() }).where(linkById(table, linkId));
  }

  async unlink(tx: TenantDb, type: LinkType, linkId: number): Promise<boolean> {
    const { table } = tables[type];
    const removed = await tx.delete(table).where(linkById(table, linkId)).returning({ id: table.id });
    return removed.length > 0;
  }

  /** Conditions shared by the lists: the current tenant, a readable project, optionally one project. */
  private listConditions(table: LinkTable, actor: Actor, projectId: number | undefined): SQL[] {
    const where: SQL[] = [eq(table.tenantId, sql`app_current_tenant()`), projectAccess.readable(actor)];
    if (projectId !== undefined) where.push(eq(table.projectId, projectId));
    return where;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Assets.

  private assetQuery(tx: TenantDb) {
    return tx
      .select({
        ...getTableColumns(assets),
        linkId: projectAssets.id,
        projectId: projectAssets.projectId,
        linkCreatedAt: projectAssets.createdAt,
        linkUpdatedAt: projectAssets.updatedAt,
      })
      .from(projectAssets)
      .innerJoin(projects, projectOf(projectAssets))
      .innerJoin(assets, and(eq(assets.tenantId, projectAssets.tenantId), eq(assets.id, projectAssets.assetId)))
      .$dynamic();
  }

  async assetPage(tx: TenantDb, actor: Actor, opts: Paging): Promise<LinkPage<ProjectAssetRow>> {
    const where = and(...this.listConditions(projectAssets, actor, opts.projectId));
    const [total] = await tx
      .select({ n: count() })
      .from(projectAssets)
      .innerJoin(projects, projectOf(projectAssets))
      .where(where);
    const rows = await this.assetQuery(tx)
      .where(where)
      .orderBy(desc(projectAssets.createdAt), desc(projectAssets.id))
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: total?.n ?? 0, rows: await withFindingCounts(tx, rows) };
  }

  async assetLink(tx: TenantDb, linkId: number): Promise<ProjectAssetRow | undefined> {
    const rows = await this.assetQuery(tx).where(linkById(projectAssets, linkId)).limit(1);
    return (await withFindingCounts(tx, rows))[0];
  }

  /** The tenant's threats on an asset, newest first, shaped as the threats API reads them. */
  async threatsOnAsset(tx: TenantDb, assetId: number, limit: number): Promise<ThreatRow[]> {
    return tx
      .select({ ...getTableColumns(threats), assetName: assets.name })
      .from(threats)
      .leftJoin(assets, and(eq(assets.tenantId, threats.tenantId), eq(assets.id, threats.assetId)))
      .where(and(eq(threats.tenantId, sql`app_current_tenant()`), eq(threats.assetId, assetId)))
      .orderBy(desc(threats.createdAt), desc(threats.id))
      .limit(limit);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Findings.

  private vulnerabilityQuery(tx: TenantDb) {
    return tx
      .select({
        ...findingColumns,
        assetName: assets.name,
        epssScore: cves.epssScore,
        linkId: projectVulnerabilities.id,
        projectId: projectVulnerabilities.projectId,
      })
      .from(projectVulnerabilities)
      .innerJoin(projects, projectOf(projectVulnerabilities))
      .innerJoin(vulnerabilities, linkedFinding)
      .leftJoin(assets, and(eq(assets.tenantId, vulnerabilities.tenantId), eq(assets.id, vulnerabilities.assetId)))
      .leftJoin(cves, eq(cves.cveId, vulnerabilities.cveId))
      .$dynamic();
  }

  async vulnerabilityPage(
    tx: TenantDb,
    actor: Actor,
    opts: VulnerabilityLinkFilters,
  ): Promise<LinkPage<ProjectVulnerabilityRow>> {
    const where = this.listConditions(projectVulnerabilities, actor, opts.projectId);
    if (opts.severities?.length) where.push(inArray(vulnerabilities.severity, opts.severities));
    if (opts.isResolved !== undefined) where.push(eq(vulnerabilities.isResolved, opts.isResolved));
    const [total] = await tx
      .select({ n: count() })
      .from(projectVulnerabilities)
      .innerJoin(projects, projectOf(projectVulnerabilities))
      .innerJoin(vulnerabilities, linkedFinding)
      .where(and(...where));
    const rows = await this.vulnerabilityQuery(tx)
      .where(and(...where))
      .orderBy(desc(projectVulnerabilities.createdAt), desc(projectVulnerabilities.id))
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: total?.n ?? 0, rows };
  }

  async vulnerabilityLink(tx: TenantDb, linkId: number): Promise<ProjectVulnerabilityRow | undefined> {
    const [row] = await this.vulnerabilityQuery(tx).where(linkById(projectVulnerabilities, linkId)).limit(1);
    return row;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Threats.

  private threatQuery(tx: TenantDb) {
    return tx
      .select({
        ...getTableColumns(threats),
        assetName: assets.name,
        linkId: projectThreats.id,
        projectId: projectThreats.projectId,
      })
      .from(projectThreats)
      .innerJoin(projects, projectOf(projectThreats))
      .innerJoin(threats, and(eq(threats.tenantId, projectThreats.tenantId), eq(threats.id, projectThreats.threatId)))
      .leftJoin(assets, and(eq(assets.tenantId, threats.tenantId), eq(assets.id, threats.assetId)))
      .$dynamic();
  }

  async threatPage(tx: TenantDb, actor: Actor, opts: Paging): Promise<LinkPage<ProjectThreatRow>> {
    const where = and(...this.listConditions(projectThreats, actor, opts.projectId));
    const [total] = await tx
      .select({ n: count() })
      .from(projectThreats)
      .innerJoin(projects, projectOf(projectThreats))
      .where(where);
    const rows = await this.threatQuery(tx)
      .where(where)
      .orderBy(desc(projectThreats.createdAt), desc(projectThreats.id))
      .limit(opts.limit)
      .offset(opts.offset);
    return { count: total?.n ?? 0, rows };
  }

  async threatLink(tx: TenantDb, linkId: number): Promise<ProjectThreatRow | undefined> {
    const [row] = await this.threatQuery(tx).where(linkById(projectThreats, linkId)).limit(1);
    return row;
  }
}
