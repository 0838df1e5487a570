import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  customType,
  foreignKey,
} from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** Organisations. Every tenant-owned table carries tenant_id as the first column of its keys. */
export const tenants = pgTable('tenants', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  name: text('name').notNull(),
  domain: text('domain').notNull().unique(),
  subscriptionPlan: text('subscription_plan').notNull().default('Business'),
  status: text('status').notNull().default('active'),
  contactEmail: text('contact_email'),
  logoUrl: text('logo_url'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** Soft delete (issue 9): the tenant is closed to everyone, its data kept until purged. */
  deletedAt: timestamp('deleted_at', { withTimezone: true }),
  deletedBy: integer('deleted_by'),
});

/** Accounts are global (one person may belong to several tenants); access goes through memberships. */
export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  username: text('username').notNull().unique(),
  email: text('email').notNull().unique(),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  passwordHash: text('password_hash').notNull(),
  isActive: boolean('is_active').notNull().default(true),
  isStaff: boolean('is_staff').notNull().default(false),
  isSuperuser: boolean('is_superuser').notNull().default(false),
  defaultTenantId: uuid('default_tenant_id').references(() => tenants.id, { onDelete: 'set null' }),
  dateJoined: timestamp('date_joined', { withTimezone: true }).notNull().defaultNow(),
  lastLogin: timestamp('last_login', { withTimezone: true }),
  /** AES-256-GCM ciphertext of the TOTP secret (key from configuration), never the secret itself. */
  totpSecret: text('totp_secret'),
  totpEnabled: boolean('totp_enabled').notNull().default(false),
});

export const MEMBERSHIP_ROLES = ['admin', 'manager', 'user', 'readonly'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

export const memberships = pgTable(
  'memberships',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MembershipRole>().notNull().default('user'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/**
 * Refresh tokens, one row per issued token (jti). Tokens of one sign-in share a family; presenting a
 * used token again revokes the whole family (reuse detection). Platform table: never reachable by the
 * tenant-scoped database role.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    jti: uuid('jti').primaryKey(),
    familyId: uuid('family_id').notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('refresh_tokens_family_idx').on(t.familyId), index('refresh_tokens_user_idx').on(t.userId)],
);

/** Password reset tokens, stored as SHA-256 hashes; valid 1 h, single use. */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
});

/** Outgoing mail when no SMTP server is configured (and the record of what was sent when one is). */
export const mailOutbox = pgTable('mail_outbox', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  recipient: text('recipient').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  sentAt: timestamp('sent_at', { withTimezone: true }),
});

/**
 * System settings (§3), one row: only the values an administrator changed, the defaults live in code
 * (server/src/services/system-settings.ts). Platform table: never reachable by the tenant-scoped role.
 */
