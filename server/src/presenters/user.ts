import { permissionsFor } from '../../../contract/permissions.ts';
import type { MembershipView, UserRow } from '../repositories/users.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

export type ProfileRole = 'admin' | 'manager' | 'user' | 'readonly';

/** spec §6: superuser is admin, staff is manager, otherwise the role held in the current tenant. */
export function deriveRole(user: UserRow, current: MembershipView | undefined): ProfileRole {
  if (user.isSuperuser) return 'admin';
  if (user.isStaff) return 'manager';
  return current?.role === 'readonly' ? 'readonly' : 'user';
}

/** The fields every answer about an account opens with, on the wire (the reply schemas are built on it). */
export const AccountSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  is_active: Type.Boolean(),
  date_joined: Type.String({ format: 'date-time' }),
  last_login: Nullable(Type.String({ format: 'date-time' })),
});

/** The fields every answer about an account opens with (the profile, the administration's user list). */
export function presentAccount(
  user: Pick<UserRow, 'id' | 'username' | 'email' | 'firstName' | 'lastName' | 'isActive' | 'dateJoined' | 'lastLogin'>,
): Static<typeof AccountSchema> {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    is_active: user.isActive,
    date_joined: user.dateJoined.toISOString(),
    last_login: user.lastLogin?.toISOString() ?? null,
  };
}

const ROLES = ['admin', 'manager', 'user', 'readonly'] as const satisfies readonly ProfileRole[];
const TenantRef = Type.Object({ id: Type.String(), name: Type.String() });

/** The spec §3 user profile on the wire: the account fields, the role and the tenants. */
export const ProfileSchema = Type.Object(
  {
    ...AccountSchema.properties,
    role: Choice(ROLES),
    is_staff: Type.Boolean(),
    is_superuser: Type.Boolean(),
    tenants: Type.Array(TenantRef),
    tenant_memberships: Type.Array(
      Type.Object({ tenant_id: Type.String(), tenant_name: Type.String(), role: Choice(ROLES) }),
    ),
    active_features: Type.Array(Type.String()),
    permissions: Type.Array(Type.String()),
    current_tenant: Nullable(TenantRef),
  },
  { title: 'Profile', description: 'Le profil de l’utilisateur (spec §3)' },
);
export type Profile = Static<typeof ProfileSchema>;

/** The spec §3 user profile: exactly these fields leave the server. */
export function presentProfile(
  user: UserRow,
  memberships: MembershipView[],
  currentTenant?: { id: string; name: string },
): Profile {
  const current: MembershipView | undefined = currentTenant
    ? (memberships.find((m) => m.tenantId === currentTenant.id) ?? {
        tenantId: currentTenant.id,
        tenantName: currentTenant.name,
        role: 'admin',
      })
    : (memberships.find((m) => m.tenantId === user.defaultTenantId) ?? memberships[0]);
  return {
    ...presentAccount(user),
    role: deriveRole(user, current),
    is_staff: user.isStaff,
    is_superuser: user.isSuperuser,
    tenants: memberships.map((m) => ({ id: m.tenantId, name: m.tenantName })),
    tenant_memberships: memberships.map((m) => ({ tenant_id: m.tenantId, tenant_name: m.tenantName, role: m.role })),
    // No feature flags yet; the permissions are those of the role held in the current tenant (contract/permissions.ts).
    active_features: [] as string[],
    permissions: permissionsFor({
      isSuperuser: user.isSuperuser,
      isStaff: user.isStaff,
      tenantRole: current?.role ?? null,
    }),
    current_tenant: current ? { id: current.tenantId, name: current.tenantName } : null,
  };
}
