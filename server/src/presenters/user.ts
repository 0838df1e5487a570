import type { MembershipView, UserRow } from '../repositories/users.ts';

export type ProfileRole = 'admin' | 'manager' | 'user' | 'readonly';

/** §6: superuser is admin, staff is manager, otherwise the role held in the current tenant. */
export function deriveRole(user: UserRow, current: MembershipView | undefined): ProfileRole {
  if (user.isSuperuser) return 'admin';
  if (user.isStaff) return 'manager';
  return current?.role === 'readonly' ? 'readonly' : 'user';
}

/** The §3 user profile: exactly these fields leave the server. */
export function presentProfile(
  user: UserRow,
  memberships: MembershipView[],
  currentTenant?: { id: string; name: string },
) {
  const current: MembershipView | undefined = currentTenant
    ? (memberships.find((m) => m.tenantId === currentTenant.id) ?? {
        tenantId: currentTenant.id,
        tenantName: currentTenant.name,
        role: 'admin',
      })
    : (memberships.find((m) => m.tenantId === user.defaultTenantId) ?? memberships[0]);
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    is_active: user.isActive,
    date_joined: user.dateJoined.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
    role: deriveRole(user, current),
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
    tenants: memberships.map((m) => ({ id: m.tenantId, name: m.tenantName })),
    tenant_memberships: memberships.map((m) => ({ tenant_id: m.tenantId, tenant_name: m.tenantName, role: m.role })),
    // Feature flags and fine-grained permissions arrive with the identity issue.
    active_features: [] as string[],
    permissions: [] as string[],
    current_tenant: current ? { id: current.tenantId, name: current.tenantName } : null,
  };
}
