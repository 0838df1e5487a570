import { permissionsFor } from '../../../contract/permissions.ts';
import type { UserProfile } from './types.ts';

export const ROLES = ['admin', 'user', 'manager', 'readonly', 'guest'] as const;
export type Role = (typeof ROLES)[number];

/** The roles' French names, as every screen shows them. */
export const ROLE_LABELS: Record<Role, string> = {
  admin: 'Administrateur',
  manager: 'Responsable',
  user: 'Utilisateur',
  readonly: 'Lecture seule',
  guest: 'Invité',
};

/** `role`'s French name; an unknown role is shown as it is. */
export function roleLabel(role: string | null | undefined): string {
  return role ? ((ROLE_LABELS as Record<string, string>)[role] ?? role) : '—';
}

/** spec §6: superuser is admin, staff is manager, default user (an explicit role wins when it is one of ours). */
export function roleOf(profile: Partial<UserProfile> | null | undefined): Role {
  if (!profile) return 'guest';
  if (profile.is_superuser) return 'admin';
  if (typeof profile.role === 'string' && (ROLES as readonly string[]).includes(profile.role))
    return profile.role as Role;
  if (profile.is_staff) return 'manager';
  return 'user';
}

/**
 * The role held in `tenantId` (the tenant chosen in the switcher): a superuser is admin everywhere, otherwise the
 * membership's role there, else the profile's own. The one rule every screen's rights read, so a tenant switch
 * moves them all at once.
 */
export function tenantRoleOf(profile: Partial<UserProfile> | null | undefined, tenantId: string | undefined): string {
  if (!profile) return 'guest';
  if (profile.is_superuser) return 'admin';
  return profile.tenant_memberships?.find((m) => m.tenant_id === tenantId)?.role ?? roleOf(profile);
}

function isAdmin(profile: Partial<UserProfile>): boolean {
  return profile.is_superuser === true || profile.role === 'admin' || profile.role === 'superuser';
}

/** spec §6: admin or superuser has every permission; otherwise the permissions list or active_features grants it. */
export function hasPermission(profile: Partial<UserProfile> | null | undefined, permission: string): boolean {
  if (!profile) return false;
  if (isAdmin(profile)) return true;
  return (profile.permissions ?? []).includes(permission) || (profile.active_features ?? []).includes(permission);
}

/**
 * The profile's rights in `tenantId` (the tenant chosen in the switcher): the server's `permissions` when the
 * profile was read for that tenant, else those of the role held there (contract/permissions.ts; a backend that
 * sends no list, or a switch not yet confirmed by the server), and the role held there, so that `hasPermission`'s
 * « admin has every permission » means an admin of this tenant.
 */
export function rightsIn(
  profile: Partial<UserProfile> | null | undefined,
  tenantId: string | undefined,
): Partial<UserProfile> | null {
  if (!profile) return null;
  const tenantRole = tenantRoleOf(profile, tenantId);
  const readHere = Array.isArray(profile.permissions) && (!tenantId || profile.current_tenant?.id === tenantId);
  return {
    ...profile,
    role: tenantRole,
    permissions: readHere
      ? profile.permissions
      : permissionsFor({
          isSuperuser: profile.is_superuser === true,
          isStaff: profile.is_staff === true,
          tenantRole: tenantRole === 'guest' ? null : tenantRole,
        }),
  };
}

/** spec §6: a role check is an exact match on role; admin or superuser has every role. */
export function hasRole(profile: Partial<UserProfile> | null | undefined, role: string): boolean {
  if (!profile) return false;
  if (isAdmin(profile)) return true;
  return profile.role === role;
}

/** spec §6: the payload of a role update: both flags true when the role is admin or superuser. */
export function roleUpdatePayload(role: string): { role: string; is_superuser: boolean; is_staff: boolean } {
  const elevated = role === 'admin' || role === 'superuser';
  return { role, is_superuser: elevated, is_staff: elevated };
}

/** spec §6: what the UI assumes when admin permission information cannot be read (the server still decides). */
export const FALLBACK_ADMIN_PERMISSIONS = {
  is_superuser: true,
  is_staff: true,
  permissions: [
    'add_user',
    'change_user',
    'delete_user',
    'view_user',
    'add_group',
    'change_group',
    'delete_group',
    'view_group',
  ],
  groups: [] as string[],
};
