import type { MembershipRole } from '../db/schema.ts';
import type { TenantUserRow } from '../repositories/tenant-users.ts';

/** §6: superuser is admin, staff is manager, otherwise the role held in the current tenant. */
export function adminListRole(user: Pick<TenantUserRow, 'isSuperuser' | 'isStaff' | 'role'>): MembershipRole {
  if (user.isSuperuser) return 'admin';
  if (user.isStaff) return 'manager';
  return user.role;
}

/** One entry of the user list (§3 user-list sample plus last_login): exactly these fields leave the server. */
export function presentAdminUser(user: TenantUserRow) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    is_active: user.isActive,
    date_joined: user.dateJoined.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
    role: adminListRole(user),
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
  };
}

export type AdminUser = ReturnType<typeof presentAdminUser>;
