import type { MembershipRole, TeamRole } from '../db/schema.ts';

/** Who is acting: the account flags and the role held in the current tenant. */
export interface Actor {
  userId: number;
  username: string;
  isSuperuser: boolean;
  isStaff: boolean;
  /** Role in the current tenant; null when the actor has no membership there. */
  tenantRole: MembershipRole | null;
}

// Every authorization rule lives here, so a route asks a question instead of re-deriving the answer.

/** spec §6: superuser is admin; a tenant's own administrators administer that tenant. */
export function isAdmin(actor: Actor): boolean {
  return actor.isSuperuser || actor.tenantRole === 'admin';
}

/** Admin-only areas of spec §6: user listing, creation, update, deletion, permissions. */
export function canManageUsers(actor: Actor): boolean {
  return isAdmin(actor);
}

/** Creating an administrator account (POST /api/accounts/admin/create/) is for superusers only. */
export function canCreateAdminAccount(actor: Actor): boolean {
  return actor.isSuperuser;
}

/** Managers and admins may change content; viewers only read. */
export function canWrite(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || (actor.tenantRole !== null && actor.tenantRole !== 'readonly');
}

/**
 * A finding's risk accepted (issue 21): its approver is a tenant manager or administrator (staff and superusers too),
 * never the analyst who asks.
 */
export function canAcceptRisk(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || actor.tenantRole === 'admin' || actor.tenantRole === 'manager';
}

/** Platform background tasks (CVE updates, indexing) touch every tenant's reference data: staff only. */
export function canRunPlatformTasks(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff;
}

/**
 * A platform task's details (its arguments, result and what it recorded: a backup's id, checksum and row counts, say)
 * describe the whole platform: staff only. Everyone else sees that it ran (name, status, dates, progress).
 */
export function canReadPlatformTaskDetails(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff;
}

/** Reading a tenant's data: any member (viewers included), staff and superusers. */
export function canRead(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || actor.tenantRole !== null;
}

/** The audit trail (docs/api-audit.md "Who may read"): tenant admins and managers, staff and superusers. */
export function canReadAudit(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || actor.tenantRole === 'admin' || actor.tenantRole === 'manager';
}

/** Only superusers grant or remove the platform flags (is_superuser, is_staff). */
export function canChangePlatformFlags(actor: Actor): boolean {
  return actor.isSuperuser;
}

/** A tenant admin administers the tenant's members, not the platform's superusers. */
export function canAdministerAccount(actor: Actor, target: { isSuperuser: boolean }): boolean {
  return actor.isSuperuser || !target.isSuperuser;
}

/**
 * Account fields (email, names, activity) are global: changing them on a staff account, or on one that also
 * opens another tenant, would let a tenant admin take over access elsewhere (new email, then a reset).
 */
export function canEditAccountFields(actor: Actor, target: { isStaff: boolean }, sharedElsewhere: boolean): boolean {
  return actor.isSuperuser || (!target.isStaff && !sharedElsewhere);
}

// ---------------------------------------------------------------------------------------------------------------
// Projects (docs/api-projects.md "Who may do what").

export type ProjectAccess = 'none' | 'read' | 'edit' | 'manage';
const ACCESS_RANK: Record<ProjectAccess, number> = { none: 0, read: 1, edit: 2, manage: 3 };

/** The caller's seat on a project's team, if any. */
export interface TeamSeat {
  role: TeamRole;
  isOwner: boolean;
}

/** Superusers, staff, tenant admins and managers see and manage every project of the tenant. */
export function seesEveryProject(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || actor.tenantRole === 'admin' || actor.tenantRole === 'manager';
}

export function projectAccess(actor: Actor, seat: TeamSeat | null): ProjectAccess {
  if (!canRead(actor)) return 'none';
  let access: ProjectAccess = 'none';
  if (seesEveryProject(actor)) access = 'manage';
  else if (seat) access = seat.isOwner || seat.role === 'ADMIN' ? 'manage' : seat.role === 'MEMBER' ? 'edit' : 'read';
  // A tenant viewer never writes, whatever the team says.
  return access !== 'none' && !canWrite(actor) ? 'read' : access;
}

