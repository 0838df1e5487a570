import { pgArray } from '../db/arrays.ts';
import path from 'node:path';
import { and, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import {
  assets,
  cves,
  scans,
  vulnerabilities,
  type FindingSeverity,
  type FindingState,
  type SeveritySource,
} from '../db/schema.ts';
import { severityCounts, type CvssSource } from '../../../contract/severity.ts';
import { FindingEventsRepository } from '../repositories/finding-events.ts';
import { bestCvssOf } from '../domain/cve-records.ts';
import { withTenant, type TenantDb, type TenantId } from '../db/tenant-scope.ts';
import {
  parseReportFile,
  REPORT_FORMATS,
  ReportError,
  type Finding,
  type FormatChoice,
} from '../scan-reports/index.ts';
import { notifierOf } from './notifier.ts';

/**
 * Scanner reports live in `${filesDir}/reports/<uuid>.<ext>` (json or xml, `.gz` added when received compressed);
 * the scan row keeps only the file name.
 */
export function reportsDir(filesDir: string): string {
  return path.join(filesDir, 'reports');
}

/** A stored report's path, refusing anything but a plain file name (the column never holds a client path). */
export function reportPath(filesDir: string, reportFile: string): string {
  if (!/^[\w-]+\.(json|xml)(\.gz)?$/.test(reportFile)) throw new Error(`invalid report file name: ${reportFile}`);
  return path.join(reportsDir(filesDir), reportFile);
}

export interface ScanSummary {
  findings: number;
  created: number;
  updated: number;
  assets_created: number;
  by_severity: Record<FindingSeverity, number>;
  /** Re-scan reconciliation (issue 21): findings seen again, reopened, and no longer reported (now « corrigée »). */
  still_present: number;
  reopened: number;
  fixed: number;
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
/**
 * Findings per transaction. PGlite has one connection: a batch of 50 holds it about 30 ms, so another tenant's
 * requests wait little (npm run bench: p99 under 200 ms during a 40,000-finding import, over 300 ms at 100). On
 * PostgreSQL other requests have their own connections, and larger batches make fewer round trips.
 */
export function findingsBatchOf(database: Pick<Database, 'kind'>): number {
  return database.kind === 'pglite' ? 50 : 500;
}
const FAILED_MESSAGE = 'Le traitement du rapport a échoué.';

interface CveFacts {
  severity: FindingSeverity;
  source: CvssSource | null;
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
        cvssSource: cves.cvssSource,
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
      facts.set(r.cveId, {
        severity: r.severity,
        source: r.cvssSource,
        ...bestCvssOf(r),
        kev: r.kev,
        cweIds: r.cweIds,
      });
    }
  }
  return facts;
}

/** A short transaction of the tenant: the import applies its findings in many of them. */
export type TenantRun = <T>(fn: (tx: TenantDb) => Promise<T>) => Promise<T>;

/**
 * The columns a re-import may change (first_seen and created_at stay): the report's facts, and the state when the
 * reconciliation reopens or closes the finding. An analyst's own decisions (false positive, accepted risk, out of
 * scope, in progress) are never changed by a scan.
 */
const OVERWRITTEN = [
  'state',
  'isResolved',
  'resolvedAt',
  'resolvedBy',
  'stateChangedAt',
  'scanId',
  'cveId',
  'title',
  'description',
  'severity',
  'severitySource',
  'ratedSeverity',
  'ratedSource',
  'cvssScore',
  'cvssVector',
  'kev',
  'cweIds',
  'port',
  'protocol',
  'service',
  'packageName',
  'installedVersion',
  'fixedVersion',
  'solution',
  'source',
  'lastSeen',
  'updatedAt',
] as const;
type Overwritten = Pick<typeof vulnerabilities.$inferSelect, (typeof OVERWRITTEN)[number]>;
const overwrittenColumns = Object.fromEntries(OVERWRITTEN.map((c) => [c, vulnerabilities[c]])) as {
  [K in (typeof OVERWRITTEN)[number]]: (typeof vulnerabilities)[K];
};

