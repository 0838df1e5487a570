import { isIP } from 'node:net';
import {
  ASSET_TYPES,
  assets,
  blogPosts,
  CRITICALITIES,
  cves,
  cwes,
  mailOutbox,
  MEMBERSHIP_ROLES,
  memberships,
  notifications,
  PROJECT_PRIORITIES,
  projects,
  RISK_STATUSES,
  RISK_TREATMENTS,
  risks,
  scans,
  SEVERITIES,
  SEVERITY_SOURCES,
  FINDING_SEVERITIES,
  taskRuns,
  tenants,
  threats,
  users,
  vulnerabilities,
} from '../db/schema.ts';
import type { FieldRules, ModelRules } from '../domain/admin-models.ts';
import { SLUG_RE } from '../repositories/blog.ts';

/**
 * The allow-list of the generic model administration (docs/api-admin.md "Models"): the models and, for each, the
 * fields it shows. A column is never exposed because it exists: a new column stays invisible until listed here.
 */

export interface FieldSpec extends FieldRules {
  /** The Drizzle property of the table; the API name is the column's SQL name. */
  key: string;
  readOnly?: boolean;
  /** Writable on creation only (a key part such as a membership's user). */
  createOnly?: boolean;
  /** Long text (type `text`) rather than a short string. */
  long?: boolean;
}