export const systemSettings = pgTable(
  'system_settings',
  {
    id: smallint('id').primaryKey().default(1),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: integer('updated_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [check('system_settings_singleton', sql`${t.id} = 1`)],
);

/** Operational configuration an administrator may change (issue 9, docs/api-admin.md "Configuration"). */
export const adminConfig = pgTable(
  'admin_config',
  {
    id: smallint('id').primaryKey().default(1),
    values: jsonb('values').$type<Record<string, unknown>>().notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: integer('updated_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [check('admin_config_singleton', sql`${t.id} = 1`)],
);

/** The server's structured log records, queryable by administrators, purged after log_retention_days. */
export const serverLogs = pgTable(
  'server_logs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    time: timestamp('time', { withTimezone: true }).notNull().defaultNow(),
    level: text('level').notNull(),
    message: text('message').notNull().default(''),
    requestId: text('request_id'),
    method: text('method'),
    url: text('url'),
    statusCode: integer('status_code'),
    responseTimeMs: doublePrecision('response_time_ms'),
    tenantId: uuid('tenant_id'),
    userId: integer('user_id'),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index('server_logs_time_idx').on(t.time), index('server_logs_level_time_idx').on(t.level, t.time)],
);

export const BACKUP_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED'] as const;
export type BackupStatus = (typeof BACKUP_STATUSES)[number];

/** A backup archive (database snapshot and documents) written to the data dir or a configured location. */
export const backups = pgTable('backups', {
  id: uuid('id').primaryKey(),
  filename: text('filename').notNull(),
  /** 'pglite' or 'postgres': a backup restores only onto the same kind. */
  engine: text('engine').notNull(),
  status: text('status').$type<BackupStatus>().notNull().default('RUNNING'),
  size: bigint('size', { mode: 'number' }),
  sha256: text('sha256'),
  note: text('note').notNull().default(''),
  error: text('error'),
  createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  completedAt: timestamp('completed_at', { withTimezone: true }),
});

export const AUDIT_SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type AuditSeverity = (typeof AUDIT_SEVERITIES)[number];

/**
 * The audit trail (§3 server audit event). tenant_id is null only for platform events that belong to
 * no tenant (a failed sign-in for an unknown account); those are visible to superusers alone.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    timestamp: timestamp('timestamp', { withTimezone: true }).notNull().defaultNow(),
    eventType: text('event_type').notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    username: text('username'),
    ipAddress: text('ip_address'),
    description: text('description').notNull().default(''),
    severity: text('severity').$type<AuditSeverity>().notNull().default('INFO'),
    source: text('source').notNull().default('server'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    /** The client's own id for a frontend event: a beacon re-sent after a crash is stored once. */
    clientEventId: text('client_event_id'),
  },
  (t) => [
    index('audit_events_tenant_time_idx').on(t.tenantId, t.timestamp),
    uniqueIndex('audit_events_client_event_idx').on(t.clientEventId),
  ],
);

/** Platform-wide security policies (one row); the administration issue adds its screens. */
export const securityPolicies = pgTable(
  'security_policies',
  {
    id: smallint('id').primaryKey().default(1),
    allowRegistration: boolean('allow_registration').notNull().default(true),
    passwordMinLength: integer('password_min_length').notNull().default(8),
    loginAttemptsPerMinute: integer('login_attempts_per_minute').notNull().default(10),
    // Issue 9: complexity, 2FA per role, session lifetime, lock-out after failed sign-ins.
    passwordRequireUppercase: boolean('password_require_uppercase').notNull().default(false),
    passwordRequireLowercase: boolean('password_require_lowercase').notNull().default(false),
    passwordRequireDigit: boolean('password_require_digit').notNull().default(false),
    passwordRequireSymbol: boolean('password_require_symbol').notNull().default(false),
    /** Membership roles ('admin', 'manager', 'user', 'readonly') and 'superuser'/'staff' that must use 2FA. */
    twoFactorRequiredRoles: text('two_factor_required_roles')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** How long a sign-in lasts (refresh token lifetime), in minutes. */
    sessionLifetimeMinutes: integer('session_lifetime_minutes').notNull().default(10_080),
    /** Failed sign-ins in a row before an account is locked, and for how long. */
    lockoutThreshold: integer('lockout_threshold').notNull().default(10),
    lockoutMinutes: integer('lockout_minutes').notNull().default(15),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('security_policies_singleton', sql`${t.id} = 1`)],
);

export const IDEMPOTENCY_STATES = ['in_progress', 'done'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * Idempotency-Key answers (offline writes replayed by the service worker), kept 24 h. Platform table,
 * not granted to vigie_app. The caller appears only as a SHA-256 of its credential and the request only
 * as a keyed hash: no token and no request body is ever stored, only the answer of a finished request.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** SHA-256 hex of the Authorization header, else of the access cookie, else of 'anonymous'. */
    scopeHash: text('scope_hash').notNull(),
    key: text('key').notNull(),
    method: text('method').notNull(),
    /** URL path without the query string. */
    path: text('path').notNull(),
    /** HMAC-SHA-256 (keyed by the caller's credential) of the full URL, X-Tenant-ID and the body. */
    requestHash: text('request_hash').notNull(),
    state: text('state').$type<IdempotencyState>().notNull().default('in_progress'),
    /** Which attempt holds an in_progress row, so a late attempt never finalizes another's claim. */
    attemptId: uuid('attempt_id').notNull(),
    statusCode: integer('status_code'),
    /** The answer as text, or null when it was not kept (too large or not JSON): replayed as JSON null. */
    responseBody: text('response_body'),
    contentType: text('content_type'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.scopeHash, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
    check('idempotency_keys_state', sql`${t.state} in ('in_progress', 'done')`),
  ],
);

// ---------------------------------------------------------------------------------------------------------------
// Vulnerability management (issue 6). The CVE store and the CWE list are public reference data shared by every
// tenant (platform tables, read-only for vigie_app); assets, vulnerabilities, scans and threats are tenant-owned.

/** CWE weaknesses (MITRE list): id like 'CWE-79'. */
export const cwes = pgTable('cwes', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
});

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface CveReference {
  url: string;
  source?: string;
  tags?: string[];
}

