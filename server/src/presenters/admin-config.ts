import { backupDirOf, type RuntimeConfig, type StoredAdminConfig } from '../services/admin-config.ts';

/** GET /api/admin/config/ (docs/api-admin.md "Configuration"): the runtime view, then the editable keys. */
export function presentConfiguration(runtime: RuntimeConfig, stored: StoredAdminConfig, dataDir: string) {
  return {
    ...runtime,
    backups_dir: backupDirOf(stored.values, dataDir),
    editable: {
      backup_location: stored.values.backup_location,
      backup_retention_count: stored.values.backup_retention_count,
    },
    updated_at: stored.updatedAt?.toISOString() ?? null,
    updated_by: stored.updatedBy,
  };
}