export interface ModelSpec extends ModelRules {
  primaryKey: readonly string[];
  ordering: { key: string; desc: boolean };
  search: readonly string[];
  fields: readonly FieldSpec[];
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const CVE_RE = /^CVE-\d{4}-\d{4,}$/;
// A path of this site: one leading slash, never "//" (another host), no spaces or control characters.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const SAME_ORIGIN_PATH = /^\/(?![/\\])[^\s\\\u0000-\u001f\u007f]*$/;

/** A string check: the French message when the value does not match. */
const matching = (pattern: RegExp, message: string) => (v: string) => (pattern.test(v) ? undefined : message);

/** Fields listed as they are (a read-only model's, whose every field is read-only anyway). */
const plain = (...keys: string[]): FieldSpec[] => keys.map((key) => ({ key }));
/** Fields a writable model shows but never lets a client change (keys, server-kept columns). */
const readOnly = (...keys: string[]): FieldSpec[] => keys.map((key) => ({ key, readOnly: true }));

/** The key and tenant of a tenant's writable row, then its timestamps: kept by the server, shown only. */
const TENANT_ROW_KEYS = readOnly('id', 'tenantId');
const TIMESTAMPS = readOnly('createdAt', 'updatedAt');

/** Rows keyed by their id, listed newest first. */
const NEWEST_FIRST = { primaryKey: ['id'], ordering: { key: 'createdAt', desc: true } } as const;

/** A tenant's rows managed through their own API: read here, newest first. */
const TENANT_READ_ONLY = { scope: 'tenant', operations: [], writers: 'admin', ...NEWEST_FIRST } as const;

/** Reference data the imports write: read here by every administrator. */
const REFERENCE = { scope: 'reference', operations: [], writers: 'superuser' } as const;

/** The allow-list. Order is the order of GET /api/admin/models/. */
export const ADMIN_MODEL_SPECS: readonly ModelSpec[] = [
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
      ...readOnly('id', 'username'),
      {
        key: 'email',
        maxLength: 254,
        normalize: (v) => {
          const at = v.lastIndexOf('@');
          return at < 0 ? v : v.slice(0, at) + v.slice(at).toLowerCase();
        },
        check: matching(EMAIL_RE, 'Adresse email invalide.'),
      },
      { key: 'firstName', maxLength: 150 },
      { key: 'lastName', maxLength: 150 },
      ...plain('isActive', 'isStaff', 'isSuperuser'),
      ...readOnly('totpEnabled', 'dateJoined', 'lastLogin'),
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
      ...readOnly('tenantId'),
      { key: 'userId', createOnly: true, min: 1 },
      { key: 'role', choices: MEMBERSHIP_ROLES },
      ...readOnly('createdAt'),
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
    fields: plain(
      'id',
      'name',
      'domain',
      'subscriptionPlan',
      'status',
      'contactEmail',
      'logoUrl',
      'createdAt',
      'deletedAt',
      'deletedBy',
    ),
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
      ...TENANT_ROW_KEYS,
      { key: 'name', maxLength: 200 },
      { key: 'assetType', choices: ASSET_TYPES },
      { key: 'hostname', maxLength: 255 },
      { key: 'ipAddress', maxLength: 64, check: (v) => (isIP(v) === 0 ? 'Adresse IP invalide.' : undefined) },
      { key: 'operatingSystem', maxLength: 200 },
      { key: 'criticality', choices: CRITICALITIES },
      { key: 'internetExposed' },
      { key: 'owner', maxLength: 200 },
      { key: 'description', long: true, maxLength: 100_000 },
      { key: 'tags', maxItems: 50, maxLength: 100 },
      ...TIMESTAMPS,
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
    ...NEWEST_FIRST,
    search: ['title', 'cveId'],
    fields: [
      ...TENANT_ROW_KEYS,
      { key: 'title', maxLength: 300 },
      { key: 'description', long: true, maxLength: 20_000 },
      { key: 'threatType', maxLength: 200 },
      { key: 'severity', choices: SEVERITIES },
      // The status and the mitigation move together through the threats API (a mitigated threat is MITIGATED).
      ...readOnly('status', 'isMitigated', 'mitigatedAt', 'mitigatedBy'),
      { key: 'source', maxLength: 200 },
      {
        key: 'cveId',
        maxLength: 64,
        normalize: (v) => v.toUpperCase(),
        check: matching(CVE_RE, 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).'),
      },
      { key: 'assetId', references: 'assets', min: 1 },
      ...TIMESTAMPS,
    ],
  },
  {
    name: 'scans',
    label: 'Scans',
    table: scans,
    ...TENANT_READ_ONLY,
    elsewhere: 'les scans se gèrent par /api/vulnerabilities/scans/',
    search: ['name', 'target'],
    // No job_id (queue internals) and no report_file (a stored file's name).
    fields: plain(
      'id',
      'tenantId',
      'name',
      'scanner',
      'target',
      'assetId',
      'status',
      'progress',
      'reportFormat',
      'reportSize',
      'summary',
      'error',
      'createdBy',
      'startedAt',
      'completedAt',
      'createdAt',
      'updatedAt',
    ),
  },
  {
    name: 'vulnerabilities',
    label: 'Vulnérabilités',
    table: vulnerabilities,
    ...TENANT_READ_ONLY,
    elsewhere: 'les vulnérabilités se gèrent par /api/vulnerabilities/ (compteurs et historique)',
    search: ['title', 'cveId', 'findingKey'],
    // No text_hash (an internal search key).
    fields: [
      ...plain('id', 'tenantId', 'assetId', 'scanId', 'cveId', 'findingKey', 'title'),
      { key: 'description', long: true },
      { key: 'severity', choices: FINDING_SEVERITIES },
      { key: 'severitySource', choices: SEVERITY_SOURCES },
      ...plain(
        'severityReason',
        'ratedSeverity',
        'ratedSource',
        'cvssScore',
        'cvssVector',
        'kev',
        'cweIds',
        'port',
        'protocol',
        'service',
        'packageName',
        'installedVersion',
        'fixedVersion',
      ),
      { key: 'solution', long: true },
      ...plain('source', 'isResolved', 'resolvedAt', 'resolvedBy', 'firstSeen', 'lastSeen', 'createdAt', 'updatedAt'),
    ],
  },
  {
    name: 'cves',
    label: 'CVE',
    table: cves,
    ...REFERENCE,
    elsewhere: 'les CVE viennent des imports (tâche de mise à jour)',
    primaryKey: ['cveId'],
    ordering: { key: 'publishedAt', desc: true },
    search: ['cveId', 'title'],
    // No search_vector (an internal full-text document).
    fields: [
      ...plain('cveId', 'title'),
      { key: 'description', long: true },
      ...plain(
        'status',
        'publishedAt',
        'modifiedAt',
        'cvss3Score',
        'cvss3Vector',
        'cvss3Severity',
        'cvss4Score',
        'cvss4Vector',
        'cvss4Severity',
        'cvss2Score',
        'cvss2Vector',
      ),
      { key: 'severity', choices: FINDING_SEVERITIES },
      ...plain('cvssSource'),
      ...plain(
        'cweIds',
        'references',
        'kev',
        'kevDateAdded',
        'kevDueDate',
        'epssScore',
        'epssPercentile',
        'source',
        'updatedAt',
      ),
    ],
  },
  {
    name: 'cwes',
    label: 'CWE',
    table: cwes,
    ...REFERENCE,
    elsewhere: 'la liste CWE vient des imports',
    primaryKey: ['id'],
    ordering: { key: 'id', desc: false },
    search: ['id', 'name'],
    fields: plain('id', 'name'),
  },
  {
    name: 'projects',
    label: 'Projets',
    table: projects,
    scope: 'tenant',
    operations: ['create', 'update', 'delete'],
    writers: 'admin',
    elsewhere: 'le statut (transitions) et l’équipe suivent /api/projects/',
    ...NEWEST_FIRST,
    search: ['name'],
    fields: [
      ...TENANT_ROW_KEYS,
      { key: 'name', maxLength: 200 },
      { key: 'description', long: true, maxLength: 20_000 },
      ...readOnly('status'),
      { key: 'priority', choices: PROJECT_PRIORITIES },
      ...plain('startDate', 'deadline'),
      ...readOnly('ownerId'),
      ...plain('isActive'),
      ...TIMESTAMPS,
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
    ...NEWEST_FIRST,
    search: ['title'],
    // The scores are read-only: the residual ones follow the remediation plan (docs/api-projects.md).
    fields: [
      ...readOnly('id', 'tenantId', 'projectId'),
      { key: 'title', maxLength: 300 },
      { key: 'description', long: true, maxLength: 20_000 },
      { key: 'scenario', long: true, maxLength: 20_000 },
      ...readOnly(
        'assetId',
        'threatId',
        'vulnerabilityId',
        'likelihood',
        'impact',
        'residualLikelihood',
        'residualImpact',
      ),
      { key: 'treatment', choices: RISK_TREATMENTS },
      { key: 'status', choices: RISK_STATUSES },
      ...readOnly('ownerId'),
      ...TIMESTAMPS,
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
    ...NEWEST_FIRST,
    search: ['title', 'slug'],
    fields: [
      ...TENANT_ROW_KEYS,
      { key: 'title', maxLength: 200 },
      {
        key: 'slug',
        maxLength: 100,
        check: matching(SLUG_RE, 'Lien invalide : lettres minuscules, chiffres et tirets.'),
      },
      { key: 'excerpt', maxLength: 500 },
      { key: 'content', long: true, maxLength: 200_000 },
      ...readOnly('authorId', 'authorName'),
      { key: 'tags', maxItems: 10, maxLength: 40 },
      {
        key: 'featuredImage',
        maxLength: 500,
        check: matching(
          SAME_ORIGIN_PATH,
          'Image mise en avant invalide : un chemin de ce site commençant par un seul / est attendu.',
        ),
      },
      ...readOnly('status', 'publishedDate'),
      ...TIMESTAMPS,
    ],
  },
  {
    name: 'notifications',
    label: 'Notifications',
    table: notifications,
    ...TENANT_READ_ONLY,
    elsewhere: 'les notifications s’envoient par /api/notifications/',
    search: ['title'],
    fields: [
      ...plain('id', 'tenantId', 'userId', 'kind', 'level', 'title'),
      { key: 'body', long: true },
      ...plain('link', 'read', 'readAt', 'createdBy', 'createdAt'),
    ],
  },
  {
    name: 'task_runs',
    label: 'Tâches de fond',
    table: taskRuns,
    ...TENANT_READ_ONLY,
    elsewhere: 'les tâches se lancent par /api/celery/',
    search: ['taskName', 'status'],
    fields: [
      ...plain('id', 'tenantId', 'taskName', 'status', 'meta'),
      { key: 'result', long: true },
      ...plain('args', 'requestedBy', 'trigger', 'createdAt', 'dateDone'),
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
    ...NEWEST_FIRST,
    search: ['recipient', 'subject'],
    // No body: it may hold a password reset link.
    fields: plain('id', 'recipient', 'subject', 'createdAt', 'sentAt'),
  },
];
