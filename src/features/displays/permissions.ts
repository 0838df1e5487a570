import { tenantRoleOf } from '../../lib/auth/roles.ts';
import type { UserProfile } from '../../lib/auth/types.ts';

/** The roles that pair and manage screens in a tenant (docs/displays.md: its administrators and managers). */
const MANAGING_ROLES = new Set(['admin', 'manager']);

/**
 * Whether the user pairs and manages the screens of `tenantId`: an administrator or a manager there, staff, or a
 * superuser (the server's `canManageDisplays`). The server decides; this shows the « Mode affichage » entry and the
 * page's forms. Small on purpose: the layout imports it.
 */
export function managesDisplaysIn(profile: UserProfile | null | undefined, tenantId: string | undefined): boolean {
  if (!profile) return false;
  if (profile.is_superuser || profile.is_staff) return true;
  return MANAGING_ROLES.has(tenantRoleOf(profile, tenantId));
}

/**
 * Whether a screen this user pairs may show `tenantId` (the server's `canShowOnDisplay`): a superuser anywhere; else
 * an administrator or a manager there, or staff with a membership there.
 */
export function mayShowOnDisplays(profile: UserProfile, tenantId: string): boolean {
  if (profile.is_superuser) return true;
  if (profile.is_staff && profile.tenant_memberships?.some((m) => m.tenant_id === tenantId)) return true;
  return MANAGING_ROLES.has(tenantRoleOf(profile, tenantId));
}
