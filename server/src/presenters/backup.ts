import { BACKUP_STATUSES } from '../db/schema.ts';
import type { BackupRow } from '../repositories/backups.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import type { RestoreSummary } from '../services/backups.ts';

/** A backup of GET /api/admin/backups/ (docs/api-admin.md "Backups") on the wire. */
export const BackupSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    filename: Type.String(),
    engine: Type.String({ description: 'pglite ou postgres' }),
    status: Choice(BACKUP_STATUSES),
    size: Nullable(Type.Integer({ minimum: 0 })),
    sha256: Nullable(Type.String()),
    note: Type.String(),
    error: Nullable(Type.String()),
    created_by: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Backup' },
);
export type BackupOut = Static<typeof BackupSchema>;

/** Exactly these fields leave the server. */
export function presentBackup(row: BackupRow): BackupOut {
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

/** The answer of a restore. */
export const RestoreSchema = Type.Object(
  {
    detail: Type.String(),
    backup: BackupSchema,
    backup_created_at: Type.String(),
    tables: Type.Integer({ minimum: 0 }),
    rows: Type.Integer({ minimum: 0 }),
    documents: Type.Integer({ minimum: 0 }),
    missing_documents: Type.Array(Type.String()),
    duration_ms: Type.Number({ minimum: 0 }),
  },
  { title: 'BackupRestore' },
);

export function presentRestore(summary: RestoreSummary): Static<typeof RestoreSchema> {
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