/** One row per CVE id: NVD / CVE 5 record, enriched by KEV and EPSS. Upserts keep the newest modified_at. */
export const cves = pgTable(
  'cves',
  {
    cveId: text('cve_id').primaryKey(),
    title: text('title').notNull().default(''),
    description: text('description').notNull().default(''),
    /** NVD vulnStatus or CVE 5 state (PUBLISHED, REJECTED, Modified, Analyzed…). */
    status: text('status'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    modifiedAt: timestamp('modified_at', { withTimezone: true }),
    cvss3Score: doublePrecision('cvss3_score'),
    cvss3Vector: text('cvss3_vector'),
    cvss3Severity: text('cvss3_severity'),
    cvss4Score: doublePrecision('cvss4_score'),
    cvss4Vector: text('cvss4_vector'),
    cvss4Severity: text('cvss4_severity'),
    cvss2Score: doublePrecision('cvss2_score'),
    cvss2Vector: text('cvss2_vector'),
    /** Best available severity (v4, else v3.x, else v2), lower case; 'info' when unscored. */
    severity: text('severity').$type<Severity>().notNull().default('info'),
    cweIds: text('cwe_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    references: jsonb('references').$type<CveReference[]>().notNull().default([]),
    kev: boolean('kev').notNull().default(false),
    kevDateAdded: date('kev_date_added'),
    kevDueDate: date('kev_due_date'),
    kevRequiredAction: text('kev_required_action'),
    kevVendor: text('kev_vendor'),
    kevProduct: text('kev_product'),
    kevName: text('kev_name'),
    kevKnownRansomware: text('kev_known_ransomware'),
    epssScore: doublePrecision('epss_score'),
    epssPercentile: doublePrecision('epss_percentile'),
    epssDate: date('epss_date'),
    /** Where the record body came from: nvd, cve5, or kev (a KEV entry seen before its CVE record). */
    source: text('source').notNull().default('nvd'),
    /** Full-text document (id, title, description, CWE ids and names), maintained by the importers. */
    searchVector: tsvector('search_vector'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('cves_search_idx').using('gin', t.searchVector),
    index('cves_published_idx').on(t.publishedAt),
    index('cves_kev_idx')
      .on(t.kev)
      .where(sql`${t.kev}`),
  ],
);

export const ASSET_TYPES = [
  'server',
  'workstation',
  'network',
  'application',
  'database',
  'cloud',
  'container',
  'iot',
  'other',
] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
export const CRITICALITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Criticality = (typeof CRITICALITIES)[number];

export const assets = pgTable(
  'assets',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    assetType: text('asset_type').$type<AssetType>().notNull().default('server'),
    hostname: text('hostname'),
    ipAddress: text('ip_address'),
    operatingSystem: text('operating_system'),
    criticality: text('criticality').$type<Criticality>().notNull().default('medium'),
    owner: text('owner'),
    description: text('description').notNull().default(''),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('assets_tenant_name_idx').on(t.tenantId, t.name),
    // Target of the (tenant_id, asset_id) foreign keys: a reference cannot cross tenants.
    uniqueIndex('assets_tenant_id_key').on(t.tenantId, t.id),
    index('assets_tenant_ip_idx').on(t.tenantId, t.ipAddress),
    index('assets_tenant_hostname_idx').on(t.tenantId, t.hostname),
  ],
);

export const SCAN_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const SCANNERS = ['trivy', 'nmap', 'openvas', 'manual'] as const;
export type Scanner = (typeof SCANNERS)[number];

export const scans = pgTable(
  'scans',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scanner: text('scanner').$type<Scanner>().notNull().default('manual'),
    target: text('target').notNull().default(''),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'set null' }),
    status: text('status').$type<ScanStatus>().notNull().default('PENDING'),
    progress: integer('progress').notNull().default(0),
    /** The job queue's id of the run in progress, so cancel/ can revoke it. */
    jobId: text('job_id'),
    /** The stored scanner report (file name in the data dir, never a client path), its format and size. */
    reportFile: text('report_file'),
    reportFormat: text('report_format'),
    reportSize: bigint('report_size', { mode: 'number' }),
    /** Counts of the last run: findings, created, updated, by severity, assets created. */
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull().default({}),
    error: text('error'),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('scans_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('scans_tenant_status_idx').on(t.tenantId, t.status),
  ],
);

