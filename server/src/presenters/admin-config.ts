import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import { backupDirOf, type RuntimeConfig, type StoredAdminConfig } from '../services/admin-config.ts';

const SOURCES = ['environment', 'database'] as const;

/** GET /api/admin/config/ (docs/api-admin.md "Configuration"): the runtime view, then the editable keys. */
export const ConfigurationSchema = Type.Object(
  {
    version: Type.String(),
    database: Type.Object({ kind: Type.String() }),
    data_dir: Type.String(),
    document_storage: Type.Union([
      Type.Object({ kind: Type.Literal('s3'), bucket: Type.String(), region: Nullable(Type.String()) }),
      Type.Object({ kind: Type.Literal('disk'), path: Type.String() }),
    ]),
    mail: Type.Object({
      smtp_configured: Type.Boolean(),
      from: Nullable(Type.String()),
      public_url: Nullable(Type.String()),
    }),
    notify_email: Choice(['off', 'critical', 'all'] as const),
    job_workers: Type.Boolean(),
    cve_sources: Type.Array(Type.String()),
    stdout_log_level: Type.String(),
    trust_proxy: Type.Boolean(),
    secrets: Type.Object({ jwt_secret: Choice(SOURCES), encryption_key: Choice(SOURCES) }),
    backups_dir: Type.String(),
    editable: Type.Object({
      backup_location: Nullable(Type.String()),
      backup_retention_count: Type.Integer({ minimum: 1 }),
    }),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
    updated_by: Nullable(Type.String()),
  },
  { title: 'Configuration' },
);

export function presentConfiguration(
  runtime: RuntimeConfig,
  stored: StoredAdminConfig,
  dataDir: string,
): Static<typeof ConfigurationSchema> {
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
