import { tenantRoleOf } from '../../lib/auth/roles.ts';
import type { UserProfile } from '../../lib/auth/types.ts';

/** The roles that pair and manage screens in a tenant (docs/displays.md: its administrators and managers). */
const MANAGING_ROLES = new Set(['admin', 'manager']);

/**
 * Whether the user pairs and manages the screens of `tenantId`: an administrator or a manager there (a superuser is
 * an administrator everywhere; staff without a membership there counts as manager, spec §6). The server decides;
 * this shows the « Mode affichage » entry and the page's forms. Small on purpose: the layout imports it.
 */
export function managesDisplaysIn(profile: UserProfile | null | undefined, tenantId: string | undefined): boolean {
  return !!profile && MANAGING_ROLES.has(tenantRoleOf(profile, tenantId));
}
