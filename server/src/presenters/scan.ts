import type { ScanRow } from '../repositories/scans.ts';

/** Scan (docs/api-vulnerabilities.md): exactly these fields leave the server; the stored file name never does. */
export function presentScan(scan: ScanRow) {
  const summary = scan.summary;
  return {
    id: scan.id,
    name: scan.name,
    scanner: scan.scanner,
    target: scan.target,
    asset_id: scan.assetId,
    status: scan.status,
    progress: scan.progress,
    task_id: scan.jobId,
    report_format: scan.reportFormat,
    report_size: scan.reportSize,
    // null until a run has produced counts.
    summary:
      typeof summary.findings === 'number'
        ? {
            findings: summary.findings,
            created: summary.created,
            updated: summary.updated,
            assets_created: summary.assets_created,
            by_severity: summary.by_severity,
          }
        : null,
    error: scan.error,
    created_by: scan.createdBy,
    started_at: scan.startedAt?.toISOString() ?? null,
    completed_at: scan.completedAt?.toISOString() ?? null,
    created_at: scan.createdAt.toISOString(),
    updated_at: scan.updatedAt.toISOString(),
  };
}

export type Scan = ReturnType<typeof presentScan>;
