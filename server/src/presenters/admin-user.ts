import { MEMBERSHIP_ROLES, type MembershipRole } from '../db/schema.ts';
import type { TenantUserRow } from '../repositories/tenant-users.ts';
import { Choice, Type, type Static } from '../schemas/common.ts';
import { AccountSchema, presentAccount } from './user.ts';

/** spec §6: superuser is admin, staff is manager, otherwise the role held in the current tenant. */
export function adminListRole(user: Pick<TenantUserRow, 'isSuperuser' | 'isStaff' | 'role'>): MembershipRole {
  if (user.isSuperuser) return 'admin';
  if (user.isStaff) return 'manager';
  return user.role;
}

/** One entry of the user list (spec §3 user-list sample plus last_login) on the wire. */
export const AdminUserSchema = Type.Object(
  {
    ...AccountSchema.properties,
    role: Choice(MEMBERSHIP_ROLES),
    is_staff: Type.Boolean(),
    is_superuser: Type.Boolean(),
  },
  { title: 'AdminUser' },
);
export type AdminUser = Static<typeof AdminUserSchema>;

/** One entry of the user list: exactly these fields leave the server. */
export function presentAdminUser(user: TenantUserRow): AdminUser {
  return {
    ...presentAccount(user),
    role: adminListRole(user),
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
  };
}