export function hasProjectAccess(access: ProjectAccess, need: Exclude<ProjectAccess, 'none'>): boolean {
  return ACCESS_RANK[access] >= ACCESS_RANK[need];
}

/** Creating a project: any tenant member who may write. */
export function canCreateProject(actor: Actor): boolean {
  return canWrite(actor) && (actor.tenantRole !== null || actor.isSuperuser || actor.isStaff);
}

export const FORBIDDEN_MESSAGE = "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource";

// ---------------------------------------------------------------------------------------------------------------
// Notifications and blog (docs/api-notifications.md, docs/api-blog.md).

/** Tenant admins and managers (and staff, superusers) send notifications to the tenant's members. */
export function canSendNotifications(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || actor.tenantRole === 'admin' || actor.tenantRole === 'manager';
}

/** Tenant admins and managers (and staff, superusers) write, edit, publish and delete blog posts and images. */
export function canWriteBlog(actor: Actor): boolean {
  return canSendNotifications(actor);
}

// ---------------------------------------------------------------------------------------------------------------
// Administration (issue 9).

/** System settings are platform-wide: administrators read them, superusers change them. */
export function canReadSystemSettings(actor: Actor): boolean {
  return isAdmin(actor);
}

export function canChangeSystemSettings(actor: Actor): boolean {
  return actor.isSuperuser;
}

/** Maintenance mode keeps the API open to administrators only. */
export function passesMaintenance(actor: Actor | undefined): boolean {
  return actor !== undefined && isAdmin(actor);
}

// ---------------------------------------------------------------------------------------------------------------
// Tenants and security policies (issue 9, docs/api-admin.md "Tenants", "Security policies").

/** The tenant console: superusers, and admins of at least one tenant (who see only those tenants). */
export function canAdministerTenants(actor: Actor, rolesHeld: readonly MembershipRole[]): boolean {
  return actor.isSuperuser || rolesHeld.includes('admin');
}

/** Editing a tenant's details: superusers, or an admin of that very tenant. */
export function canEditTenant(actor: Actor, roleThere: MembershipRole | null): boolean {
  return actor.isSuperuser || roleThere === 'admin';
}

/** Creating, deleting and restoring tenants, and changing their status or plan: superusers only. */
export function canGovernTenants(actor: Actor): boolean {
  return actor.isSuperuser;
}

/** Every tenant appears in a superuser's lists; anyone else sees only the tenants they belong to. */
export function seesEveryTenant(actor: Actor): boolean {
  return actor.isSuperuser;
}

/** Security policies are platform-wide: administrators read them, superusers change them. */
export function canReadSecurityPolicies(actor: Actor): boolean {
  return isAdmin(actor);
}

export function canChangeSecurityPolicies(actor: Actor): boolean {
  return actor.isSuperuser;
}

// ---------------------------------------------------------------------------------------------------------------
// Logs, status and configuration (issue 9, docs/api-admin.md "Logs", "Health and status", "Configuration").
// Each shows the whole platform (every tenant's requests and counts, paths and storage): superusers only; staff
// and tenant admins are refused like everyone else.

export function canReadServerLogs(actor: Actor): boolean {
  return actor.isSuperuser;
}

/** The latest problem lines (GET /api/system/logs/) come from the same platform-wide store: superusers only. */
export function canReadSystemLogs(actor: Actor): boolean {
  return canReadServerLogs(actor);
}

export function canReadSystemStatus(actor: Actor): boolean {
  return actor.isSuperuser;
}

export function canReadConfiguration(actor: Actor): boolean {
  return actor.isSuperuser;
}

export function canChangeConfiguration(actor: Actor): boolean {
  return actor.isSuperuser;
}

