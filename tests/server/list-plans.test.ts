import { and, asc, desc, eq, sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVulnerabilities } from '../../server/src/cli/generate-vulnerabilities.ts';
import { rowsOf, type Database } from '../../server/src/db/client.ts';
import { severityRank, tenants, vulnerabilities } from '../../server/src/db/schema.ts';
import { withTenant, type TenantDb, type TenantId } from '../../server/src/db/tenant-scope.ts';
import {
  VULNERABILITY_ORDERINGS,
  VulnerabilitiesRepository,
  type VulnerabilityFilters,
  type VulnerabilityOrdering,
} from '../../server/src/repositories/vulnerabilities.ts';
import { freshDatabase, onPostgres } from './helpers.ts';

/**
 * Issue 19: every documented filter × ordering of the findings list is an index walk on PostgreSQL (no sequential
 * scan of the findings table, whatever the planner thinks of the data), and the cell-by-cell page (migration 0021)
 * gives exactly the rows a plain ORDER BY … LIMIT … OFFSET gives.
 */
const COUNT = onPostgres ? 30_000 : 1_500;

let database: Database;
let drop: () => Promise<void>;
let tenantId: TenantId;
let sample: { assetId: number; cveId: string; scanId: number | null };
const repo = new VulnerabilitiesRepository();

beforeAll(async () => {
  ({ database, drop } = await freshDatabase());
  const [acme] = await database.db
    .select({ id: tenants.id })
    .from(tenants)
    .where(eq(tenants.domain, 'acme-securite.fr'));
  tenantId = acme!.id as TenantId;
  await generateVulnerabilities(database.db, { tenant: tenantId, count: COUNT, assets: 200 });
  // Some findings resolved, as in a tenant's life: every cell holds rows.
  await database.db.execute(sql`update vulnerabilities set is_resolved = true, state = 'verified' where id % 3 = 0`);
  await database.db.execute(sql`vacuum analyze vulnerabilities`);
  const [row] = await database.db
    .select({ assetId: vulnerabilities.assetId, cveId: vulnerabilities.cveId, scanId: vulnerabilities.scanId })
    .from(vulnerabilities)
    .where(and(eq(vulnerabilities.tenantId, tenantId), sql`${vulnerabilities.cveId} is not null`))
    .limit(1);
  sample = { assetId: row!.assetId!, cveId: row!.cveId!, scanId: row!.scanId };
}, 180_000);

afterAll(async () => drop?.());

/**
 * Each filter set, and the index its pages walk: the ordering's cell index (undefined), or the filter's own; a text
 * may match few rows or many, so its walk is the planner's choice among the indexes (null).
 */
const FILTERS: [string, () => VulnerabilityFilters, string | null | undefined][] = [
  ['no filter', () => ({}), undefined],
  ['severity=critical,high', () => ({ severities: ['critical', 'high'] }), undefined],
  ['severity=low', () => ({ severities: ['low'] }), undefined],
  ['is_resolved=false', () => ({ isResolved: false }), undefined],
  ['kev=true', () => ({ kev: true }), undefined],
  ['critical, open, KEV', () => ({ severities: ['critical'], isResolved: false, kev: true }), undefined],
  ['asset', () => ({ assetId: sample.assetId }), 'vulnerabilities_tenant_asset_idx'],
  ['cve', () => ({ cveId: sample.cveId }), 'vulnerabilities_tenant_cve_idx'],
  ['text', () => ({ text: 'openssl' }), null],
  // Migration 0029: the decision is a cell column, so its filter walks exactly its cells.
  ['ssvc=act', () => ({ ssvc: ['act'] }), undefined],
  ['ssvc=track_star,attend, open', () => ({ ssvc: ['track_star', 'attend'], isResolved: false }), undefined],
  ['ssvc=track, critical', () => ({ ssvc: ['track'], severities: ['critical'] }), undefined],
  ['ssvc=act, KEV', () => ({ ssvc: ['act'], kev: true }), undefined],
];

