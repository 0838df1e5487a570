import type { UserProfile } from '../auth/types.ts';

/**
 * Who sees the administration console: superusers, and the admins of the current tenant (their role there, or the
 * profile's role when no membership says). The server enforces the real rights; this only hides.
 */
export function isAdministrator(profile: UserProfile | null | undefined, tenantId: string | undefined): boolean {
  if (!profile) return false;
  if (profile.is_superuser === true) return true;
  const membership = profile.tenant_memberships?.find((m) => m.tenant_id === tenantId);
  return (membership?.role ?? profile.role) === 'admin';
}

/** Platform-wide screens (logs, status, configuration, backups, models) and every platform write: superusers. */
export function isSuperuser(profile: UserProfile | null | undefined): boolean {
  return profile?.is_superuser === true;
}
