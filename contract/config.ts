/**
 * The server configuration's runtime keys (docs/api-admin.md "Configuration"): shown by GET /api/admin/config/,
 * set only by environment variables at start; the console lists them by name and shows any other key as it comes.
 */
export const RUNTIME_CONFIG_KEYS = [
  'version',
  'database',
  'data_dir',
  'document_storage',
  'mail',
  'notify_email',
  'job_workers',
  'cve_sources',
  'stdout_log_level',
  'trust_proxy',
  'secrets',
  'backups_dir',
] as const;
