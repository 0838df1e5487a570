import path from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { assets, cves, scans, SEVERITIES, vulnerabilities, type Severity } from '../db/schema.ts';
import { withTenant, type TenantDb, type TenantId } from '../db/tenant-scope.ts';
import {
  parseReportFile,
  REPORT_FORMATS,
  ReportError,
  type Finding,
  type FormatChoice,
} from '../scan-reports/index.ts';
import { notifierOf, type Created } from './notifier.ts';

/** Scanner reports live in `${filesDir}/reports/<uuid>.<ext>`; the scan row keeps only the file name. */
export function reportsDir(filesDir: string): string {
  return path.join(filesDir, 'reports');
}

/** A stored report's path, refusing anything but a plain file name (the column never holds a client path). */
export function reportPath(filesDir: string, reportFile: string): string {
  if (!/^[\w-]+\.(json|xml)$/.test(reportFile)) throw new Error(`invalid report file name: ${reportFile}`);
  return path.join(reportsDir(filesDir), reportFile);
}

export interface ScanSummary {
  findings: number;
  created: number;
  updated: number;
  assets_created: number;
  by_severity: Record<Severity, number>;
}

export interface ProcessOptions {
  tenantId: string;
  scanId: number;
  filesDir: string;
  signal?: AbortSignal | undefined;
  /** Progress of the run (0–100), e.g. the task's meta.progress. Never called inside the apply transaction. */
  progress?: ((percent: number) => Promise<void>) | undefined;
  /** Who launched this processing (told of the critical findings it creates); default the scan's creator. */
  requestedBy?: number | null | undefined;
}

export type ProcessOutcome =
  | { status: 'COMPLETED'; summary: ScanSummary }
  | { status: 'FAILED'; error: string }
  | { status: 'CANCELLED' }
  /** The scan was not waiting for processing (already finished, or deleted): nothing was done. */
  | { status: 'SKIPPED'; reason: string };

class Cancelled extends Error {}

const BATCH = 500;
const FAILED_MESSAGE = 'Le traitement du rapport a échoué.';

function emptyBySeverity(): Record<Severity, number> {
  return Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
}

interface CveFacts {
  severity: Severity;
  score: number | null;
  vector: string | null;
  kev: boolean;
  cweIds: string[];
}

async function knownCves(tx: TenantDb, ids: string[]): Promise<Map<string, CveFacts>> {
  const facts = new Map<string, CveFacts>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await tx
      .select({
        cveId: cves.cveId,
        severity: cves.severity,
        cvss4Score: cves.cvss4Score,
        cvss4Vector: cves.cvss4Vector,
        cvss3Score: cves.cvss3Score,
        cvss3Vector: cves.cvss3Vector,
        cvss2Score: cves.cvss2Score,
        cvss2Vector: cves.cvss2Vector,
        kev: cves.kev,
        cweIds: cves.cweIds,
      })
      .from(cves)
      .where(inArray(cves.cveId, ids.slice(i, i + BATCH)));
    for (const r of rows) {
      // Same order as the store's own severity: v4, else v3.x, else v2.
      const [score, vector] =
        r.cvss4Score !== null
          ? [r.cvss4Score, r.cvss4Vector]
          : r.cvss3Score !== null
            ? [r.cvss3Score, r.cvss3Vector]
            : [r.cvss2Score, r.cvss2Vector];
      facts.set(r.cveId, { severity: r.severity, score, vector, kev: r.kev, cweIds: r.cweIds });
    }
  }
  return facts;
}

/**
 * Writes a report's findings into the tenant: assets upserted by name (missing ones created), findings upserted by
 * (asset, finding_key) so a re-import updates instead of duplicating, CVE facts copied from the store when known.
 * Runs inside the caller's transaction.
 */
