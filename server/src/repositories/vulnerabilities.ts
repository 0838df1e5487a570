import { and, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { getTableColumns } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { rowsOf } from '../db/client.ts';
import { pgArray } from '../db/arrays.ts';
import {
  assets,
  cves,
  cwes,
  FINDING_SEVERITIES,
  severityRank,
  vulnerabilities,
  vulnerabilityCounts,
  vulnerabilityTotals,
  type FindingState,
  type FindingSeverity,
} from '../db/schema.ts';
import { containsPattern } from './tenant-users.ts';
import { SSVC_DECISIONS, SSVC_TABLE, type SsvcDecision } from '../../../contract/ssvc.ts';
import { ssvcRank } from '../domain/ssvc.ts';
import { bestCvssOf } from '../domain/cve-records.ts';
import type { CvssSource, SeveritySource } from '../../../contract/severity.ts';

export type VulnerabilityRecord = Omit<typeof vulnerabilities.$inferSelect, 'textHash'>;

/** A finding as the API shows it: the row, its asset's name and the CVE's EPSS score (read live). */
export interface VulnerabilityRow extends VulnerabilityRecord {
  assetName: string | null;
  epssScore: number | null;
}

/** A finding as the export reads it: the API's field names, the asset as its name, timestamps as ISO text. */
export interface ExportRow {
  id: number;
  title: string;
  description: string;
  cve_id: string | null;
  severity: FindingSeverity;
  severity_source: SeveritySource;
  severity_reason: string | null;
  rated_severity: FindingSeverity | null;
  rated_source: SeveritySource | null;
  cvss_score: number | null;
  cvss_vector: string | null;
  kev: boolean;
  epss_score: number | null;
  cwe_ids: string[];
  asset_id: number | null;
  asset_name: string | null;
  scan_id: number | null;
  port: number | null;
  protocol: string | null;
  service: string | null;
  package_name: string | null;
  installed_version: string | null;
  fixed_version: string | null;
  solution: string;
  source: string;
  is_resolved: boolean;
  resolved_at: string | null;
  resolved_by: number | null;
  state: FindingState;
  state_changed_at: string | null;
  state_reason: string | null;
  accepted_by: number | null;
  accepted_until: string | null;
  assignee_id: number | null;
  due_date: string | null;
  ssvc_decision: SsvcDecision | null;
  first_seen: string;
  last_seen: string;
  created_at: string;
  updated_at: string;
}

export interface VulnerabilityFilters {
  severities?: FindingSeverity[] | undefined;
  isResolved?: boolean | undefined;
  assetId?: number | undefined;
  cveId?: string | undefined;
  kev?: boolean | undefined;
  text?: string | undefined;
  scanId?: number | undefined;
  /** SSVC decisions (docs/ssvc.md): only open findings have one. */
  ssvc?: SsvcDecision[] | undefined;
}

export const VULNERABILITY_ORDERINGS = [
  'created_at',
  'updated_at',
  'severity',
  'cvss_score',
  'cve_id',
  'title',
  'last_seen',
  'ssvc_decision',
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
    | 'severitySource'
    | 'severityReason'
    | 'ratedSeverity'
    | 'ratedSource'
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
    | 'state'
    | 'stateChangedAt'
    | 'stateReason'
    | 'acceptedBy'
    | 'acceptedUntil'
    | 'assigneeId'
    | 'dueDate'
  >
>;

/** What a finding copies from the CVE store. */
export interface CveFacts {
  cveId: string;
  title: string;
  description: string;
  severity: FindingSeverity;
  /** Who scored the CVE (null when unscored, or a CVE 5 record imported before migration 0030). */
  cvssSource: CvssSource | null;
  cvssScore: number | null;
  cvssVector: string | null;
  kev: boolean;
  cweIds: string[];
}

export const SEVERITY_RANK = severityRank(vulnerabilities.severity);

/** The SSVC ordering's key: the decision's rank, none (0, a resolved finding) as null so that it sorts last. */
const ssvcKey = (decision: AnyPgColumn | SQL) => sql`nullif(${decision}, 0)`;
export const SSVC_KEY = ssvcKey(vulnerabilities.ssvcDecision);

/** A kept SSVC rank's name (the export reads it in SQL): `array[...]`[rank], null for 0. */
const SSVC_NAME = sql.raw(`(array[${SSVC_DECISIONS.map((d) => `'${d}'`).join(', ')}])`);

// Row-level security already confines the table; naming the tenant again lets the planner use the tenant indexes.
const inCurrentTenant = eq(vulnerabilities.tenantId, sql`app_current_tenant()`);

// text_hash is the search key, never sent out.
const { textHash, ...findingColumns } = getTableColumns(vulnerabilities);
const rowColumns = {
  ...findingColumns,
  assetName: assets.name,
  epssScore: cves.epssScore,
};

/** The column of each ordering but severity and SSVC, which sort by SEVERITY_RANK and SSVC_KEY. */
const ORDER_COLUMNS = {
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  cvss_score: 'cvssScore',
  cve_id: 'cveId',
  title: 'title',
  last_seen: 'lastSeen',
} as const satisfies Record<
  Exclude<VulnerabilityOrderField, 'severity' | 'ssvc_decision'>,
  keyof typeof vulnerabilities._.columns
>;

/**
 * The ids of one page ordered by `ordering`, read cell by cell: each (severity, is_resolved, kev, ssvc_decision) cell
 * the filters allow is walked in its own index (migrations 0021 and 0029) for its first offset + limit entries, and
 * the page is taken from their union. A page costs at most 40 × (offset + limit) index entries whatever the filters
 * (30 for open findings, 5 for the Act ones), where one walk of the tenant's ordering would skip the rows they
 * exclude, all of them when the filter and the order are correlated.
 */
function cellPageIds(f: VulnerabilityFilters, ordering: VulnerabilityOrdering, limit: number, offset: number): SQL {
  const cells = cellsOf(f);
  // No cell can hold a match (an Act finding outside KEV, a decision on a resolved finding): no page.
  if (cells.length === 0) return sql`select null::bigint where false`;
  const { key, id } = directions(ordering);
  // Inside a cell the severity and the decision are one: the key is the cell's, and the walk is the id order.
  const cellKey =
    ordering.field === 'severity'
      ? severityRank(sql.raw('cell.severity'))
      : ordering.field === 'ssvc_decision'
        ? ssvcKey(sql.raw('cell.ssvc_decision'))
        : undefined;
  const walkKey = cellKey ? undefined : sql.raw(`v.${ordering.field}`);
  const walkOrder = walkKey ? sql`${walkKey} ${key}, v.id ${id}` : sql`v.id ${id}`;
  return sql`select p.id from (values ${sql.raw(cells.join(', '))}) as cell(severity, is_resolved, kev, ssvc_decision)
    cross join lateral (
      select v.id, ${walkKey ?? cellKey} as k from vulnerabilities v
      where v.tenant_id = app_current_tenant() and v.severity = cell.severity
        and v.is_resolved = cell.is_resolved and v.kev = cell.kev and v.ssvc_decision = cell.ssvc_decision
      order by ${walkOrder} limit ${offset + limit}
    ) p
    order by p.k ${key}, p.id ${id} limit ${limit} offset ${offset}`;
}

/** The decisions a finding can hold with and without KEV (exploitation active, or none or poc): CISA's table. */
const SSVC_BY_KEV = (() => {
  const under = (...e: (keyof typeof SSVC_TABLE)[]) =>
    SSVC_DECISIONS.filter((d) =>
      e.some((x) =>
        Object.values(SSVC_TABLE[x]).some((a) => Object.values(a).some((t) => Object.values(t).includes(d))),
      ),
    );
  return { true: under('active'), false: under('none', 'poc') };
})();

/**
 * The (severity, is_resolved, kev, ssvc_decision) cells the filters allow, as SQL tuples: a resolved finding has no
 * decision (0), an open one has one of those its KEV flag allows (Act needs active exploitation, that is KEV; Track*
 * never has it), among those a decision filter asks for.
 */
function cellsOf(f: VulnerabilityFilters): string[] {
  const severities = FINDING_SEVERITIES.filter((s) => !f.severities?.length || f.severities.includes(s));
  const flags = (v: boolean | undefined) => (v === undefined ? [false, true] : [v]);
  const asked = f.ssvc?.length ? f.ssvc : undefined;
  return severities.flatMap((severity) =>
    flags(f.isResolved).flatMap((resolved) =>
      flags(f.kev).flatMap((kev) => {
        const decisions = resolved
          ? asked
            ? []
            : [0]
          : SSVC_BY_KEV[`${kev}`].filter((d) => !asked || asked.includes(d)).map(ssvcRank);
        return decisions.map((d) => `('${severity}', ${resolved}, ${kev}, ${d})`);
      }),
    ),
  );
}

/**
 * An ordering's directions, for its key and for the id that breaks ties: exactly its indexes' (migration 0021), the
 * nullable keys (cvss_score, cve_id) sorting their nulls last both ways. The SSVC ordering puts the findings without
 * a decision (resolved) last both ways; inside a cell it is the id order.
 */
function directions({ field, desc: descending }: VulnerabilityOrdering): { key: SQL; id: SQL } {
  const nullable = field === 'cvss_score' || field === 'cve_id';
  const last = nullable || field === 'ssvc_decision';
  const key = descending ? (last ? 'desc nulls last' : 'desc') : last ? 'asc nulls last' : 'asc';
  const id = descending ? (nullable ? 'desc nulls last' : 'desc') : 'asc';
  return { key: sql.raw(key), id: sql.raw(id) };
}

/** Filters that the counters table can answer (no text, CVE or scan; a decision only with the tenant's totals). */
function countable(f: VulnerabilityFilters): boolean {
  const decided = !!f.ssvc?.length;
  return (
    f.text === undefined && f.cveId === undefined && f.scanId === undefined && !(decided && f.assetId !== undefined)
  );
}

/**
 * The exact count of countable filters as one scalar query on the counters: the tenant's totals (at most 40 rows)
 * unless an asset is named, else that asset's rows of the per-asset counters. Undefined for other filters.
 */
function countersSum(f: VulnerabilityFilters): SQL | undefined {
  if (!countable(f)) return undefined;
  const t = f.assetId === undefined ? vulnerabilityTotals : vulnerabilityCounts;
  const where: SQL[] = [eq(t.tenantId, sql`app_current_tenant()`)];
  if (f.assetId !== undefined) where.push(eq(vulnerabilityCounts.assetId, f.assetId));
  if (f.severities && f.severities.length > 0) where.push(inArray(t.severity, f.severities));
  if (f.isResolved !== undefined) where.push(eq(t.isResolved, f.isResolved));
  if (f.kev !== undefined) where.push(eq(t.kev, f.kev));
  if (f.ssvc?.length) where.push(inArray(vulnerabilityTotals.ssvcDecision, f.ssvc.map(ssvcRank)));
  return sql`select coalesce(sum(${t.n}), 0)::text as n from ${t} where ${and(...where)}`;
}

/**
 * Filters ready to run: a text filter resolved to the hashes of the tenant's matching texts (migration 0011), once
 * per request, so an export's batches do not search again.
 */
export interface PreparedFilters {
  filters: VulnerabilityFilters;
  /** Decimal text_hash values; undefined when there is no text filter. */
  textHashes?: string[];
}

/**
 * Findings of the current tenant. Every method takes a TenantDb (request.tenantDb): row-level security hides
 * other tenants' rows even if a condition here were wrong.
 */
export class VulnerabilitiesRepository {
  async prepare(tx: TenantDb, filters: VulnerabilityFilters): Promise<PreparedFilters> {
    if (!filters.text) return { filters };
    const result = await tx.execute(
      sql`select h::text as h from vulnerability_text_hashes(${containsPattern(filters.text)}) h`,
    );
    return { filters, textHashes: rowsOf<{ h: string }>(result).map((r) => r.h) };
  }

  /** Conditions of prepared filters; plain filters must not carry a text (prepare() resolves it). */
  conditions(p: PreparedFilters | VulnerabilityFilters): SQL[] {
    const { filters: f, textHashes } = 'filters' in p ? p : { filters: p, textHashes: undefined };
    const where: SQL[] = [inCurrentTenant];
    if (f.severities && f.severities.length > 0) where.push(inArray(vulnerabilities.severity, f.severities));
    if (f.isResolved !== undefined) where.push(eq(vulnerabilities.isResolved, f.isResolved));
    if (f.assetId !== undefined) where.push(eq(vulnerabilities.assetId, f.assetId));
    if (f.cveId !== undefined) where.push(eq(vulnerabilities.cveId, f.cveId));
    if (f.kev !== undefined) where.push(eq(vulnerabilities.kev, f.kev));
    if (f.scanId !== undefined) where.push(eq(vulnerabilities.scanId, f.scanId));
    if (f.ssvc?.length) where.push(inArray(vulnerabilities.ssvcDecision, f.ssvc.map(ssvcRank)));
    if (f.text) {
      if (!textHashes) throw new Error('text filter not prepared');
      // One array parameter: the planner sees how many texts matched and picks the index walk accordingly.
      where.push(sql`${vulnerabilities.textHash} = any(${pgArray(textHashes)}::bigint[])`);
    }
    return where;
  }

  /** Exact count, from the counters when the filters allow it (a million rows are not counted per request). */
  async count(tx: TenantDb, filters: VulnerabilityFilters | PreparedFilters): Promise<number> {
    const p = 'filters' in filters ? filters : await this.prepare(tx, filters);
    const counters = countersSum(p.filters);
    if (counters) {
      return Number(rowsOf<{ n: string }>(await tx.execute(counters))[0]?.n ?? 0);
    }
    if (p.textHashes?.length === 0) return 0;
    const [row] = await tx
      .select({ n: sql<string>`count(*)` })
      .from(vulnerabilities)
      .where(and(...this.conditions(p)));
    return Number(row?.n ?? 0);
  }

  async page(
    tx: TenantDb,
    opts: { filters: VulnerabilityFilters; ordering: VulnerabilityOrdering; limit: number; offset: number },
  ): Promise<{ count: number; rows: VulnerabilityRow[] }> {
    const prepared = await this.prepare(tx, opts.filters);
    const counters = countersSum(prepared.filters);
    if (counters) {
      // The count rides on the rows (one round trip less per computed page); a page past the end reads it alone.
      const found = await this.rowsQuery(tx, prepared, opts.ordering, opts.limit, opts.offset, counters);
      const first = found[0];
      if (!first) return { count: await this.count(tx, prepared), rows: [] };
      return { count: Number(first.total), rows: found.map(({ total: _, ...row }) => row) };
    }
    const total = await this.count(tx, prepared);
    if (total === 0 || opts.offset >= total) return { count: total, rows: [] };
    const rows = await this.rowsQuery(tx, prepared, opts.ordering, opts.limit, opts.offset);
    return { count: total, rows: rows.map(({ total: _, ...row }) => row) };
  }

  /**
   * The page's rows as one statement (the server suite EXPLAINs it for every filter × ordering). Without an asset,
   * CVE, scan or text filter, the page's ids come from the cells' index walks (cellPageIds); those filters name few
   * rows, which their own index finds and a sort orders.
   */
  rowsQuery(
    tx: TenantDb,
    prepared: PreparedFilters,
    ordering: VulnerabilityOrdering,
    limit: number,
    offset: number,
    /** A scalar query whose value every row carries as `total` (the page's count, read in the same round trip). */
    total: SQL = sql`null`,
  ) {
    const { field } = ordering;
    const key =
      field === 'severity'
        ? SEVERITY_RANK
        : field === 'ssvc_decision'
          ? SSVC_KEY
          : vulnerabilities[ORDER_COLUMNS[field]];
    const f = prepared.filters;
    // An asset, a CVE or a scan names few rows; walking an ordering's index instead may read most of the tenant
    // before it meets them (a CVE's findings share their score): the key is wrapped so that no index matches it.
    const narrow = f.assetId !== undefined || f.cveId !== undefined || f.scanId !== undefined;
    const sortKey = narrow ? sql`coalesce(${key}, ${key})` : key;
    const direction = directions(ordering);
    const order = [sql`${sortKey} ${direction.key}`, sql`${vulnerabilities.id} ${direction.id}`];
    const query = tx
      .select({ ...rowColumns, total: sql<string | null>`(${total})` })
      .from(vulnerabilities)
      .leftJoin(assets, eq(assets.id, vulnerabilities.assetId))
      .leftJoin(cves, eq(cves.cveId, vulnerabilities.cveId))
      .$dynamic();
    if (narrow || f.text) {
      return query
        .where(and(...this.conditions(prepared)))
        .orderBy(...order)
        .limit(limit)
        .offset(offset);
    }
    const ids = cellPageIds(f, ordering, limit, offset);
    return query.where(and(inCurrentTenant, sql`${vulnerabilities.id} in (${ids})`)).orderBy(...order);
  }

  /**
   * One keyset batch of the export (rows after `afterId`, by id) as plain values named like the API's fields:
   * timestamps already ISO 8601 text and no per-row mapping, which was half the time of a 100k-row export.
   */
  async exportBatch(
    tx: TenantDb,
    f: PreparedFilters,
    afterId: number,
    limit: number,
    /** Only these findings (a selection's ticked rows), the filters still applying. */
    ids?: readonly number[],
  ): Promise<ExportRow[]> {
    const iso = (c: AnyPgColumn) => sql`to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const v = vulnerabilities;
    const only = ids && sql`${v.id} = any(${pgArray(ids)}::bigint[])`;
    const result = await tx.execute(sql`
      select ${v.id}::float8 as id, ${v.title} as title, ${v.description} as description, ${v.cveId} as cve_id,
             ${v.severity} as severity, ${v.severitySource} as severity_source,
             ${v.severityReason} as severity_reason, ${v.ratedSeverity} as rated_severity,
             ${v.ratedSource} as rated_source, ${v.cvssScore} as cvss_score, ${v.cvssVector} as cvss_vector, ${v.kev} as kev,
             ${cves.epssScore} as epss_score, ${v.cweIds} as cwe_ids, ${v.assetId}::float8 as asset_id,
             ${assets.name} as asset_name, ${v.scanId}::float8 as scan_id, ${v.port} as port,
             ${v.protocol} as protocol, ${v.service} as service, ${v.packageName} as package_name,
             ${v.installedVersion} as installed_version, ${v.fixedVersion} as fixed_version, ${v.solution} as solution,
             ${v.source} as source, ${v.isResolved} as is_resolved, ${iso(v.resolvedAt)} as resolved_at,
             ${v.resolvedBy} as resolved_by, ${v.state} as state, ${iso(v.stateChangedAt)} as state_changed_at,
             ${v.stateReason} as state_reason, ${v.acceptedBy} as accepted_by,
             ${v.acceptedUntil}::text as accepted_until, ${v.assigneeId} as assignee_id, ${v.dueDate}::text as due_date,
             ${SSVC_NAME}[${v.ssvcDecision}] as ssvc_decision,
             ${iso(v.firstSeen)} as first_seen, ${iso(v.lastSeen)} as last_seen,
             ${iso(v.createdAt)} as created_at, ${iso(v.updatedAt)} as updated_at
        from ${v}
        left join ${assets} on ${assets.id} = ${v.assetId}
        left join ${cves} on ${cves.cveId} = ${v.cveId}
       where ${and(...this.conditions(f), gt(v.id, afterId), only)}
       order by ${v.id}
       limit ${limit}`);
    return rowsOf<ExportRow>(result);
  }

  /** One finding, with its asset's criticality and exposure (the SSVC decision reads them). */
  async find(
    tx: TenantDb,
    id: number,
  ): Promise<(VulnerabilityRow & { assetCriticality: string | null; assetExposed: boolean | null }) | undefined> {
    const [row] = await tx
      .select({ ...rowColumns, assetCriticality: assets.criticality, assetExposed: assets.internetExposed })
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
    const { score: cvssScore, vector: cvssVector } = bestCvssOf(row);
    return {
      cveId: row.cveId,
      title: row.title,
      description: row.description,
      severity: row.severity,
      cvssSource: row.cvssSource,
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