/** What an import changed, to put back when it is cancelled or fails half-way. */
export interface ImportJournal {
  createdAssets: number[];
  createdFindings: number[];
  /** The findings it updated, as they were before. */
  previous: ({ id: number } & Overwritten)[];
  /** The critical findings it created (the notification names them). */
  createdCritical: { id: number; title: string }[];
  /** The state moves of the reconciliation, for the findings' history (written when the import completes). */
  moves: { id: number; from: FindingState; to: FindingState }[];
}

/** What a scan's sighting does to a finding that was closed as fixed: it is back (a regression). */
const REOPENED_BY_SCAN: readonly FindingState[] = ['fixed', 'verified'];
/** The states a scan may close: nobody decided anything else about them. */
const CLOSED_BY_SCAN: readonly FindingState[] = ['new', 'confirmed', 'in_progress'];

/**
 * The lifecycle state a CycloneDX VEX analysis gives a new finding: the vendor's statement that the product is not
 * affected, or that the finding is a false positive or resolved. Other states (in_triage, exploitable…) leave it new.
 */
function vexState(vex: string | undefined): { state: FindingState; reason: string } | undefined {
  if (vex === 'not_affected' || vex === 'false_positive') {
    return { state: 'false_positive', reason: `Analyse VEX CycloneDX : ${vex}.` };
  }
  if (vex === 'resolved' || vex === 'resolved_with_pedigree') return { state: 'fixed', reason: '' };
  return undefined;
}

/**
 * Writes a report's findings into the tenant: assets upserted by name (missing ones created), findings upserted by
 * (asset, finding_key) so a re-import updates instead of duplicating, CVE facts copied from the store when known.
 * Each batch is a short transaction of its own (`run`), with a pause between them, so other requests are served
 * meanwhile (PGlite has one connection; issue 17); `check` runs at the start of each batch and stops the import by
 * throwing. What was written is recorded in `journal`, for undoImport().
 */