/**
 * Findings: one row per (tenant, asset, finding key). finding_key is the CVE id when there is one, else the
 * scanner's own stable key (an OpenVAS NVT OID, an Nmap port), so a re-imported report updates instead of
 * duplicating.
 */
export const vulnerabilities = pgTable(
  'vulnerabilities',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'cascade' }),
    scanId: bigint('scan_id', { mode: 'number' }).references(() => scans.id, { onDelete: 'set null' }),
    cveId: text('cve_id'),
    findingKey: text('finding_key').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    severity: text('severity').$type<Severity>().notNull().default('medium'),
    cvssScore: doublePrecision('cvss_score'),
    cvssVector: text('cvss_vector'),
    /** Copied from the CVE store at write time so list filters and the summary need no join. */
    kev: boolean('kev').notNull().default(false),
    cweIds: text('cwe_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    port: integer('port'),
    protocol: text('protocol'),
    service: text('service'),
    packageName: text('package_name'),
    installedVersion: text('installed_version'),
    fixedVersion: text('fixed_version'),
    solution: text('solution').notNull().default(''),
    source: text('source').notNull().default('manual'),
    isResolved: boolean('is_resolved').notNull().default(false),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    resolvedBy: integer('resolved_by').references(() => users.id, { onDelete: 'set null' }),
    firstSeen: timestamp('first_seen', { withTimezone: true }).notNull().defaultNow(),
    lastSeen: timestamp('last_seen', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    // A 64-bit hash of the searchable text, the key into vulnerability_texts (never sent out).
    textHash: bigint('text_hash', { mode: 'bigint' }).generatedAlwaysAs(
      sql`hashtextextended(coalesce(cve_id, '') || ' ' || title || ' ' || description, 0)`,
    ),
  },
  (t) => [
    unique('vulnerabilities_finding_key').on(t.tenantId, t.assetId, t.findingKey).nullsNotDistinct(),
    // Unique: also the target of the (tenant_id, vulnerability_id) foreign keys.
    uniqueIndex('vulnerabilities_tenant_id_idx').on(t.tenantId, t.id),
    index('vulnerabilities_tenant_severity_idx').on(t.tenantId, t.isResolved, t.severity),
    // The id tiebreak makes the default ordering (newest first) and keyset paging an index walk.
    index('vulnerabilities_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('vulnerabilities_tenant_asset_idx').on(t.tenantId, t.assetId),
    index('vulnerabilities_tenant_cve_idx').on(t.tenantId, t.cveId),
    // The text filter counts its matches in this index alone (no heap visit): see vulnerability_texts.
    index('vulnerabilities_tenant_text_idx').on(t.tenantId, t.textHash, t.isResolved, t.severity, t.kev),
  ],
);

/**
 * The distinct texts of each tenant's findings (CVE id, title, description; lower-cased), keyed by the findings'
 * text_hash and kept by a statement-level trigger (migration 0011). A text filter matches these few rows with the trigram index,
 * then finds the findings by hash: a million findings share far fewer texts. Rows whose findings are gone stay
 * (harmless: findings are always found by hash). Read only through vulnerability_text_hashes().
 */
export const vulnerabilityTexts = pgTable(
  'vulnerability_texts',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    textHash: bigint('text_hash', { mode: 'bigint' }).notNull(),
    body: text('body').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.textHash] }),
    index('vulnerability_texts_body_trgm_idx').using('gin', sql`${t.body} gin_trgm_ops`),
  ],
);

/**
 * Per-tenant finding counters, maintained by statement-level triggers on vulnerabilities (migration 0008), so the
 * summary and the list's count do not count a million rows. asset_id 0 stands for "no asset".
 */
