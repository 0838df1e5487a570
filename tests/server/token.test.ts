import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { eq } from 'drizzle-orm';
import { users } from '../../server/src/db/schema.ts';
import { signIn, TEST_PASSWORD } from './helpers.ts';
import { backend, useTestApp } from './support/app.ts';
import { USER_FIELDS } from './support/contract.ts';

describe(`sign-in and profile (${backend})`, () => {
  const t = useTestApp();

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/token/', payload: payload as string, headers });

  it('signs in by username and returns tokens, lifetime and the profile', async () => {
    const res = await post({ username: 'manager', password: TEST_PASSWORD });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.access.split('.')).toHaveLength(3);
    expect(body.refresh.split('.')).toHaveLength(3);
    expect(body.expires_in).toBe(3600);
    expect(body.user).toMatchObject({
      username: 'manager',
      first_name: 'Claire',
      last_name: 'Dubois',
      email: 'claire.dubois@acme-securite.fr',
      is_active: true,
      is_staff: true,
      is_superuser: false,
      role: 'manager',
      current_tenant: { name: 'Acme Sécurité' },
    });
    expect(body.user.last_login).not.toBeNull();
    expect(body.user).not.toHaveProperty('password_hash');
    expect(body.user).not.toHaveProperty('passwordHash');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('accepts the email, the identifier field and any letter case', async () => {
    for (const payload of [
      { email: 'claire.dubois@acme-securite.fr', password: TEST_PASSWORD },
      { identifier: 'MANAGER', password: TEST_PASSWORD },
      { username: 'Claire.Dubois@Acme-Securite.fr', password: TEST_PASSWORD },
    ]) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(200);
      expect(res.json().user.username).toBe('manager');
    }
  });

  it('answers the same 400 for a wrong password and an unknown user', async () => {
    const wrong = await post({ username: 'manager', password: 'not-the-password' });
    const unknown = await post({ username: 'nobody', password: 'not-the-password' });
    expect(wrong.statusCode).toBe(400);
    expect(unknown.statusCode).toBe(400);
    expect(wrong.json()).toEqual({ detail: 'Invalid credentials', code: 'invalid_credentials' });
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('refuses an inactive account with the same message', async () => {
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.username, 'lecteur'));
    const res = await post({ username: 'lecteur', password: TEST_PASSWORD });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toBe('Invalid credentials');
    await t.database.db.update(users).set({ isActive: true }).where(eq(users.username, 'lecteur'));
  });

  it('rejects bad input with a 4xx and a message, never a 5xx', async () => {
    const missing = await post({ username: 'manager' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'invalid', fields: { password: expect.any(Array) } });

    const noLogin = await post({ password: TEST_PASSWORD });
    expect(noLogin.statusCode).toBe(400);
    expect(noLogin.json().detail).toBe('Username is required');

    const unknownField = await post({ username: 'manager', password: TEST_PASSWORD, is_superuser: true });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().fields).toHaveProperty('is_superuser');

    const wrongType = await post({ username: ['manager'], password: TEST_PASSWORD });
    expect(wrongType.statusCode).toBe(400);

    const malformed = await post('{"username": "manager", ', { 'content-type': 'application/json' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().detail).toBe('Corps JSON invalide.');

    const huge = await post({ username: 'manager', password: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().detail).toBe('Requête trop volumineuse.');
  });

  it('derives the profile role from the flags and the tenant membership (spec §6)', async () => {
    const roles: Record<string, string> = { admin: 'admin', manager: 'manager', analyste: 'user', lecteur: 'readonly' };
    for (const [username, role] of Object.entries(roles)) {
      const { access } = await signIn(t.app, username);
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/users/me/',
        headers: { authorization: `Bearer ${access}` },
      });
      expect(me.statusCode).toBe(200);
      expect(me.json().role, username).toBe(role);
      // The permissions the screens gate on: those of the role held in the current tenant (contract/permissions.ts).
      const permissions = me.json().permissions as string[];
      expect(permissions.includes('change_content'), username).toBe(role !== 'readonly');
      expect(permissions.includes('delete_user'), username).toBe(role === 'admin');
    }
  });

  it('serves the profile on /api/users/me/ and /api/current-user/ with Bearer or Token', async () => {
    const { access } = await signIn(t.app, 'admin');
    for (const [url, scheme] of [
      ['/api/users/me/', 'Bearer'],
      ['/api/current-user/', 'Token'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `${scheme} ${access}` } });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.username).toBe('admin');
      expect(body.role).toBe('admin');
      expect(body.tenants.map((x: { name: string }) => x.name)).toEqual(['Acme Sécurité', 'Banque Horizon']);
      expect(Object.keys(body).sort()).toEqual(
        [...USER_FIELDS, 'tenants', 'tenant_memberships', 'active_features', 'permissions', 'current_tenant'].sort(),
      );
    }
  });

  it('chooses the current tenant from X-Tenant-ID among the memberships', async () => {
    const { access, user } = await signIn(t.app, 'admin');
    const horizon = (user.tenants as { id: string; name: string }[]).find((x) => x.name === 'Banque Horizon')!;
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/',
      headers: { authorization: `Bearer ${access}`, 'x-tenant-id': horizon.id },
    });
    expect(res.json().current_tenant).toEqual({ id: horizon.id, name: 'Banque Horizon' });
  });

  it('refuses missing, malformed, foreign-signed and refresh tokens with 401', async () => {
    const { refresh } = await signIn(t.app, 'analyste');
    const forged = await new SignJWT({ type: 'access', username: 'admin', is_superuser: true })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('1')
      .setIssuer('vigie')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    const expired = await new SignJWT({ type: 'access', username: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('1')
      .setIssuer('vigie')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode('test-secret-that-is-long-enough-for-hs256-0123456789'));
    const cases: [string | undefined, string][] = [
      [undefined, 'not_authenticated'],
      ['Bearer not.a.jwt', 'token_not_valid'],
      ['Bearer garbage', 'token_not_valid'],
      [`Bearer ${forged}`, 'token_not_valid'],
      [`Bearer ${expired}`, 'token_not_valid'],
      [`Bearer ${refresh}`, 'token_not_valid'],
    ];
    for (const [authorization, code] of cases) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/users/me/',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode, authorization).toBe(401);
      expect(res.json().code).toBe(code);
    }
  });

  it('stops honouring a valid token once the account is deactivated', async () => {
    const { access } = await signIn(t.app, 'analyste');
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.username, 'analyste'));
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/',
      headers: { authorization: `Bearer ${access}` },
    });
    expect(res.statusCode).toBe(401);
    await t.database.db.update(users).set({ isActive: true }).where(eq(users.username, 'analyste'));
  });
});
