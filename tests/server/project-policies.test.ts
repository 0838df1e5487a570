import { describe, expect, it } from 'vitest';
import type { MembershipRole, TeamRole } from '../../server/src/db/schema.ts';
import {
  canCreateProject,
  hasProjectAccess,
  projectAccess,
  type Actor,
  type ProjectAccess,
} from '../../server/src/policies/index.ts';

const actor = (tenantRole: MembershipRole | null, flags: Partial<Actor> = {}): Actor => ({
  userId: 7,
  username: 'u',
  isSuperuser: false,
  isStaff: false,
  tenantRole,
  ...flags,
});
const seat = (role: TeamRole, isOwner = false) => ({ role, isOwner });

describe('project access (docs/api-projects.md "Who may do what")', () => {
  it('gives tenant admins, managers, staff and superusers every project to manage', () => {
    for (const a of [
      actor('admin'),
      actor('manager'),
      actor(null, { isStaff: true }),
      actor(null, { isSuperuser: true }),
    ]) {
      expect(projectAccess(a, null)).toBe('manage');
    }
  });

  it('maps the team seat of an ordinary member: owner and ADMIN manage, MEMBER edits, VIEWER reads', () => {
    const user = actor('user');
    const cases: [ReturnType<typeof seat> | null, ProjectAccess][] = [
      [null, 'none'],
      [seat('VIEWER'), 'read'],
      [seat('MEMBER'), 'edit'],
      [seat('ADMIN'), 'manage'],
      [seat('VIEWER', true), 'manage'],
    ];
    for (const [s, expected] of cases) expect(projectAccess(user, s), JSON.stringify(s)).toBe(expected);
  });

  it('never lets a tenant viewer write, and gives nothing outside the tenant', () => {
    expect(projectAccess(actor('readonly'), seat('ADMIN', true))).toBe('read');
    expect(projectAccess(actor('readonly'), null)).toBe('none');
    expect(projectAccess(actor(null), seat('ADMIN'))).toBe('none');
    expect(canCreateProject(actor('readonly'))).toBe(false);
    expect(canCreateProject(actor('user'))).toBe(true);
    expect(canCreateProject(actor(null))).toBe(false);
  });

  it('orders the access levels', () => {
    expect(hasProjectAccess('manage', 'edit')).toBe(true);
    expect(hasProjectAccess('edit', 'edit')).toBe(true);
    expect(hasProjectAccess('read', 'edit')).toBe(false);
    expect(hasProjectAccess('none', 'read')).toBe(false);
  });
});
