// Field lists and values of the API contract that several suites check: the server suites here, and the unit
// suites that check the client's sample data and screens against the same contract. Nothing to import: any suite
// may read this file.

/** An asset's own attributes, in the order the inventory and the model administration give them. */
export const ASSET_ATTRIBUTES = [
  'name',
  'asset_type',
  'hostname',
  'ip_address',
  'operating_system',
  'criticality',
  'internet_exposed',
  'owner',
  'description',
  'tags',
] as const;

/** A user as the user administration lists them, and the start of the signed-in profile. */
export const USER_FIELDS = [
  'id',
  'username',
  'email',
  'first_name',
  'last_name',
  'is_active',
  'date_joined',
  'last_login',
  'role',
  'is_staff',
  'is_superuser',
] as const;

/** spec §3 Project: the fields of a project in the list and on its page (the API adds `access`). */
export const PROJECT_SPEC_FIELDS = [
  'id',
  'name',
  'description',
  'status',
  'priority',
  'completion_percentage',
  'start_date',
  'deadline',
  'created_at',
  'updated_at',
  'assets',
  'vulnerabilities',
  'tasks',
  'team_members',
  'owner',
  'is_active',
] as const;

/** A project's team member as the API presents it. */
export const TEAM_MEMBER_FIELDS = ['id', 'name', 'email', 'role', 'is_owner', 'last_active'] as const;

/** spec §3 Background task: every key of a task run's `meta`, present from its launch on. */
export const TASK_META_KEYS = [
  'duration',
  'new_cves',
  'updated_cves',
  'error',
  'attempts',
  'start_time',
  'progress',
  'revoked_by',
  'reason',
] as const;

/** spec §3: the fields of the vulnerability dashboard summary (the API adds its counts and `generated_at`). */
export const VULNERABILITY_SUMMARY_SPEC_FIELDS = [
  'total_vulnerabilities',
  'severity_distribution',
  'recently_added',
  'top_affected_assets',
  'top_cwe_categories',
  'vulnerability_trends',
] as const;

/** spec §6: the user and group permissions of an administrator. */
export const ADMIN_PERMISSION_CODENAMES = [
  'add_user',
  'change_user',
  'delete_user',
  'view_user',
  'add_group',
  'change_group',
  'delete_group',
  'view_group',
] as const;

/** The system settings of a fresh install, as GET /api/system/settings/ answers them. */
export const SYSTEM_SETTINGS_DEFAULTS = {
  theme: 'light',
  notifications: true,
  api_timeout: 10,
  max_asset_scan_duration: 60,
  log_retention_days: 30,
  enable_two_factor_auth: false,
  debug_mode: false,
  maintenance_mode: false,
  app_name: 'Vigie',
  environment: 'development',
  max_scan_duration: 3600,
  default_scan_interval: 86400,
  notification_email: '',
  log_level: 'info',
  timezone: 'UTC',
  language: 'fr',
} as const;
