import { describe, expect, it } from 'vitest';
import { ADMIN_PERMISSION_CODENAMES } from '../server/support/contract.ts';
import { decodeJwt, jwtExpiresAt, profileFromClaims } from '../../src/lib/auth/jwt.ts';
import { isStrictProfile, isValidProfile, isValidUserData } from '../../src/lib/auth/profile-rules.ts';
import {
  FALLBACK_ADMIN_PERMISSIONS,
  hasPermission,
  hasRole,
  rightsIn,
  roleOf,
  roleUpdatePayload,
} from '../../src/lib/auth/roles.ts';

// JWT segments are base64url of UTF-8 JSON.
const b64 = (o: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(o))))
    .replace(/=+$/, '')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
const jwt = (claims: unknown) => `${b64({ alg: 'HS256' })}.${b64(claims)}.sig`;

describe('JWT decoding (spec §5)', () => {
  it('decodes three dot-separated parts, including non-ASCII claims', () => {
    expect(decodeJwt(jwt({ sub: '7', name: 'Hélène' }))).toEqual({ sub: '7', name: 'Hélène' });
    expect(jwtExpiresAt(jwt({ exp: 1_800_000_000 }))).toBe(1_800_000_000_000);
  });

  it.each(['a.b', 'a.b.c.d', '', 'x..y', 'a.!!!.c'])('rejects %j with "Format de token JWT invalide"', (token) => {
    expect(() => decodeJwt(token)).toThrow('Format de token JWT invalide');
  });

  it('rebuilds a profile from claims: superuser → admin, staff → manager, else user', () => {
    expect(profileFromClaims({ user_id: 3, username: 'a', is_superuser: true, is_staff: true })).toMatchObject({
      id: 3,
      role: 'admin',
    });
    expect(profileFromClaims({ sub: '4', username: 'b', is_staff: true })).toMatchObject({ id: 4, role: 'manager' });
    expect(profileFromClaims({ sub: 'uuid-x', preferred_username: 'c' })).toMatchObject({
      id: 'uuid-x',
      role: 'user',
      username: 'c',
    });
    expect(profileFromClaims({ username: 'no-id' })).toBeNull();
  });
});

describe('profile validity (spec §5)', () => {
  const good = { id: 1, username: 'u', email: 'u@x.fr', is_active: true };

  it('accepts an object with an id, refuses lists and paged results', () => {
    expect(isValidProfile(good)).toBe(true);
    expect(isValidProfile({ id: 'abc' })).toBe(true);
    expect(isValidProfile([good])).toBe(false);
    expect(isValidProfile({ ...good, results: [] })).toBe(false);
    expect(isValidProfile({ ...good, count: 1 })).toBe(false);
    expect(isValidProfile({ username: 'u' })).toBe(false);
    expect(isValidProfile(null)).toBe(false);
  });

  it('applies the stricter check', () => {
    expect(isStrictProfile(good)).toBe(true);
    expect(isStrictProfile({ ...good, id: 0 })).toBe(false);
    expect(isStrictProfile({ ...good, id: 'abc' })).toBe(false);
    expect(isStrictProfile({ ...good, username: ' ' })).toBe(false);
    expect(isStrictProfile({ ...good, email: 'nope' })).toBe(false);
    expect(isStrictProfile({ ...good, is_active: 'yes' })).toBe(false);
    expect(isStrictProfile({ id: 2, username: 'u', email: 'u@x' })).toBe(true);
  });

  it('applies the user-data check, rejecting inactive accounts', () => {
    expect(isValidUserData(good)).toBe(true);
    expect(isValidUserData({ ...good, is_active: false })).toBe(false);
    expect(isValidUserData({ id: 1, username: 'u', email: 'u@x.fr' })).toBe(false);
    expect(isValidUserData({ ...good, is_staff: 'true' })).toBe(false);
    expect(isValidUserData({ ...good, email: '' })).toBe(false);
  });
});

describe('roles and permissions (spec §6)', () => {
  it('derives the role from flags', () => {
    expect(roleOf({ is_superuser: true })).toBe('admin');
    expect(roleOf({ is_staff: true })).toBe('manager');
    expect(roleOf({ role: 'readonly' })).toBe('readonly');
    expect(roleOf({})).toBe('user');
    expect(roleOf(null)).toBe('guest');
  });

  it('grants admins everything, others by permissions or active_features, roles by exact match', () => {
    expect(hasPermission({ is_superuser: true }, 'anything')).toBe(true);
    expect(hasPermission({ role: 'user', permissions: ['view_user'] }, 'view_user')).toBe(true);
    expect(hasPermission({ role: 'user', active_features: ['kiosk'] }, 'kiosk')).toBe(true);
    expect(hasPermission({ role: 'user' }, 'view_user')).toBe(false);
    expect(hasRole({ role: 'manager' }, 'manager')).toBe(true);
    expect(hasRole({ role: 'manager' }, 'Manager')).toBe(false);
    expect(hasRole({ role: 'admin' }, 'readonly')).toBe(true);
  });

  it('reads rights in the tenant chosen: the server’s list where it read the profile, else the role held there', () => {
    const profile = {
      role: 'user',
      permissions: ['view_content', 'change_content'],
      current_tenant: { id: 'a', name: 'A' },
      tenant_memberships: [
        { tenant_id: 'a', tenant_name: 'A', role: 'user' },
        { tenant_id: 'b', tenant_name: 'B', role: 'readonly' },
        { tenant_id: 'c', tenant_name: 'C', role: 'admin' },
      ],
    };
    expect(hasPermission(rightsIn(profile, 'a'), 'change_content')).toBe(true);
    expect(hasPermission(rightsIn(profile, 'a'), 'view_auditlog')).toBe(false);
    // Switched to B before the server confirmed: the reader's rights, not A's list.
    expect(hasPermission(rightsIn(profile, 'b'), 'change_content')).toBe(false);
    expect(hasPermission(rightsIn(profile, 'b'), 'view_content')).toBe(true);
    // An admin of C has every permission there, and the admin role there.
    expect(hasPermission(rightsIn(profile, 'c'), 'delete_user')).toBe(true);
    expect(hasRole(rightsIn(profile, 'c'), 'admin')).toBe(true);
    expect(hasRole(rightsIn(profile, 'a'), 'admin')).toBe(false);
    // A backend that sends no list: the role's (a staff account reads the audit trail).
    expect(hasPermission(rightsIn({ role: 'manager', is_staff: true }, undefined), 'view_auditlog')).toBe(true);
    expect(hasPermission(rightsIn({ role: 'readonly' }, undefined), 'change_content')).toBe(false);
    expect(rightsIn(null, 'a')).toBeNull();
  });

  it('sends both flags true only for admin or superuser role updates', () => {
    expect(roleUpdatePayload('admin')).toEqual({ role: 'admin', is_superuser: true, is_staff: true });
    expect(roleUpdatePayload('superuser')).toEqual({ role: 'superuser', is_superuser: true, is_staff: true });
    expect(roleUpdatePayload('manager')).toEqual({ role: 'manager', is_superuser: false, is_staff: false });
  });

  it('has the spec §6 fallback permission set', () => {
    expect(FALLBACK_ADMIN_PERMISSIONS).toEqual({
      is_superuser: true,
      is_staff: true,
      permissions: ADMIN_PERMISSION_CODENAMES,
      groups: [],
    });
  });
});