/** The cell index (migrations 0021 and 0029) an ordering walks. */
function cellIndex(o: VulnerabilityOrdering): string {
  const name = {
    severity: 'id',
    ssvc_decision: 'id',
    created_at: 'created',
    updated_at: 'updated',
    cvss_score: 'cvss',
    cve_id: 'cve',
  }[o.field as string];
  const nullable = o.field === 'cvss_score' || o.field === 'cve_id';
  return `vulnerabilities_cell_${name ?? o.field}${nullable && o.desc ? '_desc' : ''}_idx`;
}
const ORDERINGS: VulnerabilityOrdering[] = VULNERABILITY_ORDERINGS.flatMap((field) => [
  { field, desc: false },
  { field, desc: true },
]);

const inTenant = <T>(fn: (tx: TenantDb) => Promise<T>) => withTenant(database.db, tenantId, fn);

/** The page as a plain ORDER BY … LIMIT … OFFSET over the same filters (what the cells must reproduce). */
async function plainPage(tx: TenantDb, filters: VulnerabilityFilters, o: VulnerabilityOrdering, offset: number) {
  const prepared = await repo.prepare(tx, filters);
  const column = {
    created_at: vulnerabilities.createdAt,
    updated_at: vulnerabilities.updatedAt,
    cvss_score: vulnerabilities.cvssScore,
    cve_id: vulnerabilities.cveId,
    title: vulnerabilities.title,
    last_seen: vulnerabilities.lastSeen,
    // Resolved findings (no decision, 0) last both ways.
    ssvc_decision: sql`nullif(${vulnerabilities.ssvcDecision}, 0)`,
    severity: severityRank(vulnerabilities.severity),
  }[o.field];
  const key: SQL = o.desc ? sql`${column} desc nulls last` : sql`${column} asc nulls last`;
  const rows = await tx
    .select({ id: vulnerabilities.id })
    .from(vulnerabilities)
    .where(and(...repo.conditions(prepared)))
    .orderBy(key, o.desc ? desc(vulnerabilities.id) : asc(vulnerabilities.id))
    .limit(25)
    .offset(offset);
  return rows.map((r) => r.id);
}

describe('the findings list: cell-by-cell pages', () => {
  it.each(FILTERS)('%s: every ordering, first and third page, equals a plain ORDER BY', async (_name, filters) => {
    for (const ordering of ORDERINGS) {
      for (const offset of [0, 50]) {
        await inTenant(async (tx) => {
          const prepared = await repo.prepare(tx, filters());
          const rows = await repo.rowsQuery(tx, prepared, ordering, 25, offset);
          const expected = await plainPage(tx, filters(), ordering, offset);
          expect(
            rows.map((r) => r.id),
            `${ordering.desc ? '-' : ''}${ordering.field} offset ${offset}`,
          ).toEqual(expected);
        });
      }
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const child of plan.Plans ?? []) yield* nodes(child);
}

describe.skipIf(!onPostgres)(`the findings list's plans on PostgreSQL (${COUNT} findings)`, () => {
  it.each(FILTERS)('%s: every ordering walks its index, none scans the table', async (_name, filters, index) => {
    for (const ordering of ORDERINGS) {
      await inTenant(async (tx) => {
        const prepared = await repo.prepare(tx, filters());
        const query = repo.rowsQuery(tx, prepared, ordering, 25, 25).toSQL();
        const explained = await tx.execute(sql.raw(`explain (format json) ${inline(query.sql, query.params)}`));
        const plan = rowsOf<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(explained)[0]!['QUERY PLAN'][0]!.Plan;
        const findings = [...nodes(plan)].filter((n) => n['Relation Name'] === 'vulnerabilities');
        const what = `${ordering.desc ? '-' : ''}${ordering.field}`;
        expect(findings.length, what).toBeGreaterThan(0);
        for (const n of findings) expect(n['Node Type'], `${what}: ${JSON.stringify(n)}`).not.toMatch(/Seq Scan/);
        // The page's rows are then read by primary key.
        const walked = findings.map((n) => n['Index Name']).filter((name) => name !== 'vulnerabilities_pkey');
        if (index !== null) expect(walked, what).toEqual([index ?? cellIndex(ordering)]);
        else expect(walked.length, what).toBe(1);
      });
    }
  });
});

/** The statement with its parameters written in (EXPLAIN takes no parameters). */
function inline(text: string, params: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_m, n: string) => {
    const value = params[Number(n) - 1];
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return `'${String(value).replace(/'/g, "''")}'`;
  });
}