// ---------------------------------------------------------------------------------------------------------------
// Model administration (issue 9, docs/api-admin.md "Models").

/** The generic model console: superusers (every tenant) and the current tenant's admins (that tenant only). */
export function canAdministerModels(actor: Actor): boolean {
  return isAdmin(actor);
}

/** Platform models (the mail outbox) belong to no tenant: superusers only; the rest to every administrator. */
export function canReadAdminModel(actor: Actor, platformOnly: boolean): boolean {
  return actor.isSuperuser || (!platformOnly && actor.tenantRole === 'admin');
}

/** Models written by tenant admins too, or by superusers only (accounts and memberships govern access). */
export function canWriteAdminModel(actor: Actor, writers: 'admin' | 'superuser'): boolean {
  return actor.isSuperuser || (writers === 'admin' && actor.tenantRole === 'admin');
}

/** Only superusers see every tenant's rows and may name another tenant (?tenant=). */
export function seesEveryTenantsRows(actor: Actor): boolean {
  return actor.isSuperuser;
}

// ---------------------------------------------------------------------------------------------------------------
// Backups (issue 9, docs/api-admin.md "Backups"). An archive holds every tenant's data, password hashes included,
// and a restore replaces the whole platform: superusers only.

export function canManageBackups(actor: Actor): boolean {
  return actor.isSuperuser;
}

// ---------------------------------------------------------------------------------------------------------------
// Wall screens (issue 22, docs/displays.md).

/** Pairing, listing, changing and revoking the tenant's wall screens: its administrators and managers (staff too). */
export function canManageDisplays(actor: Actor): boolean {
  return actor.isSuperuser || actor.isStaff || actor.tenantRole === 'admin' || actor.tenantRole === 'manager';
}

/**
 * A display may show a tenant where its approver manages displays: as an administrator or a manager there (staff with
 * a membership there), or as a superuser.
 */
export function canShowOnDisplay(actor: Actor, roleThere: MembershipRole | null): boolean {
  return (
    actor.isSuperuser || (roleThere !== null && (actor.isStaff || roleThere === 'admin' || roleThere === 'manager'))
  );
}

export const DISPLAY_FORBIDDEN_MESSAGE = 'Écran d’affichage : accès limité aux panneaux du mur.';

/** The findings list's largest page a display reads (the Act queue and KEV matches). */
export const DISPLAY_PAGE_SIZE_MAX = 25;

/** The only routes a display's credential reaches, all of them GET: the kiosk's reads and its own settings. */
export const DISPLAY_READS: readonly string[] = [
  '/api/displays/me/',
  '/api/vulnerabilities/summary/',
  '/api/dashboard/summary/',
  '/api/threats/summary/',
  '/api/celery/tasks/',
  '/api/vulnerabilities/vulnerabilities/',
  '/api/vulnerabilities/sla-report/',
  '/api/dashboard/risks/',
  '/api/dashboard/events/',
];

/**
 * The one thing a display sends: its own client audit events (its failed reads, spec §8), kept in its tenant's trail
 * under its name. Nothing it sends there changes any data.
 */
export const DISPLAY_AUDIT_EVENTS = '/api/audit/events/';

/**
 * A display is never a person: it may read the routes of DISPLAY_READS (by the route's registered path), send its
 * own audit events, nothing else. The findings list in pages of DISPLAY_PAGE_SIZE_MAX at most.
 */
export function displayMayCall(method: string, route: string | undefined, query: unknown): boolean {
  if (method === 'POST' && route === DISPLAY_AUDIT_EVENTS) return true;
  if (method !== 'GET' || route === undefined || !DISPLAY_READS.includes(route)) return false;
  if (route !== '/api/vulnerabilities/vulnerabilities/') return true;
  const size = (query as { page_size?: unknown } | undefined)?.page_size;
  return (
    size === undefined || (typeof size === 'string' && /^\d{1,3}$/.test(size) && Number(size) <= DISPLAY_PAGE_SIZE_MAX)
  );
}