export async function applyFindings(
  run: TenantRun,
  input: {
    tenantId: string;
    scanId: number | null;
    source: string;
    findings: Finding[];
    /** Every finding goes to this asset instead of the hosts the report names. */
    assetId?: number | null | undefined;
    signal?: AbortSignal | undefined;
    check?: (tx: TenantDb) => Promise<void>;
    /** Findings per transaction (findingsBatchOf). */
    batchSize: number;
  },
  journal: ImportJournal,
): Promise<ScanSummary> {
  const { tenantId, signal, batchSize } = input;
  const batch = async <T>(fn: (tx: TenantDb) => Promise<T>): Promise<T> => {
    // Lets the requests that arrived meanwhile take the database first.
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw new Cancelled();
    return run(async (tx) => {
      await input.check?.(tx);
      return fn(tx);
    });
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
      await batch(async (tx) => {
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
        journal.createdAssets.push(...inserted.map((a) => a.id));
        const rows = await tx
          .select({ id: assets.id, name: assets.name })
          .from(assets)
          .where(and(eq(assets.tenantId, tenantId), inArray(assets.name, chunk)));
        for (const r of rows) assetIds.set(r.name, r.id);
      });
    }
  }

  const cveIds = [...new Set(input.findings.flatMap((f) => (f.cve_id ? [f.cve_id] : [])))];
  const facts = new Map<string, CveFacts>();
  for (let i = 0; i < cveIds.length; i += BATCH) {
    const known = await batch((tx) => knownCves(tx, cveIds.slice(i, i + BATCH)));
    for (const [id, f] of known) facts.set(id, f);
  }

  // With a forced asset two hosts' findings may share a key: the unique key allows one row per (asset, key).
  const rows = new Map<string, typeof vulnerabilities.$inferInsert>();
  const now = new Date();
  for (const f of input.findings) {
    const assetId = assetIds.get(f.asset.name)!;
    const known = f.cve_id ? facts.get(f.cve_id) : undefined;
    const key = `${assetId}\u0000${f.finding_key}`;
    if (rows.has(key)) continue;
    const vex = vexState(f.vex_state);
    // A scored CVE record rates the finding (and says who scored it); an unscored one says nothing: the scanner's own
    // rating stays, « Non évaluée » when it gave none either.
    const rated = known && known.severity !== 'unrated';
    const severitySource: SeveritySource = rated ? (known.source ?? 'cna') : 'scanner';
    rows.set(key, {
      ...(vex
        ? {
            state: vex.state,
            isResolved: true,
            resolvedAt: now,
            stateChangedAt: now,
            stateReason: vex.reason || null,
          }
        : {}),
      tenantId,
      assetId,
      scanId: input.scanId,
      cveId: f.cve_id ?? null,
      findingKey: f.finding_key,
      title: f.title.slice(0, 1000),
      description: f.description,
      severity: rated ? known.severity : f.severity,
      severitySource,
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
    by_severity: severityCounts(),
    still_present: 0,
    reopened: 0,
    fixed: 0,
  };
  const reopen = `vulnerabilities.state in (${REOPENED_BY_SCAN.map((s) => `'${s}'`).join(', ')})`;
  const unlessReopened = (column: string, reopened: string) =>
    sql.raw(`case when ${reopen} then ${reopened} else vulnerabilities.${column} end`);
  const values = [...rows.values()];
  for (const v of values) summary.by_severity[v.severity!] += 1;
  const excluded = (column: string) => sql.raw(`excluded.${column}`);
  // An analyst's rating holds (one typed in unrated was rated by nobody: the report rates it).
  const analyst = sql.raw(
    `(vulnerabilities.rated_source is not null or (vulnerabilities.severity_source = 'analyst' and vulnerabilities.severity <> 'unrated'))`,
  );
  const byAnalyst = (column: string, otherwise: SQL) =>
    sql`case when ${analyst} then ${sql.raw(`vulnerabilities.${column}`)} else ${otherwise} end`;
  for (let i = 0; i < values.length; i += batchSize) {
    const chunk = values.slice(i, i + batchSize);
    await batch(async (tx) => {
      // The rows this batch will update, as they are: put back if the import does not complete.
      const before = await tx
        .select({ id: vulnerabilities.id, ...overwrittenColumns })
        .from(vulnerabilities)
        .where(
          and(
            eq(vulnerabilities.tenantId, tenantId),
            sql`(${vulnerabilities.assetId}, ${vulnerabilities.findingKey}) in (select * from unnest(${pgArray(chunk.map((v) => v.assetId))}::bigint[], ${pgArray(chunk.map((v) => v.findingKey))}::text[]))`,
          ),
        );
      const written = await tx
        .insert(vulnerabilities)
        .values(chunk)
        .onConflictDoUpdate({
          target: [vulnerabilities.tenantId, vulnerabilities.assetId, vulnerabilities.findingKey],
          set: {
            scanId: sql`${excluded('scan_id')}`,
            cveId: sql`${excluded('cve_id')}`,
            title: sql`${excluded('title')}`,
            description: sql`${excluded('description')}`,
            // An analyst's override stands: the report's rating goes under it (rated_*), restored when withdrawn.
            severity: byAnalyst('severity', excluded('severity')),
            severitySource: byAnalyst('severity_source', excluded('severity_source')),
            ratedSeverity: sql`case when ${analyst} then ${excluded('severity')} end`,
            ratedSource: sql`case when ${analyst} then ${excluded('severity_source')} end`,
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
            // Seen again after it was fixed: reopened, to confirm.
            state: unlessReopened('state', "'confirmed'"),
            isResolved: unlessReopened('is_resolved', 'false'),
            resolvedAt: unlessReopened('resolved_at', 'null'),
            resolvedBy: unlessReopened('resolved_by', 'null'),
            stateChangedAt: unlessReopened('state_changed_at', 'now()'),
          },
        })
        // xmax is 0 for a freshly inserted row and set for one the conflict clause updated.
        .returning({
          id: vulnerabilities.id,
          inserted: sql<boolean>`(xmax = 0)`,
          severity: vulnerabilities.severity,
          title: vulnerabilities.title,
        });
      journal.previous.push(...before);
      const stateBefore = new Map(before.map((b) => [b.id, b.state]));
      for (const w of written) {
        if (!w.inserted) {
          summary.updated += 1;
          const was = stateBefore.get(w.id);
          if (was && REOPENED_BY_SCAN.includes(was)) {
            summary.reopened += 1;
            journal.moves.push({ id: w.id, from: was, to: 'confirmed' });
          } else summary.still_present += 1;
          continue;
        }
        summary.created += 1;
        journal.createdFindings.push(w.id);
        if (w.severity === 'critical') journal.createdCritical.push({ id: w.id, title: w.title });
      }
    });
  }
  // What the same scanner no longer reports on the targets it just scanned is fixed, to verify: the open findings of
  // those assets from this source that this import did not see (their last_seen is older than this import's).
  const targets = [...new Set(assetIds.values())];
  for (let i = 0; i < targets.length; i += BATCH) {
    const chunk = targets.slice(i, i + BATCH);
    await batch(async (tx) => {
      const gone = await tx
        .select({ id: vulnerabilities.id, ...overwrittenColumns })
        .from(vulnerabilities)
        .where(
          and(
            eq(vulnerabilities.tenantId, tenantId),
            inArray(vulnerabilities.assetId, chunk),
            eq(vulnerabilities.source, input.source),
            inArray(vulnerabilities.state, [...CLOSED_BY_SCAN]),
            sql`${vulnerabilities.lastSeen} < ${now.toISOString()}::timestamptz`,
          ),
        )
        // By id: the history lines come in the findings' order, and the rows are locked in one order whatever index
        // the planner walks.
        .orderBy(vulnerabilities.id)
        .for('update');
      if (gone.length === 0) return;
      journal.previous.push(...gone);
      for (let j = 0; j < gone.length; j += batchSize) {
        const ids = gone.slice(j, j + batchSize).map((g) => g.id);
        await tx
          .update(vulnerabilities)
          .set({
            state: 'fixed',
            isResolved: true,
            resolvedAt: now,
            resolvedBy: null,
            stateChangedAt: now,
            updatedAt: sql`now()`,
          })
          .where(inArray(vulnerabilities.id, ids));
      }
      summary.fixed += gone.length;
      journal.moves.push(...gone.map((g) => ({ id: g.id, from: g.state, to: 'fixed' as const })));
    });
  }
  if (signal?.aborted) throw new Cancelled();
  return summary;
}

/** The history lines of an import's reconciliation, written with its completion (nothing is written if it is undone). */
export async function recordMoves(
  tx: TenantDb,
  journal: ImportJournal,
  scan: { id: number; name: string },
): Promise<void> {
  const scanName = scan.name;
  const events = new FindingEventsRepository();
  for (let i = 0; i < journal.moves.length; i += BATCH) {
    await events.add(
      tx,
      journal.moves.slice(i, i + BATCH).map((m) => ({
        vulnerabilityId: m.id,
        userId: null,
        scanId: scan.id,
        kind: 'state' as const,
        fromValue: m.from,
        toValue: m.to,
        comment:
          m.to === 'fixed'
            ? `Absente du scan « ${scanName} » : corrigée, à vérifier.`
            : `Détectée de nouveau par le scan « ${scanName} ».`,
      })),
    );
  }
}

/** Puts back what an import that did not complete had written, in short transactions too. */
export async function undoImport(run: TenantRun, journal: ImportJournal, batchSize: number): Promise<void> {
  const yieldFirst = () => new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < journal.createdFindings.length; i += batchSize) {
    const ids = journal.createdFindings.slice(i, i + batchSize);
    await yieldFirst();
    await run((tx) => tx.delete(vulnerabilities).where(inArray(vulnerabilities.id, ids)));
  }
  for (let i = 0; i < journal.previous.length; i += batchSize) {
    const rows = journal.previous.slice(i, i + batchSize);
    await yieldFirst();
    await run(async (tx) => {
      for (const { id, ...old } of rows) await tx.update(vulnerabilities).set(old).where(eq(vulnerabilities.id, id));
    });
  }
  if (journal.createdAssets.length > 0) {
    // Only assets that nothing else came to use meanwhile.
    await run((tx) =>
      tx
        .delete(assets)
        .where(
          and(
            inArray(assets.id, journal.createdAssets),
            sql`not exists (select 1 from ${vulnerabilities} where ${vulnerabilities.assetId} = ${assets.id})`,
          ),
        ),
    );
  }
  journal.createdFindings = [];
  journal.previous = [];
  journal.createdAssets = [];
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

/** The reason a scan whose processing was cut short by the death of its process is FAILED. */
export const INTERRUPTED_SCAN_MESSAGE =
  'Traitement interrompu : le serveur s’est arrêté pendant le traitement du rapport. Relancez le scan pour le reprendre.';

/**
 * The scan a dead process was processing (its task run `taskId`): FAILED with a French reason, if it still waits
 * for that run (RUNNING under that job, or under none yet). Answers whether it changed.
 */
export async function failInterruptedScan(
  database: Database,
  opts: { tenantId: string; scanId: number; taskId: string },
): Promise<boolean> {
  const rows = await withTenant(database.db, opts.tenantId as TenantId, (tx) =>
    tx
      .update(scans)
      .set({ status: 'FAILED', error: INTERRUPTED_SCAN_MESSAGE, completedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(scans.id, opts.scanId),
          inArray(scans.status, ['PENDING', 'RUNNING']),
          or(eq(scans.jobId, opts.taskId), isNull(scans.jobId)),
        ),
      )
      .returning({ id: scans.id }),
  );
  return rows.length > 0;
}

/**
 * Processes a scan's stored report: RUNNING with progress, parse, apply the findings in short transactions (a cancel
 * or a failure puts back what was written: no partial state), COMPLETED with its summary, or FAILED with a French
 * error, or CANCELLED when the signal aborts or the scan is cancelled meanwhile.
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

  const journal: ImportJournal = {
    createdAssets: [],
    createdFindings: [],
    previous: [],
    createdCritical: [],
    moves: [],
  };
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
    const run: TenantRun = (fn) => withTenant(database.db, tenantId, fn, database.statementTimeouts.import);
    // A cancel that lands while the findings are written is seen by the next batch, which stops the import.
    const stillRunning = async (tx: TenantDb) => {
      const [current] = await tx.select({ status: scans.status }).from(scans).where(eq(scans.id, scanId));
      if (current?.status !== 'RUNNING') throw new Cancelled();
    };
    const [target] = await run((tx) => tx.select({ assetId: scans.assetId }).from(scans).where(eq(scans.id, scanId)));
    try {
      const summary = await applyFindings(
        run,
        {
          tenantId,
          scanId,
          source: parsed.format,
          findings: parsed.findings,
          assetId: target?.assetId,
          signal,
          check: stillRunning,
          batchSize: findingsBatchOf(database),
        },
        journal,
      );
      const notices = await run(async (tx) => {
        // Locked: a cancel arriving now waits, then finds the scan finished.
        const [current] = await tx
          .select({ status: scans.status })
          .from(scans)
          .where(eq(scans.id, scanId))
          .for('update');
        if (current?.status !== 'RUNNING') throw new Cancelled();
        await tx
          .update(scans)
          .set({
            status: 'COMPLETED',
            progress: 100,
            summary: { ...summary },
            error: null,
            completedAt: new Date(),
            updatedAt: new Date(),
          })
          .where(eq(scans.id, scanId));
        await recordMoves(tx, journal, scan);
        return notifier.criticalFindings(
          tx,
          { id: scanId, name: scan.name, launchedBy: opts.requestedBy ?? scan.createdBy },
          journal.createdCritical,
        );
      });
      notifier.publish(notices);
      await progress(100);
      return { status: 'COMPLETED', summary };
    } catch (err) {
      // Nothing of an import that did not complete stays (a crash meanwhile is recovered as a failed scan).
      await undoImport(run, journal, findingsBatchOf(database));
      throw err;
    }
  } catch (err) {
    if (err instanceof Cancelled || (signal?.aborted && err === signal.reason)) return cancel();
    const error = err instanceof ReportError ? err.message : FAILED_MESSAGE;
    await setScan(database, tenantId, scanId, { status: 'FAILED', error, completedAt: new Date() });
    if (err instanceof ReportError) return { status: 'FAILED', error };
    throw err;
  }
}
