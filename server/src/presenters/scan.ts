import { SCAN_STATUSES, SCANNERS } from '../db/schema.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import type { ScanRow } from '../repositories/scans.ts';
import { severityCounts } from '../../../contract/severity.ts';
import { SeverityCountsSchema } from './vulnerability.ts';

const DateTime = Type.String({ format: 'date-time' });
const Count = Type.Integer({ minimum: 0 });

/** The counts of a scan's last run. */
export const ScanSummarySchema = Type.Object({
  findings: Count,
  created: Count,
  updated: Count,
  assets_created: Count,
  by_severity: SeverityCountsSchema,
});
type ScanSummary = Static<typeof ScanSummarySchema>;

/** Scan on the wire (docs/api-vulnerabilities.md): the reply schema and the presenter list the same fields. */
export const ScanSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    scanner: Choice(SCANNERS),
    target: Type.String(),
    asset_id: Nullable(Type.Integer()),
    status: Choice(SCAN_STATUSES),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    task_id: Nullable(Type.String({ description: 'Tâche de traitement du rapport (/api/celery/tasks/{id}/)' })),
    report_format: Nullable(Type.String()),
    report_size: Nullable(Type.Integer({ description: 'Octets' })),
    summary: Nullable(ScanSummarySchema),
    error: Nullable(Type.String()),
    created_by: Nullable(Type.Integer()),
    started_at: Nullable(DateTime),
    completed_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { title: 'Scan' },
);
export type Scan = Static<typeof ScanSchema>;

/** Scan (docs/api-vulnerabilities.md): exactly these fields leave the server; the stored file name never does. */
export function presentScan(scan: ScanRow): Scan {
  const summary = scan.summary as Partial<ScanSummary>;
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
            created: summary.created!,
            updated: summary.updated!,
            assets_created: summary.assets_created!,
            by_severity: severityCounts(summary.by_severity),
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