export const vulnerabilityCounts = pgTable(
  'vulnerability_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    assetId: bigint('asset_id', { mode: 'number' }).notNull().default(0),
    severity: text('severity').$type<Severity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.assetId, t.severity, t.isResolved, t.kev] })],
);

/**
 * The tenant's totals: vulnerability_counts without the asset dimension, same maintenance (migration 0010). The
 * list's count and the summaries read these few rows (at most 20 per tenant) instead of summing a row per asset.
 */
export const vulnerabilityTotals = pgTable(
  'vulnerability_totals',
  {
    tenantId: uuid('tenant_id').notNull(),
    severity: text('severity').$type<Severity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.severity, t.isResolved, t.kev] })],
);

/** New findings per UTC day of created_at (trends), same maintenance. */
export const vulnerabilityDailyCounts = pgTable(
  'vulnerability_daily_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    day: date('day').notNull(),
    severity: text('severity').$type<Severity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.day, t.severity, t.isResolved, t.kev] })],
);

/** Findings per CWE (a finding with several CWEs counts once for each), same maintenance. */
export const vulnerabilityCweCounts = pgTable(
  'vulnerability_cwe_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    cweId: text('cwe_id').notNull(),
    severity: text('severity').$type<Severity>().notNull(),
    isResolved: boolean('is_resolved').notNull(),
    kev: boolean('kev').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.cweId, t.severity, t.isResolved, t.kev] })],
);

export const THREAT_STATUSES = ['ACTIVE', 'INVESTIGATING', 'MITIGATED', 'CLOSED'] as const;
export type ThreatStatus = (typeof THREAT_STATUSES)[number];

export const threats = pgTable(
  'threats',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    threatType: text('threat_type').notNull().default('other'),
    severity: text('severity').$type<Severity>().notNull().default('medium'),
    status: text('status').$type<ThreatStatus>().notNull().default('ACTIVE'),
    isMitigated: boolean('is_mitigated').notNull().default(false),
    mitigatedAt: timestamp('mitigated_at', { withTimezone: true }),
    mitigatedBy: integer('mitigated_by').references(() => users.id, { onDelete: 'set null' }),
    source: text('source').notNull().default(''),
    cveId: text('cve_id'),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('threats_tenant_created_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('threats_tenant_id_key').on(t.tenantId, t.id),
  ],
);

export const TASK_STATUSES = ['PENDING', 'STARTED', 'SUCCESS', 'FAILURE', 'REVOKED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface TaskMeta {
  duration: number | null;
  new_cves: number;
  updated_cves: number;
  error: string | null;
  attempts: number;
  start_time: string | null;
  progress: number;
  revoked_by: string | null;
  reason: string | null;
  [key: string]: unknown;
}

/**
 * Background task runs (the spec's celery tasks) as the product reports them. pg-boss (schema pgboss) does
 * the queuing, locking and retries; this row carries the §4 status and the §3 meta. tenant_id is null for
 * platform tasks (CVE updates), set for a tenant's own work (a scan report).
 */
export const taskRuns = pgTable(
  'task_runs',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    taskName: text('task_name').notNull(),
    status: text('status').$type<TaskStatus>().notNull().default('PENDING'),
    meta: jsonb('meta').$type<TaskMeta>().notNull(),
    result: text('result'),
    args: jsonb('args').$type<Record<string, unknown>>().notNull().default({}),
    requestedBy: integer('requested_by').references(() => users.id, { onDelete: 'set null' }),
    /** 'schedule' for cron runs, 'user' for a launch. */
    trigger: text('trigger').notNull().default('user'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    dateDone: timestamp('date_done', { withTimezone: true }),
  },
  (t) => [
    index('task_runs_created_idx').on(t.createdAt),
    index('task_runs_tenant_created_idx').on(t.tenantId, t.createdAt),
  ],
);

// ---------------------------------------------------------------------------------------------------------------
// Projects (issue 7): a client engagement gathering assets, risks, threats, findings, remediation and documents.
// Every row carries its tenant; project-level visibility (team roles) is enforced by the policies and repositories.

