/**
 * What each role may do, as permission names (spec §6: a permission is granted when it is in the profile's
 * `permissions`). The server sends the list for the profile's current tenant and checks the same rules in its
 * policies (a server test compares them role by role); the client falls back on this table when a backend sends
 * no list, or for a tenant the profile was not read in.
 */
export const PERMISSIONS = [
  /** Read the tenant's data: findings, assets, scans, threats, projects, tasks. */
  'view_content',
  /** Create and change the tenant's data, run the tenant's tasks (scan imports). */
  'change_content',
  /** Read the tenant's audit trail. */
  'view_auditlog',
  /** Send notifications to the tenant's members. */
  'send_notification',
  /** Write, publish and delete blog posts. */
  'write_blog',
  /** Accept a finding's risk (issue 21): the approver of a risk acceptance. */
  'accept_risk',
  /** spec §6 admin-only areas: the tenant's accounts. */
  'view_user',
  'add_user',
  'change_user',
  'delete_user',
  /** spec §6 admin-only areas: model administration, settings, security policies, permissions. */
  'administer_tenant',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export type MemberRole = 'admin' | 'manager' | 'user' | 'readonly';

const READ: Permission[] = ['view_content'];
const WRITE: Permission[] = [...READ, 'change_content'];
const MANAGE: Permission[] = [...WRITE, 'view_auditlog', 'send_notification', 'write_blog', 'accept_risk'];
const ADMINISTER: Permission[] = [
  ...MANAGE,
  'view_user',
  'add_user',
  'change_user',
  'delete_user',
  'administer_tenant',
];

/** A member's permissions by the role held in the tenant. */
export const ROLE_PERMISSIONS: Readonly<Record<MemberRole, readonly Permission[]>> = {
  readonly: READ,
  user: WRITE,
  manager: MANAGE,
  admin: ADMINISTER,
};

/**
 * What the staff flag adds whatever the tenant role: a manager's rights. (Platform tasks are the staff's too, a
 * platform right rather than a tenant's: the client asks `hasRole(profile, 'manager')`, staff being manager.)
 */
const STAFF: Permission[] = MANAGE;

/** The permissions of an account in a tenant: its role there (null: no membership) and its platform flags. */
export function permissionsFor(who: {
  isSuperuser: boolean;
  isStaff: boolean;
  tenantRole: string | null;
}): Permission[] {
  if (who.isSuperuser) return [...PERMISSIONS];
  const granted = new Set<Permission>(
    who.tenantRole && who.tenantRole in ROLE_PERMISSIONS ? ROLE_PERMISSIONS[who.tenantRole as MemberRole] : [],
  );
  if (who.isStaff) for (const p of STAFF) granted.add(p);
  return PERMISSIONS.filter((p) => granted.has(p));
}
