import { recordPermissionCheck } from '../audit-log.ts';
import { hasPermission, rightsIn, tenantRoleOf } from './roles.ts';
import type { UserProfile } from './types.ts';

/**
 * Who sees the administration console: superusers, and the admins of the current tenant (their role there, or the
 * profile's role when no membership says). The server enforces the real rights; this only hides. The check is
 * recorded (`permission_check` « admin_console ») at most once per screen visit.
 */
export function isAdministrator(profile: UserProfile | null | undefined, tenantId: string | undefined): boolean {
  if (!profile) return false;
  const superuser = profile.is_superuser === true;
  const tenantRole = tenantRoleOf(profile, tenantId);
  const allowed = hasPermission(rightsIn(profile, tenantId), 'administer_tenant');
  recordPermissionCheck('admin_console', allowed, { role: superuser ? 'superuser' : (tenantRole ?? null) });
  return allowed;
}

/**
 * Platform-wide screens (logs, status, configuration, backups, models) and every platform write: superusers.
 * Recorded (`permission_check` « platform_admin ») at most once per screen visit.
 */
export function isSuperuser(profile: UserProfile | null | undefined): boolean {
  const allowed = profile?.is_superuser === true;
  if (profile) recordPermissionCheck('platform_admin', allowed);
  return allowed;
}
