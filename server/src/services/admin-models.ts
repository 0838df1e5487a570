import { isIP } from 'node:net';
import { getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import {
  ASSET_TYPES,
  assets,
  blogPosts,
  CRITICALITIES,
  cves,
  cwes,
  idempotencyKeys,
  mailOutbox,
  MEMBERSHIP_ROLES,
  memberships,
  notifications,
  passwordResetTokens,
  projectDocuments,
  PROJECT_PRIORITIES,
  projects,
  refreshTokens,
  RISK_STATUSES,
  RISK_TREATMENTS,
  risks,
  scans,
  SEVERITIES,
  taskRuns,
  tenants,
  threats,
  blogImages,
  users,
  vulnerabilities,
} from '../db/schema.ts';
import { SLUG_RE } from '../repositories/blog.ts';

/**
 * The generic model administration (docs/api-admin.md "Models"): an explicit allow-list of models and of their
 * fields. Drizzle's table metadata gives each listed column's type, nullability and default, but a column is never
 * exposed because it exists: a new column stays invisible here until someone adds it below.
 */

export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'datetime',
  'date',
  'uuid',
  'json',
  'array',
  'enum',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * Where a model's rows belong:
 * - tenant: rows carry tenant_id; a tenant admin sees their current tenant's rows only;
 * - tenant-row: the tenants table itself; a tenant admin sees their own tenant;
 * - members: accounts, global but seen through the memberships of a tenant;
 * - reference: shared reference data (CVE, CWE) every administrator reads;
 * - platform: platform rows no tenant owns (the mail outbox), superusers only.
 */
export type ModelScope = 'tenant' | 'tenant-row' | 'members' | 'reference' | 'platform';
export type ModelOperation = 'create' | 'update' | 'delete';

interface FieldSpec {
  /** The Drizzle property of the table; the API name is the column's SQL name. */
  key: string;
  readOnly?: boolean;
  /** Writable on creation only (a key part such as a membership's user). */
  createOnly?: boolean;
  /** Long text (type `text`) rather than a short string. */
  long?: boolean;
  choices?: readonly string[];
  maxLength?: number;
  min?: number;
  max?: number;
  /** Arrays: at most this many items (each at most maxLength characters). */
  maxItems?: number;
  /** Strings: a French message when the (trimmed, normalised) value is not acceptable. */
  check?: (value: string) => string | undefined;
  normalize?: (value: string) => string;
  /** The model whose row this integer names; it must exist in the same tenant. */
  references?: string;
}

interface ModelSpec {
  name: string;
  label: string;
  table: PgTable;
  scope: ModelScope;
  /** What this administration may do besides reading; empty for a read-only model. */
  operations: readonly ModelOperation[];
  /** Who writes: the tenant's admins as well, or superusers only (accounts and memberships govern access). */
  writers: 'admin' | 'superuser';
  /** Where the missing operations are done instead (French, for the 405 message). */
  elsewhere?: string;
  primaryKey: readonly string[];
  ordering: { key: string; desc: boolean };
  search: readonly string[];
  fields: readonly FieldSpec[];
  /** Fields nobody may change on their own row (a superuser cannot lock themselves out). */
  selfProtected?: { ownerKey: string; keys: readonly string[] };
  /** A rule over several fields, checked on the row as it would be stored; [api field, French message]. */
  crossCheck?: (row: Record<string, unknown>) => [string, string] | undefined;
}

export interface ModelField {
  name: string;
  key: string;
  column: PgColumn;
  type: FieldType;
  /** Must be given on creation (not null and no default). */
  required: boolean;
  readOnly: boolean;
  createOnly: boolean;
  nullable: boolean;
  choices?: readonly string[];
  maxLength?: number;
  min?: number;
  max?: number;
  maxItems?: number;
  /** Bounds stated by the allow-list (shown in the metadata and messages), not the column type's own range. */
  declared: { min?: number; max?: number };
  check?: (value: string) => string | undefined;
  normalize?: (value: string) => string;
  references?: string;
}

export interface AdminModel {
  name: string;
  label: string;
  table: PgTable;
  scope: ModelScope;
  operations: readonly ModelOperation[];
  writers: 'admin' | 'superuser';
  elsewhere?: string;
  fields: readonly ModelField[];
  byName: ReadonlyMap<string, ModelField>;
  primaryKey: readonly ModelField[];
  ordering: { field: ModelField; desc: boolean };
  search: readonly ModelField[];
  /** The tenant column of a tenant-scoped model (the id of the tenants table). */
  tenantColumn?: PgColumn;
  /** Set to now() on every change, when the table has one. */
  touchColumn?: string;
  selfProtected?: { ownerKey: string; keys: readonly string[] };
  crossCheck?: (row: Record<string, unknown>) => [string, string] | undefined;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CVE_RE = /^CVE-\d{4}-\d{4,}$/;
// A path of this site: one leading slash, never "//" (another host), no spaces or control characters.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const SAME_ORIGIN_PATH = /^\/(?![/\\])[^\s\\\u0000-\u001f\u007f]*$/;

const READ_ONLY = { readOnly: true } as const;

/** The allow-list. Order is the order of GET /api/admin/models/. */
const SPECS: readonly ModelSpec[] = [
  {
    name: 'users',
    label: 'Utilisateurs',
    table: users,
    scope: 'members',
    operations: ['update'],
    writers: 'superuser',
    elsewhere: 'les comptes se créent et se suppriment par /api/admin/users/',
    primaryKey: ['id'],
    ordering: { key: 'username', desc: false },
    search: ['username', 'email', 'firstName', 'lastName'],
    // No password_hash, no totp_secret; totp_enabled is shown but only the account's owner changes it (2FA paths).
    fields: [
      { key: 'id', ...READ_ONLY },
      { key: 'username', ...READ_ONLY },
      {
        key: 'email',
        maxLength: 254,
        normalize: (v) => {
          const at = v.lastIndexOf('@');
          return at < 0 ? v : v.slice(0, at) + v.slice(at).toLowerCase();
        },
        check: (v) => (EMAIL_RE.test(v) ? undefined : 'Adresse email invalide.'),
      },
      { key: 'firstName', maxLength: 150 },
      { key: 'lastName', maxLength: 150 },
      { key: 'isActive' },
      { key: 'isStaff' },
      { key: 'isSuperuser' },
      { key: 'totpEnabled', ...READ_ONLY },
      { key: 'dateJoined', ...READ_ONLY },
      { key: 'lastLogin', ...READ_ONLY },
    ],
    selfProtected: { ownerKey: 'id', keys: ['isActive', 'isStaff', 'isSuperuser'] },
  },
  {
    name: 'memberships',
    label: 'Appartenances',
    table: memberships,
    scope: 'tenant',
    operations: ['create', 'update', 'delete'],
    writers: 'superuser',
    primaryKey: ['tenantId', 'userId'],
    ordering: { key: 'createdAt', desc: false },
    search: ['role'],
    fields: [
      { key: 'tenantId', ...READ_ONLY },
      { key: 'userId', createOnly: true, min: 1 },
      { key: 'role', choices: MEMBERSHIP_ROLES },
      { key: 'createdAt', ...READ_ONLY },
    ],
  },
  {
    name: 'tenants',
    label: 'Organisations',
    table: tenants,
    scope: 'tenant-row',
    operations: [],
    writers: 'superuser',
    elsewhere: 'les organisations se gèrent par /api/admin/tenants/',
    primaryKey: ['id'],
    ordering: { key: 'name', desc: false },
    search: ['name', 'domain'],
    fields: [
      { key: 'id' },
      { key: 'name' },
      { key: 'domain' },
      { key: 'subscriptionPlan' },
      { key: 'status' },
      { key: 'contactEmail' },
      { key: 'logoUrl' },
      { key: 'createdAt' },
      { key: 'deletedAt' },
      { key: 'deletedBy' },
    ],
  },
  {
    name: 'assets',
    label: 'Actifs',
    table: assets,
    scope: 'tenant',
    operations: ['create', 'update', 'delete'],
    writers: 'admin',
    primaryKey: ['id'],
    ordering: { key: 'name', desc: false },
    search: ['name', 'hostname', 'ipAddress'],
    fields: [
      { key: 'id', ...READ_ONLY },
      { key: 'tenantId', ...READ_ONLY },
      { key: 'name', maxLength: 200 },
      { key: 'assetType', choices: ASSET_TYPES },
      { key: 'hostname', maxLength: 255 },
      { key: 'ipAddress', maxLength: 64, check: (v) => (isIP(v) === 0 ? 'Adresse IP invalide.' : undefined) },
      { key: 'operatingSystem', maxLength: 200 },
      { key: 'criticality', choices: CRITICALITIES },
      { key: 'owner', maxLength: 200 },
      { key: 'description', long: true, maxLength: 100_000 },
      { key: 'tags', maxItems: 50, maxLength: 100 },
      { key: 'createdAt', ...READ_ONLY },
      { key: 'updatedAt', ...READ_ONLY },
    ],
  },
  {
    name: 'threats',
    label: 'Menaces',
    table: threats,
    scope: 'tenant',
    operations: ['create', 'update', 'delete'],
    writers: 'admin',
    elsewhere: 'le statut et l’atténuation suivent /api/threats/',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['title', 'cveId'],
    fields: [
      { key: 'id', ...READ_ONLY },
      { key: 'tenantId', ...READ_ONLY },
      { key: 'title', maxLength: 300 },
      { key: 'description', long: true, maxLength: 20_000 },
      { key: 'threatType', maxLength: 200 },
      { key: 'severity', choices: SEVERITIES },
      // The status and the mitigation move together through the threats API (a mitigated threat is MITIGATED).
      { key: 'status', ...READ_ONLY },
      { key: 'isMitigated', ...READ_ONLY },
      { key: 'mitigatedAt', ...READ_ONLY },
      { key: 'mitigatedBy', ...READ_ONLY },
      { key: 'source', maxLength: 200 },
      {
        key: 'cveId',
        maxLength: 64,
        normalize: (v) => v.toUpperCase(),
        check: (v) => (CVE_RE.test(v) ? undefined : 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).'),
      },
      { key: 'assetId', references: 'assets', min: 1 },
      { key: 'createdAt', ...READ_ONLY },
      { key: 'updatedAt', ...READ_ONLY },
    ],
  },
  {
    name: 'scans',
    label: 'Scans',
    table: scans,
    scope: 'tenant',
    operations: [],
    writers: 'admin',
    elsewhere: 'les scans se gèrent par /api/vulnerabilities/scans/',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['name', 'target'],
    // No job_id (queue internals) and no report_file (a stored file's name).
    fields: [
      { key: 'id' },
      { key: 'tenantId' },
      { key: 'name' },
      { key: 'scanner' },
      { key: 'target' },
      { key: 'assetId' },
      { key: 'status' },
      { key: 'progress' },
      { key: 'reportFormat' },
      { key: 'reportSize' },
      { key: 'summary' },
      { key: 'error' },
      { key: 'createdBy' },
      { key: 'startedAt' },
      { key: 'completedAt' },
      { key: 'createdAt' },
      { key: 'updatedAt' },
    ],
  },
  {
    name: 'vulnerabilities',
    label: 'Vulnérabilités',
    table: vulnerabilities,
    scope: 'tenant',
    operations: [],
    writers: 'admin',
    elsewhere: 'les vulnérabilités se gèrent par /api/vulnerabilities/ (compteurs et historique)',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['title', 'cveId', 'findingKey'],
    // No text_hash (an internal search key).
    fields: [
      { key: 'id' },
      { key: 'tenantId' },
      { key: 'assetId' },
      { key: 'scanId' },
      { key: 'cveId' },
      { key: 'findingKey' },
      { key: 'title' },
      { key: 'description', long: true },
      { key: 'severity', choices: SEVERITIES },
      { key: 'cvssScore' },
      { key: 'cvssVector' },
      { key: 'kev' },
      { key: 'cweIds' },
      { key: 'port' },
      { key: 'protocol' },
      { key: 'service' },
      { key: 'packageName' },
      { key: 'installedVersion' },
      { key: 'fixedVersion' },
      { key: 'solution', long: true },
      { key: 'source' },
      { key: 'isResolved' },
      { key: 'resolvedAt' },
      { key: 'resolvedBy' },
      { key: 'firstSeen' },
      { key: 'lastSeen' },
      { key: 'createdAt' },
      { key: 'updatedAt' },
    ],
  },
  {
    name: 'cves',
    label: 'CVE',
    table: cves,
    scope: 'reference',
    operations: [],
    writers: 'superuser',
    elsewhere: 'les CVE viennent des imports (tâche de mise à jour)',
    primaryKey: ['cveId'],
    ordering: { key: 'publishedAt', desc: true },
    search: ['cveId', 'title'],
    // No search_vector (an internal full-text document).
    fields: [
      { key: 'cveId' },
      { key: 'title' },
      { key: 'description', long: true },
      { key: 'status' },
      { key: 'publishedAt' },
      { key: 'modifiedAt' },
      { key: 'cvss3Score' },
      { key: 'cvss3Vector' },
      { key: 'cvss3Severity' },
      { key: 'cvss4Score' },
      { key: 'cvss4Vector' },
      { key: 'cvss4Severity' },
      { key: 'cvss2Score' },
      { key: 'cvss2Vector' },
      { key: 'severity', choices: SEVERITIES },
      { key: 'cweIds' },
      { key: 'references' },
      { key: 'kev' },
      { key: 'kevDateAdded' },
      { key: 'kevDueDate' },
      { key: 'epssScore' },
      { key: 'epssPercentile' },
      { key: 'source' },
      { key: 'updatedAt' },
    ],
  },
  {
    name: 'cwes',
    label: 'CWE',
    table: cwes,
    scope: 'reference',
    operations: [],
    writers: 'superuser',
    elsewhere: 'la liste CWE vient des imports',
    primaryKey: ['id'],
    ordering: { key: 'id', desc: false },
    search: ['id', 'name'],
    fields: [{ key: 'id' }, { key: 'name' }],
  },
  {
    name: 'projects',
    label: 'Projets',
    table: projects,
    scope: 'tenant',
    operations: ['create', 'update', 'delete'],
    writers: 'admin',
    elsewhere: 'le statut (transitions) et l’équipe suivent /api/projects/',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['name'],
    fields: [
      { key: 'id', ...READ_ONLY },
      { key: 'tenantId', ...READ_ONLY },
      { key: 'name', maxLength: 200 },
      { key: 'description', long: true, maxLength: 20_000 },
      { key: 'status', ...READ_ONLY },
      { key: 'priority', choices: PROJECT_PRIORITIES },
      { key: 'startDate' },
      { key: 'deadline' },
      { key: 'ownerId', ...READ_ONLY },
      { key: 'isActive' },
      { key: 'createdAt', ...READ_ONLY },
      { key: 'updatedAt', ...READ_ONLY },
    ],
    crossCheck: (row) => {
      const start = row.start_date;
      const end = row.deadline;
      return typeof start === 'string' && typeof end === 'string' && end < start
        ? ['deadline', 'L’échéance ne peut pas précéder la date de début.']
        : undefined;
    },
  },
  {
    name: 'risks',
    label: 'Risques',
    table: risks,
    scope: 'tenant',
    operations: ['update', 'delete'],
    writers: 'admin',
    elsewhere: 'les risques se créent et se notent dans leur projet (/api/projects/risks/)',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['title'],
    // The scores are read-only: the residual ones follow the remediation plan (docs/api-projects.md).
    fields: [
      { key: 'id', ...READ_ONLY },
      { key: 'tenantId', ...READ_ONLY },
      { key: 'projectId', ...READ_ONLY },
      { key: 'title', maxLength: 300 },
      { key: 'description', long: true, maxLength: 20_000 },
      { key: 'scenario', long: true, maxLength: 20_000 },
      { key: 'assetId', ...READ_ONLY },
      { key: 'threatId', ...READ_ONLY },
      { key: 'vulnerabilityId', ...READ_ONLY },
      { key: 'likelihood', ...READ_ONLY },
      { key: 'impact', ...READ_ONLY },
      { key: 'residualLikelihood', ...READ_ONLY },
      { key: 'residualImpact', ...READ_ONLY },
      { key: 'treatment', choices: RISK_TREATMENTS },
      { key: 'status', choices: RISK_STATUSES },
      { key: 'ownerId', ...READ_ONLY },
      { key: 'createdAt', ...READ_ONLY },
      { key: 'updatedAt', ...READ_ONLY },
    ],
  },
  {
    name: 'blog_posts',
    label: 'Articles du blog',
    table: blogPosts,
    scope: 'tenant',
    operations: ['update', 'delete'],
    writers: 'admin',
    elsewhere: 'les articles s’écrivent et se publient par /api/blog/posts/',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['title', 'slug'],
    fields: [
      { key: 'id', ...READ_ONLY },
      { key: 'tenantId', ...READ_ONLY },
      { key: 'title', maxLength: 200 },
      {
        key: 'slug',
        maxLength: 100,
        check: (v) => (SLUG_RE.test(v) ? undefined : 'Lien invalide : lettres minuscules, chiffres et tirets.'),
      },
      { key: 'excerpt', maxLength: 500 },
      { key: 'content', long: true, maxLength: 200_000 },
      { key: 'authorId', ...READ_ONLY },
      { key: 'authorName', ...READ_ONLY },
      { key: 'tags', maxItems: 10, maxLength: 40 },
      {
        key: 'featuredImage',
        maxLength: 500,
        check: (v) =>
          SAME_ORIGIN_PATH.test(v)
            ? undefined
            : 'Image mise en avant invalide : un chemin de ce site commençant par un seul / est attendu.',
      },
      { key: 'status', ...READ_ONLY },
      { key: 'publishedDate', ...READ_ONLY },
      { key: 'createdAt', ...READ_ONLY },
      { key: 'updatedAt', ...READ_ONLY },
    ],
  },
  {
    name: 'notifications',
    label: 'Notifications',
    table: notifications,
    scope: 'tenant',
    operations: [],
    writers: 'admin',
    elsewhere: 'les notifications s’envoient par /api/notifications/',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['title'],
    fields: [
      { key: 'id' },
      { key: 'tenantId' },
      { key: 'userId' },
      { key: 'kind' },
      { key: 'level' },
      { key: 'title' },
      { key: 'body', long: true },
      { key: 'link' },
      { key: 'read' },
      { key: 'readAt' },
      { key: 'createdBy' },
      { key: 'createdAt' },
    ],
  },
  {
    name: 'task_runs',
    label: 'Tâches de fond',
    table: taskRuns,
    scope: 'tenant',
    operations: [],
    writers: 'admin',
    elsewhere: 'les tâches se lancent par /api/celery/',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['taskName', 'status'],
    fields: [
      { key: 'id' },
      { key: 'tenantId' },
      { key: 'taskName' },
      { key: 'status' },
      { key: 'meta' },
      { key: 'result', long: true },
      { key: 'args' },
      { key: 'requestedBy' },
      { key: 'trigger' },
      { key: 'createdAt' },
      { key: 'dateDone' },
    ],
  },
  {
    name: 'mail_outbox',
    label: 'Courriels envoyés',
    table: mailOutbox,
    scope: 'platform',
    operations: [],
    writers: 'superuser',
    elsewhere: 'les courriels sont écrits par le serveur',
    primaryKey: ['id'],
    ordering: { key: 'createdAt', desc: true },
    search: ['recipient', 'subject'],
    // No body: it may hold a password reset link.
    fields: [{ key: 'id' }, { key: 'recipient' }, { key: 'subject' }, { key: 'createdAt' }, { key: 'sentAt' }],
  },
];

/** Tables that must never be reachable here, whatever the list above says (tokens, storage keys). */
const FORBIDDEN_TABLES: readonly PgTable[] = [
  refreshTokens,
  passwordResetTokens,
  idempotencyKeys,
  projectDocuments,
  blogImages,
];
/** Column names that must never be exposed or accepted, whatever the list above says. */
export const FORBIDDEN_FIELD_RE =
  /password|secret|token|storage_key|text_hash|search_vector|dedupe|job_id|report_file/i;

const INT_RANGES: Record<string, [number, number]> = {
  PgSmallInt: [-32_768, 32_767],
  PgInteger: [-2_147_483_648, 2_147_483_647],
  PgBigInt53: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};
const DEFAULT_MAX_LENGTH = { string: 1000, text: 100_000, array: 1000 } as const;

function typeOf(column: PgColumn, spec: FieldSpec, model: string): FieldType {
  if (spec.choices) return 'enum';
  switch (column.columnType) {
    case 'PgText':
      return spec.long ? 'text' : 'string';
    case 'PgUUID':
      return 'uuid';
    case 'PgSmallInt':
    case 'PgInteger':
    case 'PgBigInt53':
      return 'integer';
    case 'PgDoublePrecision':
      return 'number';
    case 'PgBoolean':
      return 'boolean';
    case 'PgTimestamp':
      return 'datetime';
    case 'PgDateString':
      return 'date';
    case 'PgJsonb':
      return 'json';
    case 'PgArray':
      return 'array';
    default:
      // A column type this administration does not know how to show or check is a programming error.
      throw new Error(`admin-models: ${model}.${spec.key} has an unsupported column type ${column.columnType}`);
  }
}

function compile(spec: ModelSpec): AdminModel {
  if (FORBIDDEN_TABLES.includes(spec.table)) throw new Error(`admin-models: ${spec.name} may not be administered`);
  const columns = getTableColumns(spec.table) as Record<string, PgColumn>;
  const fields = spec.fields.map((f): ModelField => {
    const column = columns[f.key];
    if (!column) throw new Error(`admin-models: ${spec.name}.${f.key} is not a column`);
    if (FORBIDDEN_FIELD_RE.test(f.key) || FORBIDDEN_FIELD_RE.test(column.name)) {
      throw new Error(`admin-models: ${spec.name}.${column.name} may not be administered`);
    }
    const type = typeOf(column, f, spec.name);
    const identity = (column as { generatedIdentity?: unknown }).generatedIdentity !== undefined;
    // Read-only unless the model can be written at all; the tenant and identity columns never are.
    const readOnly = f.readOnly === true || spec.operations.length === 0 || identity || f.key === 'tenantId';
    const range = INT_RANGES[column.columnType];
    const field: ModelField = {
      name: column.name,
      key: f.key,
      column,
      type,
      required: !readOnly && column.notNull && !column.hasDefault,
      readOnly,
      createOnly: f.createOnly === true,
      nullable: !column.notNull,
      declared: {
        ...(f.min !== undefined ? { min: f.min } : {}),
        ...(f.max !== undefined ? { max: f.max } : {}),
      },
    };
    if (f.choices) field.choices = f.choices;
    if (type === 'string' || type === 'text' || type === 'array') {
      field.maxLength = f.maxLength ?? DEFAULT_MAX_LENGTH[type];
    }
    if (type === 'array') field.maxItems = f.maxItems ?? 100;
    if (range) {
      field.min = f.min ?? range[0];
      field.max = f.max ?? range[1];
    } else if (f.min !== undefined || f.max !== undefined) {
      if (f.min !== undefined) field.min = f.min;
      if (f.max !== undefined) field.max = f.max;
    }
    if (f.check) field.check = f.check;
    if (f.normalize) field.normalize = f.normalize;
    if (f.references) field.references = f.references;
    return field;
  });
  const byName = new Map(fields.map((f) => [f.name, f]));
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const pick = (key: string) => {
    const field = byKey.get(key);
    if (!field) throw new Error(`admin-models: ${spec.name}.${key} must be a listed field`);
    return field;
  };
  const model: AdminModel = {
    name: spec.name,
    label: spec.label,
    table: spec.table,
    scope: spec.scope,
    operations: spec.operations,
    writers: spec.writers,
    fields,
    byName,
    primaryKey: spec.primaryKey.map(pick),
    ordering: { field: pick(spec.ordering.key), desc: spec.ordering.desc },
    search: spec.search.map(pick),
  };
  if (spec.elsewhere) model.elsewhere = spec.elsewhere;
  if (spec.scope === 'tenant') {
    const tenantColumn = columns.tenantId;
    if (!tenantColumn) throw new Error(`admin-models: ${spec.name} has no tenant_id`);
    model.tenantColumn = tenantColumn;
  } else if (spec.scope === 'tenant-row') {
    model.tenantColumn = columns.id!;
  }
  if (columns.updatedAt && spec.operations.includes('update')) model.touchColumn = 'updatedAt';
  if (spec.selfProtected) {
    for (const key of [spec.selfProtected.ownerKey, ...spec.selfProtected.keys]) pick(key);
    model.selfProtected = spec.selfProtected;
  }
  if (spec.crossCheck) model.crossCheck = spec.crossCheck;
  return model;
}

/** Every administrable model, checked once at start-up (a wrong key or a forbidden column fails loudly). */
export const ADMIN_MODELS: readonly AdminModel[] = SPECS.map(compile);
const BY_NAME = new Map(ADMIN_MODELS.map((m) => [m.name, m]));

export function findAdminModel(name: string): AdminModel | undefined {
  return BY_NAME.get(name);
}

for (const model of ADMIN_MODELS) {
  for (const field of model.fields) {
    if (field.references && BY_NAME.get(field.references)?.scope !== 'tenant') {
      throw new Error(`admin-models: ${model.name}.${field.name} must reference a tenant-scoped model`);
    }
  }
}

/** Tenant-scoped in the metadata's sense: a tenant admin sees only their tenant's rows. */
export function isTenantScoped(model: AdminModel): boolean {
  return model.scope === 'tenant' || model.scope === 'tenant-row' || model.scope === 'members';
}
