import { describe, expect, it } from 'vitest';
import { permissionsFor, type Permission } from '../../contract/permissions.ts';
import { MEMBERSHIP_ROLES } from '../../server/src/db/schema/access.ts';
import {
  canAcceptRisk,
  canAdministerModels,
  canManageUsers,
  canRead,
  canReadAudit,
  canSendNotifications,
  canWrite,
  canWriteBlog,
  type Actor,
} from '../../server/src/policies/index.ts';

// The profile's `permissions` (what the client gates its screens on) must say what the server's policies decide.
const RULES: [Permission, (a: Actor) => boolean][] = [
  ['view_content', canRead],
  ['change_content', canWrite],
  ['view_auditlog', canReadAudit],
  ['send_notification', canSendNotifications],
  ['write_blog', canWriteBlog],
  ['accept_risk', canAcceptRisk],
  ['view_user', canManageUsers],
  ['add_user', canManageUsers],
  ['change_user', canManageUsers],
  ['delete_user', canManageUsers],
  ['administer_tenant', canAdministerModels],
];

describe('permissions table and policies agree', () => {
  const roles = [...MEMBERSHIP_ROLES, null];
  for (const tenantRole of roles)
    for (const isStaff of [false, true])
      for (const isSuperuser of [false, true])
        it(`role ${tenantRole ?? 'none'}, staff ${isStaff}, superuser ${isSuperuser}`, () => {
          const actor: Actor = { userId: 1, username: 'x', isSuperuser, isStaff, tenantRole };
          const granted = permissionsFor({ isSuperuser, isStaff, tenantRole });
          for (const [permission, policy] of RULES)
            expect(granted.includes(permission), permission).toBe(policy(actor));
        });

  it('a reader reads, a user writes, a manager reads the trail, an admin administers', () => {
    const of = (tenantRole: string) => permissionsFor({ isSuperuser: false, isStaff: false, tenantRole });
    expect(of('readonly')).toEqual(['view_content']);
    expect(of('user')).toEqual(['view_content', 'change_content']);
    expect(of('manager')).toEqual([
      'view_content',
      'change_content',
      'view_auditlog',
      'send_notification',
      'write_blog',
      'accept_risk',
    ]);
    expect(of('admin')).toContain('delete_user');
    expect(permissionsFor({ isSuperuser: false, isStaff: false, tenantRole: null })).toEqual([]);
  });
});
