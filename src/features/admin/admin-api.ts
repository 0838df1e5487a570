import { apiRequest, apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { messageOf } from '../../lib/error-message.ts';
import { kvGet, kvSet } from '../../lib/storage.ts';
import { FALLBACK_ADMIN_PERMISSIONS } from '../../lib/auth/roles.ts';
import { session } from '../../lib/auth/session.ts';
import { ADMIN_TENANTS_CACHE_KEY } from './admin-local.ts';
import { DEFAULT_PAGE_SIZE } from '../../../contract/paged.ts';

/**
 * The administration calls (docs/api-admin.md) and the spec §8 "Administration reads" fallbacks: a read never throws,
 * it answers what it could get and says where it came from; writes rethrow the server's French error.
 */

/** A read that fell back says why (`error`, `status`); `origin` undefined = nothing but the empty fallback. */
export interface AdminRead<T> {
  data: T;
  origin: DataOrigin | undefined;
  error?: string;
  /** The HTTP status of the first failure (0 = no answer), e.g. to tell a refusal from an outage. */
  status?: number;
}

function failure(err: unknown): { error: string; status: number } {
  return { error: messageOf(err), status: err instanceof ApiError ? err.status : 0 };
}

/** A refusal or a lost session: another path would be refused too, so the chain stops there. */
const isRefusal = (err: unknown) => err instanceof ApiError && (err.status === 401 || err.status === 403);

/** Tries each path in turn (spec §7 fallback paths); all failing gives `empty()` with the first failure. */
async function readChain<T>(
  paths: readonly string[],
  normalize: (raw: unknown) => T,
  empty: () => T,
  query?: Record<string, string | number | boolean | undefined>,
): Promise<AdminRead<T>> {
  let first: { error: string; status: number } | undefined;
  for (const path of paths) {
    try {
      const { data, origin } = await apiRequestWithOrigin<unknown>(path, {
        ...(query ? { query } : {}),
        allowForbidden: true,
      });
      return { data: normalize(data), origin };
    } catch (err) {
      first ??= failure(err);
      if (isRefusal(err)) break;
    }
  }
  return { data: empty(), origin: undefined, ...first };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------------------------
// Tenants

export const SUBSCRIPTION_PLANS = ['Free', 'Business', 'Enterprise'] as const;
export const TENANT_STATUSES = ['active', 'suspended'] as const;

/** spec §3 Tenant, plus `deleted_at` (docs/api-admin.md). */
export interface Tenant {
  id: string;
  name: string;
  domain: string;
  subscription_plan: string;
  status: string;
  created_at: string;
  user_count: number;
  contact_email: string | null;
  logo_url: string | null;
  deleted_at?: string | null;
}

export interface TenantInput {
  name: string;
  domain: string;
  subscription_plan?: string;
  status?: string;
  contact_email: string | null;
  logo_url: string | null;
}

/** Where the tenant list came from, in the spec §8 order. */
export type TenantSource = 'admin' | 'fallback-path' | 'local-cache' | 'sample' | 'memory' | 'empty';

export interface TenantList extends AdminRead<Tenant[]> {
  source: TenantSource;
}

/** What admin_tenants_cache holds: the last list read, or the seeded sample tenants. */
export interface StoredTenants {
  storedAt: number;
  sample: boolean;
  tenants: Tenant[];
}

/** spec §8: two sample tenants, seeded when nothing else exists; their names say they are not real. */
export const SAMPLE_TENANTS: readonly Tenant[] = [
  {
    id: 'exemple-1',
    name: 'Exemple — Organisation Alpha',
    domain: 'alpha.exemple.fr',
    subscription_plan: 'Enterprise',
    status: 'active',
    created_at: '2025-01-15T09:00:00.000Z',
    user_count: 12,
    contact_email: 'contact@alpha.exemple.fr',
    logo_url: null,
    deleted_at: null,
  },
  {
    id: 'exemple-2',
    name: 'Exemple — Organisation Bêta',
    domain: 'beta.exemple.fr',
    subscription_plan: 'Business',
    status: 'active',
    created_at: '2025-03-02T14:30:00.000Z',
    user_count: 4,
    contact_email: null,
    logo_url: null,
    deleted_at: null,
  },
];

export const TENANTS_PATH = '/admin/tenants/';
/** spec §7 fallback path: the tenants the caller may see. */
export const TENANTS_FALLBACK_PATH = '/tenants/';

function isTenant(v: unknown): v is Tenant {
  return isObject(v) && (typeof v.id === 'string' || typeof v.id === 'number') && typeof v.name === 'string';
}

/** An array is expected; a paged {results} is accepted too. */
export function tenantsOf(raw: unknown): Tenant[] {
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.results) ? raw.results : null;
  if (!list) throw new ApiError(200, 'Format de réponse non reconnu');
  return list.filter(isTenant).map((t) => ({
    ...t,
    id: String(t.id),
    domain: typeof t.domain === 'string' ? t.domain : '',
    user_count: typeof t.user_count === 'number' ? t.user_count : 0,
    contact_email: t.contact_email ?? null,
    logo_url: t.logo_url ?? null,
  }));
}

/** The last list read in this session, per user: the "cache" step, when local storage is unavailable. */
let memoryCopy: { userId: string; storedAt: number; tenants: Tenant[] } | undefined;

const userKey = () => String(session.value?.profile.id ?? '');

async function remember(tenants: Tenant[]): Promise<void> {
  const live = tenants.filter((t) => !t.deleted_at);
  memoryCopy = { userId: userKey(), storedAt: Date.now(), tenants: live };
  await kvSet(ADMIN_TENANTS_CACHE_KEY, {
    storedAt: memoryCopy.storedAt,
    sample: false,
    tenants: live,
  } satisfies StoredTenants).catch(() => undefined);
}

function isStoredTenants(v: unknown): v is StoredTenants {
  return isObject(v) && typeof v.storedAt === 'number' && typeof v.sample === 'boolean' && Array.isArray(v.tenants);
}

/** Tests: forget the in-memory copy. */
export function resetTenantMemory(): void {
  memoryCopy = undefined;
}

/**
 * spec §8 tenant list: GET /admin/tenants/, then /tenants/, then admin_tenants_cache (the last list read, or two sample
 * tenants seeded when nothing was ever stored), then this session's in-memory copy, then an empty list. Every
 * successful read refreshes the stored copy.
 */
export async function fetchTenants({ includeDeleted = false } = {}): Promise<TenantList> {
  let first: { error: string; status: number } | undefined;
  const paths: [string, TenantSource][] = [
    [TENANTS_PATH, 'admin'],
    [TENANTS_FALLBACK_PATH, 'fallback-path'],
  ];
  for (const [path, source] of paths) {
    try {
      const query = includeDeleted && source === 'admin' ? { include_deleted: true } : undefined;
      const { data, origin } = await apiRequestWithOrigin<unknown>(path, {
        ...(query ? { query } : {}),
        allowForbidden: true,
      });
      const tenants = tenantsOf(data);
      // Sample answers (mock mode) are not worth keeping as the user's last list.
      if (origin.source !== 'sample') await remember(tenants);
      return { data: tenants, origin, source };
    } catch (err) {
      first ??= failure(err);
    }
  }

  let stored: unknown;
  let readable = true;
  try {
    stored = await kvGet<unknown>(ADMIN_TENANTS_CACHE_KEY);
  } catch {
    readable = false;
  }
  if (readable && stored === undefined) {
    const seeded: StoredTenants = { storedAt: Date.now(), sample: true, tenants: [...SAMPLE_TENANTS] };
    await kvSet(ADMIN_TENANTS_CACHE_KEY, seeded).catch(() => undefined);
    return { data: seeded.tenants, origin: { source: 'sample' }, source: 'sample', ...first };
  }
  if (readable && isStoredTenants(stored)) {
    const tenants = stored.tenants.filter(isTenant);
    return stored.sample
      ? { data: tenants, origin: { source: 'sample' }, source: 'sample', ...first }
      : { data: tenants, origin: { source: 'cache', storedAt: stored.storedAt }, source: 'local-cache', ...first };
  }
  if (memoryCopy && memoryCopy.userId === userKey()) {
    return {
      data: memoryCopy.tenants,
      origin: { source: 'cache', storedAt: memoryCopy.storedAt },
      source: 'memory',
      ...first,
    };
  }
  return { data: [], origin: undefined, source: 'empty', ...first };
}

/** Writes rethrow (spec §8): the screen shows the server's French message and its field errors. */
export function createTenant(input: TenantInput): Promise<Tenant> {
  return apiRequest<Tenant>(TENANTS_PATH, { method: 'POST', body: { ...input }, allowForbidden: true });
}

export function updateTenant(id: string, changes: Partial<TenantInput>): Promise<Tenant> {
  return apiRequest<Tenant>(`${TENANTS_PATH}${encodeURIComponent(id)}/`, {
    method: 'PATCH',
    body: { ...changes },
    allowForbidden: true,
  });
}

/** A soft delete: the server wants the tenant's domain typed back as the confirmation. */
export async function deleteTenant(id: string, confirm: string): Promise<void> {
  await apiRequest<unknown>(`${TENANTS_PATH}${encodeURIComponent(id)}/`, {
    method: 'DELETE',
    body: { confirm },
    allowForbidden: true,
  });
}

export function restoreTenant(id: string): Promise<Tenant> {
  return apiRequest<Tenant>(`${TENANTS_PATH}${encodeURIComponent(id)}/restore/`, {
    method: 'POST',
    allowForbidden: true,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// System settings and security policies (no spec §8 fallback: a failed read is shown as such)

export type SettingValue = string | number | boolean;
export type SystemSettings = Record<string, SettingValue>;

export const SETTINGS_PATH = '/system/settings/';

export async function fetchSystemSettings(): Promise<{ data: SystemSettings; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<unknown>(SETTINGS_PATH, { allowForbidden: true });
  return { data: isObject(data) ? (data as SystemSettings) : {}, origin };
}

export async function updateSystemSettings(changes: SystemSettings): Promise<SystemSettings> {
  const data = await apiRequest<unknown>(SETTINGS_PATH, { method: 'PATCH', body: changes, allowForbidden: true });
  return isObject(data) ? (data as SystemSettings) : {};
}

export type PolicyValue = number | boolean | string[];
export type SecurityPolicies = Record<string, PolicyValue | string | null>;

export const POLICIES_PATH = '/security/policies';

export async function fetchSecurityPolicies(): Promise<{ data: SecurityPolicies; origin: DataOrigin }> {
  const { data, origin } = await apiRequestWithOrigin<unknown>(POLICIES_PATH, { allowForbidden: true });
  return { data: isObject(data) ? (data as SecurityPolicies) : {}, origin };
}

export async function updateSecurityPolicies(changes: Record<string, PolicyValue>): Promise<SecurityPolicies> {
  const data = await apiRequest<unknown>(POLICIES_PATH, { method: 'PATCH', body: changes, allowForbidden: true });
  return isObject(data) ? (data as SecurityPolicies) : {};
}

// ---------------------------------------------------------------------------------------------------------------
// Admin permissions

/** spec §3 Admin permission set. */
export interface AdminPermissions {
  is_superuser: boolean;
  is_staff: boolean;
  permissions: string[];
  groups: string[];
}

const EMPTY_PERMISSIONS: AdminPermissions = { is_superuser: false, is_staff: false, permissions: [], groups: [] };

/** spec §7: tried in order. */
export const PERMISSION_PATHS = ['/admin/permissions/', '/accounts/permissions/', '/custom_admin/permissions/'];

function permissionsOf(raw: unknown): AdminPermissions {
  if (!isObject(raw)) throw new ApiError(200, 'Format de réponse non reconnu');
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    is_superuser: raw.is_superuser === true,
    is_staff: raw.is_staff === true,
    permissions: strings(raw.permissions),
    groups: strings(raw.groups),
  };
}

export interface PermissionsRead extends AdminRead<AdminPermissions> {
  /** True when nothing could be read and the spec §6 fallback is shown (the UI's assumption, never the server's). */
  assumed: boolean;
}

/**
 * spec §6: when the permission set cannot be read, the UI assumes superuser and staff with every user and group
 * permission. A 403 is an answer (not an outage): it is shown as a refusal, not papered over.
 */
export async function fetchAdminPermissions(): Promise<PermissionsRead> {
  let first: { error: string; status: number } | undefined;
  for (const path of PERMISSION_PATHS) {
    try {
      const { data, origin } = await apiRequestWithOrigin<unknown>(path, { allowForbidden: true });
      return { data: permissionsOf(data), origin, assumed: false };
    } catch (err) {
      first ??= failure(err);
      if (isRefusal(err)) return { data: { ...EMPTY_PERMISSIONS }, origin: undefined, assumed: false, ...first };
    }
  }
  return {
    data: { ...FALLBACK_ADMIN_PERMISSIONS, permissions: [...FALLBACK_ADMIN_PERMISSIONS.permissions], groups: [] },
    origin: undefined,
    assumed: true,
    ...first,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Configuration, status, logs

/** docs/api-admin.md "Configuration": the runtime part (read-only) and the editable keys. */
export interface AdminConfig {
  editable?: { backup_location?: string | null; backup_retention_count?: number };
  updated_at?: string | null;
  updated_by?: string | null;
  [key: string]: unknown;
}

export const CONFIG_PATHS = ['/admin/config/', '/system/config/'] as const;

/** spec §8: configuration falls back to an empty object. */
export function fetchConfig(): Promise<AdminRead<AdminConfig>> {
  return readChain<AdminConfig>(
    CONFIG_PATHS,
    (raw) => (isObject(raw) ? raw : {}),
    () => ({}),
  );
}

export async function updateConfig(changes: Record<string, string | number | null>): Promise<AdminConfig> {
  const data = await apiRequest<unknown>(CONFIG_PATHS[0], { method: 'PATCH', body: changes, allowForbidden: true });
  return isObject(data) ? data : {};
}

export interface PartStatus {
  /** 'ok' or 'down' (other values shown as sent). */
  status?: string;
  error?: string;
}

/** docs/api-admin.md "Health and status"; every part optional, since spec §8 falls back to an empty object. */
export interface SystemStatus {
  /** 'ok' or 'degraded'. */
  status?: string;
  checked_at?: string;
  version?: string;
  uptime_seconds?: number;
  node_version?: string;
  maintenance_mode?: boolean | null;
  database?: PartStatus & { kind?: string; latency_ms?: number; size_bytes?: number };
  job_queue?: PartStatus & { workers?: boolean; queue_depth?: number; active?: number; failed_last_24h?: number };
  disk?: PartStatus & { path?: string; free_bytes?: number; total_bytes?: number };
  cve_database?: PartStatus & { last_update?: string | null };
  counts?: PartStatus & { tenants?: number; users?: number; active_users?: number };
  logs?: { buffered?: number; written?: number; dropped?: number };
}

export const STATUS_PATHS = ['/admin/status/', '/system/status/'] as const;

/** spec §8: status falls back to an empty object. */
export function fetchStatus(): Promise<AdminRead<SystemStatus>> {
  return readChain<SystemStatus>(
    STATUS_PATHS,
    (raw) => (isObject(raw) ? raw : {}),
    () => ({}),
  );
}

/** The service's own answer to GET /system/health/ (docs/api-admin.md "Health and status"). */
export interface ServiceHealth {
  /** 'ok' or 'error'. */
  status?: string;
  /** 'ok' or 'down'. */
  database?: string;
  version?: string;
  /** Why the service is unavailable (503 only). */
  detail?: string;
}

/** spec §7 "system": the service's liveness, public (no session needed). */
export const HEALTH_PATH = '/system/health/';

/**
 * The service's health (spec §7 GET /system/health/). Never throws: a 503 still carries the service's answer
 * (status error, and why); no answer at all is said in `error` with status 0.
 */
export async function fetchHealth(): Promise<AdminRead<ServiceHealth>> {
  try {
    const { data, origin } = await apiRequestWithOrigin<unknown>(HEALTH_PATH, { allowForbidden: true });
    return { data: isObject(data) ? data : {}, origin };
  } catch (err) {
    const data = err instanceof ApiError && isObject(err.data) ? (err.data as ServiceHealth) : {};
    return { data, origin: undefined, ...failure(err) };
  }
}

/** A line of GET /system/logs/: the logs console's line without who, where and the context. */
export type SystemLogLine = Pick<
  LogLine,
  'id' | 'time' | 'level' | 'message' | 'request_id' | 'method' | 'url' | 'status_code'
>;

/** spec §7 "system": the newest lines at or above a level (warnings and worse unless asked). */
export const SYSTEM_LOGS_PATH = '/system/logs/';
/** How many of them the status screen shows. */
export const SYSTEM_LOGS_SHOWN = 10;

/** spec §7 GET /system/logs/; spec §8 "logs give an empty list with total 0" when they cannot be read. */
export function fetchSystemLogs(
  limit = SYSTEM_LOGS_SHOWN,
  minLevel?: string,
): Promise<AdminRead<{ logs: SystemLogLine[]; total: number }>> {
  return readChain([SYSTEM_LOGS_PATH], logPageOf, () => ({ logs: [], total: 0 }), {
    limit,
    ...(minLevel ? { min_level: minLevel } : {}),
  });
}

export const LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'critical'] as const;

export interface LogLine {
  id: number | string;
  time: string;
  level: string;
  message: string;
  request_id?: string | null;
  method?: string | null;
  url?: string | null;
  status_code?: number | null;
  response_time_ms?: number | null;
  tenant_id?: string | null;
  user_id?: number | string | null;
  username?: string | null;
  context?: Record<string, unknown> | null;
}

export interface LogPage {
  logs: LogLine[];
  total: number;
}

export const LOG_PATHS = ['/admin/logs/', '/logs/'] as const;
export const LOG_EXPORT_PATH = '/admin/logs/export/';
/** docs/api-admin.md: the server's default page size. */
export const LOG_PAGE_SIZE = DEFAULT_PAGE_SIZE;

function logPageOf(raw: unknown): LogPage {
  if (!isObject(raw)) throw new ApiError(200, 'Format de réponse non reconnu');
  const logs = Array.isArray(raw.logs) ? (raw.logs as LogLine[]) : [];
  return { logs, total: typeof raw.total === 'number' ? raw.total : logs.length };
}

/** spec §8: logs fall back to an empty list with total 0. */
export function fetchLogs(query: Record<string, string | number | undefined>): Promise<AdminRead<LogPage>> {
  return readChain<LogPage>(LOG_PATHS, logPageOf, () => ({ logs: [], total: 0 }), query);
}

// ---------------------------------------------------------------------------------------------------------------
// Backups

export type BackupStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

/** docs/api-admin.md "Backups". */
export interface Backup {
  id: string;
  filename: string;
  engine: string;
  /** A BackupStatus; others are shown as sent. */
  status: string;
  size: number | null;
  sha256: string | null;
  note: string | null;
  error: string | null;
  created_by: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface RestoreSummary {
  detail: string;
  backup?: Backup;
  backup_created_at?: string;
  tables?: number;
  rows?: number;
  documents?: number;
  missing_documents?: string[];
  duration_ms?: number;
}

export const BACKUP_PATHS = ['/admin/backups/', '/system/backups/'] as const;
/** The word the server wants typed back before a restore (compared trimmed, any case). */
export const RESTORE_CONFIRMATION = 'RESTAURER';

function backupsOf(raw: unknown): Backup[] {
  const list = isObject(raw) && Array.isArray(raw.backups) ? raw.backups : Array.isArray(raw) ? raw : null;
  if (!list) throw new ApiError(200, 'Format de réponse non reconnu');
  return list.filter((b): b is Backup => isObject(b) && typeof b.id === 'string');
}

/** spec §8: backups fall back to an empty list. */
export function fetchBackups(): Promise<AdminRead<Backup[]>> {
  return readChain<Backup[]>(BACKUP_PATHS, backupsOf, () => []);
}

const backupPath = (id: string) => `${BACKUP_PATHS[0]}${encodeURIComponent(id)}/`;

/** spec §8: create, restore and delete errors are rethrown to the screen. */
export function createBackup(note: string): Promise<Backup> {
  return apiRequest<Backup>(BACKUP_PATHS[0], {
    method: 'POST',
    body: note.trim() ? { note: note.trim() } : {},
    allowForbidden: true,
  });
}

export function restoreBackup(id: string, confirm: string): Promise<RestoreSummary> {
  return apiRequest<RestoreSummary>(`${backupPath(id)}restore/`, {
    method: 'POST',
    body: { confirm },
    // The restore runs inside the request: a big database takes a while.
    timeoutMs: 600_000,
    allowForbidden: true,
  });
}

export async function deleteBackup(id: string): Promise<void> {
  await apiRequest<unknown>(backupPath(id), { method: 'DELETE', allowForbidden: true });
}

export function backupDownloadPath(id: string): string {
  return `${backupPath(id)}download/`;
}
