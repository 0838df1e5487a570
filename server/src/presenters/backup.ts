import type { BackupRow } from '../repositories/backups.ts';
import type { RestoreSummary } from '../services/backups.ts';

/** A backup of GET /api/admin/backups/ (docs/api-admin.md "Backups"): exactly these fields leave the server. */
export function presentBackup(row: BackupRow) {
  return {
    id: row.id,
    filename: row.filename,
    engine: row.engine,
    status: row.status,
    size: row.size,
    sha256: row.sha256,
    note: row.note,
    error: row.error,
    created_by: row.createdByUsername,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

export type BackupOut = ReturnType<typeof presentBackup>;

/** The answer of a restore. */
export function presentRestore(summary: RestoreSummary) {
  return {
    detail: 'Sauvegarde restaurée.',
    backup: presentBackup(summary.backup),
    backup_created_at: summary.backupCreatedAt,
    tables: summary.tables,
    rows: summary.rows,
    documents: summary.documents,
    missing_documents: summary.missingDocuments,
    duration_ms: summary.durationMs,
  };
}