/** Both readings of §3 (PLANNED, PLANNING) are kept as sent; ON_HOLD and CANCELLED follow docs/api-projects.md. */
export const PROJECT_STATUSES = ['PLANNED', 'PLANNING', 'IN_PROGRESS', 'ON_HOLD', 'COMPLETED', 'CANCELLED'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const PROJECT_PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type ProjectPriority = (typeof PROJECT_PRIORITIES)[number];
export const TEAM_ROLES = ['ADMIN', 'MEMBER', 'VIEWER'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export const projects = pgTable(
  'projects',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    status: text('status').$type<ProjectStatus>().notNull().default('PLANNED'),
    priority: text('priority').$type<ProjectPriority>().notNull().default('MEDIUM'),
    startDate: date('start_date'),
    deadline: date('deadline'),
    ownerId: integer('owner_id').references(() => users.id, { onDelete: 'set null' }),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('projects_tenant_id_key').on(t.tenantId, t.id),
    index('projects_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('projects_tenant_status_idx').on(t.tenantId, t.status),
  ],
);

/** The project's team. The owner (projects.owner_id) is also a member, with role ADMIN. */
export const projectMembers = pgTable(
  'project_members',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<TeamRole>().notNull().default('MEMBER'),
    lastActiveAt: timestamp('last_active_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_members_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    primaryKey({ columns: [t.tenantId, t.projectId, t.userId] }),
    index('project_members_tenant_user_idx').on(t.tenantId, t.userId),
  ],
);

/** A project's link to an asset of the tenant's inventory (assets are not copied). */
export const projectAssets = pgTable(
  'project_assets',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    assetId: bigint('asset_id', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_assets_asset_fk',
      columns: [t.tenantId, t.assetId],
      foreignColumns: [assets.tenantId, assets.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'project_assets_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    unique('project_assets_project_asset').on(t.tenantId, t.projectId, t.assetId),
  ],
);

/** A project's link to a finding of the tenant (which itself links to the CVE store). */
export const projectVulnerabilities = pgTable(
  'project_vulnerabilities',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    vulnerabilityId: bigint('vulnerability_id', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_vulnerabilities_vulnerability_fk',
      columns: [t.tenantId, t.vulnerabilityId],
      foreignColumns: [vulnerabilities.tenantId, vulnerabilities.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'project_vulnerabilities_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    unique('project_vulnerabilities_project_vuln').on(t.tenantId, t.projectId, t.vulnerabilityId),
  ],
);

/** A project's link to a threat of the tenant. */
export const projectThreats = pgTable(
  'project_threats',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    threatId: bigint('threat_id', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_threats_threat_fk',
      columns: [t.tenantId, t.threatId],
      foreignColumns: [threats.tenantId, threats.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'project_threats_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    unique('project_threats_project_threat').on(t.tenantId, t.projectId, t.threatId),
  ],
);

/** ISO 27005 / EBIOS RM treatment options: réduire, accepter, partager (transférer), refuser (éviter). */
export const RISK_TREATMENTS = ['REDUCE', 'ACCEPT', 'SHARE', 'AVOID'] as const;
export type RiskTreatment = (typeof RISK_TREATMENTS)[number];
export const RISK_STATUSES = ['IDENTIFIED', 'ASSESSED', 'IN_TREATMENT', 'MONITORED', 'CLOSED'] as const;
export type RiskStatus = (typeof RISK_STATUSES)[number];

/**
 * A risk scored on a 4 × 4 matrix: vraisemblance (likelihood) × gravité (impact), each 1–4. The residual scores
 * are recomputed from the remediation plan's target as its corrective actions progress (docs/api-projects.md).
 */
export const risks = pgTable(
  'risks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    /** Risk source / scenario wording (EBIOS RM "scénario de risque"). */
    scenario: text('scenario').notNull().default(''),
    assetId: bigint('asset_id', { mode: 'number' }).references(() => assets.id, { onDelete: 'set null' }),
    threatId: bigint('threat_id', { mode: 'number' }).references(() => threats.id, { onDelete: 'set null' }),
    vulnerabilityId: bigint('vulnerability_id', { mode: 'number' }).references(() => vulnerabilities.id, {
      onDelete: 'set null',
    }),
    likelihood: smallint('likelihood').notNull(),
    impact: smallint('impact').notNull(),
    residualLikelihood: smallint('residual_likelihood').notNull(),
    residualImpact: smallint('residual_impact').notNull(),
    treatment: text('treatment').$type<RiskTreatment>().notNull().default('REDUCE'),
    status: text('status').$type<RiskStatus>().notNull().default('IDENTIFIED'),
    ownerId: integer('owner_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'risks_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    uniqueIndex('risks_tenant_id_key').on(t.tenantId, t.id),
    index('risks_tenant_project_idx').on(t.tenantId, t.projectId),
    check(
      'risks_scores',
      sql`${t.likelihood} between 1 and 4 and ${t.impact} between 1 and 4
      and ${t.residualLikelihood} between 1 and 4 and ${t.residualImpact} between 1 and 4`,
    ),
  ],
);

export const PLAN_STATUSES = ['DRAFT', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** One remediation plan per risk, with the residual scores it aims for. */
export const remediationPlans = pgTable(
  'remediation_plans',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    riskId: bigint('risk_id', { mode: 'number' }).notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    status: text('status').$type<PlanStatus>().notNull().default('DRAFT'),
    targetLikelihood: smallint('target_likelihood').notNull(),
    targetImpact: smallint('target_impact').notNull(),
    ownerId: integer('owner_id').references(() => users.id, { onDelete: 'set null' }),
    dueDate: date('due_date'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'remediation_plans_risk_fk',
      columns: [t.tenantId, t.riskId],
      foreignColumns: [risks.tenantId, risks.id],
    }).onDelete('cascade'),
    unique('remediation_plans_risk').on(t.tenantId, t.riskId),
    uniqueIndex('remediation_plans_tenant_id_key').on(t.tenantId, t.id),
    check(
      'remediation_plans_targets',
      sql`${t.targetLikelihood} between 1 and 4 and ${t.targetImpact} between 1 and 4`,
    ),
  ],
);

export const correctiveActions = pgTable(
  'corrective_actions',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    planId: bigint('plan_id', { mode: 'number' }).notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    assigneeId: integer('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    dueDate: date('due_date'),
    progress: smallint('progress').notNull().default(0),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'corrective_actions_plan_fk',
      columns: [t.tenantId, t.planId],
      foreignColumns: [remediationPlans.tenantId, remediationPlans.id],
    }).onDelete('cascade'),
    index('corrective_actions_tenant_plan_idx').on(t.tenantId, t.planId),
    check('corrective_actions_progress', sql`${t.progress} between 0 and 100`),
  ],
);

export const PROJECT_TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'BLOCKED', 'DONE'] as const;
export type ProjectTaskStatus = (typeof PROJECT_TASK_STATUSES)[number];

export const projectTasks = pgTable(
  'project_tasks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    status: text('status').$type<ProjectTaskStatus>().notNull().default('TODO'),
    priority: text('priority').$type<ProjectPriority>().notNull().default('MEDIUM'),
    assigneeId: integer('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    dueDate: date('due_date'),
    progress: smallint('progress').notNull().default(0),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_tasks_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    index('project_tasks_tenant_project_idx').on(t.tenantId, t.projectId),
    check('project_tasks_progress', sql`${t.progress} between 0 and 100`),
  ],
);

export const DOCUMENT_TYPES = ['REPORT', 'CONTRACT', 'EVIDENCE', 'PROCEDURE', 'OTHER'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/**
 * A project document. The file lives outside the web root under a generated name (storage_key), on disk in the
 * data dir or in an S3-compatible bucket; the original name is only ever shown, never used as a path.
 */
export const projectDocuments = pgTable(
  'project_documents',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    title: text('title').notNull().default(''),
    description: text('description').notNull().default(''),
    documentType: text('document_type').$type<DocumentType>().notNull().default('OTHER'),
    originalName: text('original_name').notNull(),
    fileType: text('file_type').notNull(),
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    uploadedBy: integer('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_documents_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    index('project_documents_tenant_project_idx').on(t.tenantId, t.projectId),
  ],
);

/** What happened in a project, newest first on its dashboard (written by the project services). */
export const projectActivity = pgTable(
  'project_activity',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** created, updated, deleted, progress, resolved, mitigated, member_added, member_removed, uploaded… */
    action: text('action').notNull(),
    objectType: text('object_type').notNull(),
    objectId: bigint('object_id', { mode: 'number' }),
    summary: text('summary').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    foreignKey({
      name: 'project_activity_project_fk',
      columns: [t.tenantId, t.projectId],
      foreignColumns: [projects.tenantId, projects.id],
    }).onDelete('cascade'),
    index('project_activity_tenant_project_idx').on(t.tenantId, t.projectId, t.createdAt),
  ],
);

// ---------------------------------------------------------------------------------------------------------------
// Notifications and blog (issue 8). Contracts: docs/api-notifications.md, docs/api-blog.md.

export const NOTIFICATION_LEVELS = ['info', 'warning', 'critical'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

/** What made a notification: a product event, or a manager's message (manual). */
export const NOTIFICATION_KINDS = [
  'manual',
  'kev_match',
  'critical_vulnerability',
  'task_assigned',
  'action_assigned',
  'task_overdue',
  'action_overdue',
  'task_failed',
  'project_member_added',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** One notification for one recipient in one tenant. The app role may read, add and mark read; never delete. */
export const notifications = pgTable(
  'notifications',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<NotificationKind>().notNull().default('manual'),
    level: text('level').$type<NotificationLevel>().notNull().default('info'),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    /** An app path (starts with one slash) to the object concerned, or null. */
    link: text('link'),
    /** Same event, same recipient, once: e.g. 'overdue:task:12:2026-11-20'. Null for manual messages. */
    dedupeKey: text('dedupe_key'),
    read: boolean('read').notNull().default(false),
    readAt: timestamp('read_at', { withTimezone: true }),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('notifications_tenant_user_created_idx').on(t.tenantId, t.userId, t.createdAt),
    index('notifications_unread_idx')
      .on(t.tenantId, t.userId)
      .where(sql`not ${t.read}`),
    uniqueIndex('notifications_dedupe_idx').on(t.tenantId, t.userId, t.dedupeKey),
    check('notifications_link', sql`${t.link} is null or ${t.link} like '/%'`),
  ],
);

export const BLOG_STATUSES = ['draft', 'published'] as const;
export type BlogStatus = (typeof BLOG_STATUSES)[number];

/** A post of the tenant's blog; content is Markdown, rendered and sanitised by the client. */
export const blogPosts = pgTable(
  'blog_posts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    slug: text('slug').notNull(),
    excerpt: text('excerpt').notNull().default(''),
    content: text('content').notNull().default(''),
    authorId: integer('author_id').references(() => users.id, { onDelete: 'set null' }),
    /** The author's display name when the post was written (kept if the account goes). */
    authorName: text('author_name').notNull().default(''),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    featuredImage: text('featured_image'),
    status: text('status').$type<BlogStatus>().notNull().default('draft'),
    publishedDate: timestamp('published_date', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('blog_posts_tenant_slug_idx').on(t.tenantId, t.slug),
    index('blog_posts_tenant_published_idx').on(t.tenantId, t.status, t.publishedDate),
    check('blog_posts_slug', sql`${t.slug} ~ '^[a-z0-9]+(-[a-z0-9]+)*$'`),
  ],
);

/** An image uploaded for the blog; bytes in the document store under a generated key, type from its magic bytes. */
export const blogImages = pgTable(
  'blog_images',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    originalName: text('original_name').notNull(),
    contentType: text('content_type').notNull(),
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    uploadedBy: integer('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('blog_images_tenant_idx').on(t.tenantId)],
);

export const schema = {
  tenants,
  users,
  memberships,
  refreshTokens,
  passwordResetTokens,
  mailOutbox,
  systemSettings,
  adminConfig,
  serverLogs,
  backups,
  auditEvents,
  securityPolicies,
  idempotencyKeys,
  cwes,
  cves,
  assets,
  scans,
  vulnerabilities,
  vulnerabilityCounts,
  vulnerabilityTotals,
  vulnerabilityDailyCounts,
  vulnerabilityCweCounts,
  vulnerabilityTexts,
  threats,
  taskRuns,
  projects,
  projectMembers,
  projectAssets,
  projectVulnerabilities,
  projectThreats,
  risks,
  remediationPlans,
  correctiveActions,
  projectTasks,
  projectDocuments,
  projectActivity,
  notifications,
  blogPosts,
  blogImages,
};