export async function applyFindings(
  tx: TenantDb,
  input: {
    tenantId: string;
    scanId: number | null;
    source: string;
    findings: Finding[];
    /** Every finding goes to this asset instead of the hosts the report names. */
    assetId?: number | null | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<ScanSummary> {
  const { tenantId, signal } = input;
  const checkSignal = () => {
    if (signal?.aborted) throw new Cancelled();
  };

  // Asset ids by report asset name.
  const assetIds = new Map<string, number>();
  let assetsCreated = 0;
  if (input.assetId) {
    for (const f of input.findings) assetIds.set(f.asset.name, input.assetId);
  } else {
    const wanted = new Map(input.findings.map((f) => [f.asset.name, f.asset]));
    const names = [...wanted.keys()];
    for (let i = 0; i < names.length; i += BATCH) {
      const chunk = names.slice(i, i + BATCH);
      const inserted = await tx
        .insert(assets)
        .values(
          chunk.map((name) => {
            const a = wanted.get(name)!;
            return {
              tenantId,
              name,
              assetType: a.asset_type,
              hostname: a.hostname ?? null,
              ipAddress: a.ip_address ?? null,
              operatingSystem: a.operating_system ?? null,
              description: 'Créé par l’import d’un rapport de scan.',
            };
          }),
        )
        .onConflictDoNothing({ target: [assets.tenantId, assets.name] })
        .returning({ id: assets.id, name: assets.name });
      assetsCreated += inserted.length;
      const rows = await tx
        .select({ id: assets.id, name: assets.name })
        .from(assets)
        .where(and(eq(assets.tenantId, tenantId), inArray(assets.name, chunk)));
      for (const r of rows) assetIds.set(r.name, r.id);
      checkSignal();
    }
  }

  const facts = await knownCves(tx, [...new Set(input.findings.flatMap((f) => (f.cve_id ? [f.cve_id] : [])))]);

  // With a forced asset two hosts' findings may share a key: the unique key allows one row per (asset, key).
  const rows = new Map<string, typeof vulnerabilities.$inferInsert>();
  const now = new Date();
  for (const f of input.findings) {
    const assetId = assetIds.get(f.asset.name)!;
    const known = f.cve_id ? facts.get(f.cve_id) : undefined;
    const key = `${assetId}\u0000${f.finding_key}`;
    if (rows.has(key)) continue;
    rows.set(key, {
      tenantId,
      assetId,
      scanId: input.scanId,
      cveId: f.cve_id ?? null,
      findingKey: f.finding_key,
      title: f.title.slice(0, 1000),
      description: f.description,
      // An unscored CVE record ('info') says nothing: the scanner's own rating stays.
      severity: known && known.severity !== 'info' ? known.severity : f.severity,
      cvssScore: known?.score ?? f.cvss_score ?? null,
      cvssVector: known && known.score !== null ? known.vector : (f.cvss_vector ?? null),
      kev: known?.kev ?? false,
      cweIds: known && known.cweIds.length > 0 ? known.cweIds : (f.cwe_ids ?? []),
      port: f.port ?? null,
      protocol: f.protocol ?? null,
      service: f.service ?? null,
      packageName: f.package_name ?? null,
      installedVersion: f.installed_version ?? null,
      fixedVersion: f.fixed_version ?? null,
      solution: f.solution,
      source: input.source,
      firstSeen: now,
      lastSeen: now,
    });
  }

  const summary: ScanSummary = {
    findings: rows.size,
    created: 0,
    updated: 0,
    assets_created: assetsCreated,
    by_severity: emptyBySeverity(),
  };
  const values = [...rows.values()];
  for (const v of values) summary.by_severity[v.severity!] += 1;
  for (let i = 0; i < values.length; i += BATCH) {
    checkSignal();
    const excluded = (column: string) => sql.raw(`excluded.${column}`);
    const written = await tx
      .insert(vulnerabilities)
      .values(values.slice(i, i + BATCH))
      .onConflictDoUpdate({
        target: [vulnerabilities.tenantId, vulnerabilities.assetId, vulnerabilities.findingKey],
        // first_seen, created_at and the resolution state are the analyst's history: kept.
        set: {
          scanId: sql`${excluded('scan_id')}`,
          cveId: sql`${excluded('cve_id')}`,
          title: sql`${excluded('title')}`,
          description: sql`${excluded('description')}`,
          severity: sql`${excluded('severity')}`,
          cvssScore: sql`${excluded('cvss_score')}`,
          cvssVector: sql`${excluded('cvss_vector')}`,
          kev: sql`${excluded('kev')}`,
          cweIds: sql`${excluded('cwe_ids')}`,
          port: sql`${excluded('port')}`,
          protocol: sql`${excluded('protocol')}`,
          service: sql`${excluded('service')}`,
          packageName: sql`${excluded('package_name')}`,
          installedVersion: sql`${excluded('installed_version')}`,
          fixedVersion: sql`${excluded('fixed_version')}`,
          solution: sql`${excluded('solution')}`,
          source: sql`${excluded('source')}`,
          lastSeen: sql`${excluded('last_seen')}`,
          updatedAt: sql`now()`,
        },
      })
      // xmax is 0 for a freshly inserted row and set for one the conflict clause updated.
      .returning({ inserted: sql<boolean>`(xmax = 0)` });
    for (const w of written) {
      if (w.inserted) summary.created += 1;
      else summary.updated += 1;
    }
  }
  checkSignal();
  return summary;
}

async function setScan(
  database: Database,
  tenantId: TenantId,
  scanId: number,
  values: Partial<typeof scans.$inferInsert>,
  onlyWhile: readonly (typeof scans.$inferSelect.status)[] = ['PENDING', 'RUNNING'],
): Promise<boolean> {
  const rows = await withTenant(database.db, tenantId, (tx) =>
    tx
      .update(scans)
      .set({ ...values, updatedAt: new Date() })
      .where(and(eq(scans.id, scanId), inArray(scans.status, [...onlyWhile])))
      .returning({ id: scans.id }),
  );
  return rows.length > 0;
}

/**
 * Processes a scan's stored report: RUNNING with progress, parse, apply the findings and complete the scan in one
 * transaction (a cancel or a failure leaves no partial state), COMPLETED with its summary, or FAILED with a French
 * error, or CANCELLED when the signal aborts.
 */
export async function processScanReport(database: Database, opts: ProcessOptions): Promise<ProcessOutcome> {
  const tenantId = opts.tenantId as TenantId;
  const { scanId, signal } = opts;
  const progress = opts.progress ?? (async () => {});

  const [scan] = await withTenant(database.db, tenantId, (tx) => tx.select().from(scans).where(eq(scans.id, scanId)));
  if (!scan) return { status: 'SKIPPED', reason: 'scan introuvable' };
  if (scan.status !== 'PENDING' && scan.status !== 'RUNNING') {
    return { status: 'SKIPPED', reason: `scan ${scan.status}` };
  }
  if (!scan.reportFile) {
    const error = 'Aucun rapport à traiter : importez le rapport du scanner.';
    await setScan(database, tenantId, scanId, { status: 'FAILED', error, completedAt: new Date() });
    return { status: 'FAILED', error };
  }

  const cancel = async (): Promise<ProcessOutcome> => {
    await setScan(database, tenantId, scanId, { status: 'CANCELLED', jobId: null, completedAt: new Date() });
    return { status: 'CANCELLED' };
  };

  try {
    if (signal?.aborted) throw new Cancelled();
    const started = await setScan(database, tenantId, scanId, {
      status: 'RUNNING',
      progress: 10,
      error: null,
      startedAt: scan.startedAt ?? new Date(),
    });
    if (!started) return { status: 'SKIPPED', reason: 'scan annulé' };
    await progress(10);

    const parsed = await parseReportFile(
      reportPath(opts.filesDir, scan.reportFile),
      // Seeded or legacy rows may carry another label: the content decides then.
      (REPORT_FORMATS as readonly string[]).includes(scan.reportFormat ?? '')
        ? (scan.reportFormat as FormatChoice)
        : 'auto',
      signal,
    );
    if (signal?.aborted) throw new Cancelled();
    await setScan(database, tenantId, scanId, { progress: 50 });
    await progress(50);

    const notifier = notifierOf(database);
    let notices: Created[] = [];
    const summary = await withTenant(database.db, tenantId, async (tx) => {
      // Lock the scan: a cancel that lands meanwhile waits, then finds it finished (or this rolls back).
      const [current] = await tx
        .select({ status: scans.status, assetId: scans.assetId })
        .from(scans)
        .where(eq(scans.id, scanId))
        .for('update');
      if (current?.status !== 'RUNNING') throw new Cancelled();
      const result = await applyFindings(tx, {
        tenantId,
        scanId,
        source: parsed.format,
        findings: parsed.findings,
        assetId: current.assetId,
        signal,
      });
      await tx
        .update(scans)
        .set({
          status: 'COMPLETED',
          progress: 100,
          summary: { ...result },
          error: null,
          completedAt: new Date(),
          updatedAt: new Date(),
        })
        .where(eq(scans.id, scanId));
      // Written with the findings, published once they are committed.
      notices = await notifier.criticalFindings(tx, {
        id: scanId,
        name: scan.name,
        launchedBy: opts.requestedBy ?? scan.createdBy,
      });
      return result;
    });
    notifier.publish(notices);
    await progress(100);
    return { status: 'COMPLETED', summary };
  } catch (err) {
    if (err instanceof Cancelled || (signal?.aborted && err === signal.reason)) return cancel();
    const error = err instanceof ReportError ? err.message : FAILED_MESSAGE;
    await setScan(database, tenantId, scanId, { status: 'FAILED', error, completedAt: new Date() });
    if (err instanceof ReportError) return { status: 'FAILED', error };
    throw err;
  }
}
