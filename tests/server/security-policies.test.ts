import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import {
  attemptCounters,
  auditEvents,
  loginLockouts,
  passwordResetTokens,
  refreshTokens,
  securityPolicies,
  users,
} from '../../server/src/db/schema.ts';
import { totpNow } from '../../server/src/lib/totp.ts';
import { twoFactorSetupRequired } from '../../server/src/services/security-policies.ts';
import { attemptCounterRepo, loginLockoutRepo } from '../../server/src/repositories/attempts.ts';
import { LoginLockout } from '../../server/src/services/login-lockout.ts';
import { signIn, TEST_PASSWORD } from './helpers.ts';
import { apiFor, jsonOf, type Method } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN } from './support/http.ts';
import { addUser, auditEventsOf, seededTenants } from './support/world.ts';

const PATH = '/api/security/policies';
// The seed's policies, with the test helper's raised sign-in budget.
const DEFAULTS = {
  allow_registration: true,
  password_min_length: 8,
  password_require_uppercase: false,
  password_require_lowercase: false,
  password_require_digit: false,
  password_require_symbol: false,
  login_attempts_per_minute: 1000,
  two_factor_required_roles: [],
  session_lifetime_minutes: 10080,
  lockout_threshold: 10,
  lockout_minutes: 15,
};
const MSG = {
  short: (n: number) => `Le mot de passe doit contenir au moins ${n} caractères`,
  upper: 'Le mot de passe doit contenir au moins une lettre majuscule.',
  lower: 'Le mot de passe doit contenir au moins une lettre minuscule.',
  digit: 'Le mot de passe doit contenir au moins un chiffre.',
  symbol: 'Le mot de passe doit contenir au moins un caractère spécial (ni lettre, ni chiffre, ni espace).',
};

describe(`security policies (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);

  beforeAll(async () => {
    // A tenant admin who is nothing else.
    await addUser(t.database.db, 'chef', [(await seededTenants(t.database.db)).acme, 'admin']);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const call = (who: string, method: Method, url: string, payload?: unknown) =>
    api.call(who, method, url, payload !== undefined ? { payload } : {});
  const patch = async (payload: Record<string, unknown>) =>
    jsonOf<typeof DEFAULTS & { updated_at: string }>(await call('admin', 'PATCH', PATH, payload), 200);
  const login = (username: string, password = TEST_PASSWORD, extra: Record<string, unknown> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/token/', payload: { username, password, ...extra } });

  describe('reading and changing', () => {
    it('answers every policy to superusers and tenant admins, with or without the trailing slash', async () => {
      for (const [who, url] of [
        ['admin', PATH],
        ['chef', `${PATH}/`],
      ] as const) {
        const res = await call(who, 'GET', url);
        expect(res.statusCode, who).toBe(200);
        const { updated_at, ...rest } = res.json<typeof DEFAULTS & { updated_at: string }>();
        expect(rest).toEqual(DEFAULTS);
        expect(new Date(updated_at).toISOString()).toBe(updated_at);
      }
    });

    it('refuses managers, users and viewers, and lets only superusers change anything', async () => {
      for (const who of ['manager', 'analyste', 'lecteur']) {
        expect((await call(who, 'GET', PATH)).json(), who).toEqual(FORBIDDEN);
        expect((await call(who, 'PATCH', `${PATH}/`, { allow_registration: false })).statusCode, who).toBe(403);
      }
      const chef = await call('chef', 'PATCH', PATH, { allow_registration: false });
      expect(chef.statusCode).toBe(403);
      const [denied] = await auditEventsOf(
        t.database.db,
        { eventType: 'permission_denied', username: 'chef' },
        { newestFirst: true, limit: 1 },
      );
      expect(denied?.description).toBe('Accès refusé aux politiques de sécurité');
      expect((await t.app.inject({ method: 'GET', url: PATH })).statusCode).toBe(401);
      const [row] = await t.database.db.select().from(securityPolicies);
      expect(row?.allowRegistration).toBe(true);
    });

    it('validates types and ranges, names each field, and stores nothing when one is wrong', async () => {
      const res = await call('admin', 'PATCH', PATH, {
        password_min_length: 7,
        login_attempts_per_minute: 1001,
        session_lifetime_minutes: 4,
        lockout_threshold: 2.5,
        lockout_minutes: '15',
        password_require_digit: 'oui',
        two_factor_required_roles: ['admin', 'root'],
        max_sessions: 3,
        allow_registration: false,
      });
      expect(res.statusCode).toBe(400);
      const fields = res.json<{ fields: Record<string, string[]> }>().fields;
      expect(fields).toEqual({
        password_min_length: ['« password_min_length » doit être un entier entre 8 et 128 (caractères).'],
        login_attempts_per_minute: [
          '« login_attempts_per_minute » doit être un entier entre 1 et 1\u202f000 (tentatives par minute).',
        ],
        session_lifetime_minutes: [
          '« session_lifetime_minutes » doit être un entier entre 5 et 43\u202f200 (minutes).',
        ],
        lockout_threshold: ['« lockout_threshold » doit être un entier entre 3 et 100 (échecs).'],
        lockout_minutes: ['« lockout_minutes » doit être un entier entre 1 et 1\u202f440 (minutes).'],
        password_require_digit: ['« password_require_digit » doit être vrai ou faux.'],
        two_factor_required_roles: [
          '« two_factor_required_roles » doit être une liste de rôles parmi superuser, staff, admin, manager, user, readonly.',
        ],
        max_sessions: ['Politique inconnue : « max_sessions ».'],
      });
      expect((await call('admin', 'GET', PATH)).json()).toMatchObject(DEFAULTS);
      for (const body of [[1], null, { two_factor_required_roles: 'admin' }]) {
        expect((await call('admin', 'PATCH', PATH, body)).statusCode, JSON.stringify(body)).toBe(400);
      }
    });

    it('keeps a valid change, ignores the read-only date, and audits what changed', async () => {
      const current = (await call('admin', 'GET', PATH)).json<Record<string, unknown>>();
      const after = await patch({
        ...current,
        lockout_minutes: 30,
        two_factor_required_roles: ['readonly', 'manager', 'manager'],
      });
      expect(after).toMatchObject({
        ...DEFAULTS,
        lockout_minutes: 30,
        two_factor_required_roles: ['manager', 'readonly'],
      });
      const [audit] = await auditEventsOf(
        t.database.db,
        { eventType: 'configuration_change' },
        { newestFirst: true, limit: 1 },
      );
      expect(audit).toMatchObject({ tenantId: null, username: 'admin', severity: 'WARNING' });
      expect(audit!.details.changes).toEqual({
        two_factor_required_roles: { from: [], to: ['manager', 'readonly'] },
        lockout_minutes: { from: 15, to: 30 },
      });
      // An unchanged PATCH is answered but not audited.
      const auditRows = (await t.database.db.select().from(auditEvents)).length;
      await patch({ lockout_minutes: 30 });
      expect((await t.database.db.select().from(auditEvents)).length).toBe(auditRows);
      await patch({ lockout_minutes: 15, two_factor_required_roles: [] });
    });
  });

  describe('enforced by the identity layer at once', () => {
    it('applies the password complexity to registration, both admin creations, change and reset', async () => {
      await patch({
        password_min_length: 12,
        password_require_uppercase: true,
        password_require_lowercase: true,
        password_require_digit: true,
        password_require_symbol: true,
      });
      const weak = 'motdepasse';
      const allMissing = [MSG.short(12), MSG.upper, MSG.digit, MSG.symbol];
      const strong = 'Bon-Mot-de-passe-2024';

      const register = (password: string, n: number) =>
        t.app.inject({
          method: 'POST',
          url: '/api/register/',
          payload: { username: `inscrit${n}`, email: `inscrit${n}@exemple.fr`, password },
        });
      const reg = await register(weak, 1);
      expect(reg.statusCode).toBe(400);
      expect(reg.json().fields.password).toEqual(allMissing);
      expect((await register('UNIQUEMENT MAJUSCULES 1!', 1)).json().fields.password).toEqual([MSG.lower]);
      expect((await register(strong, 1)).statusCode).toBe(201);

      const adminUser = (password: string, n: number) =>
        call('admin', 'POST', '/api/admin/users/', {
          username: `membre${n}`,
          email: `membre${n}@exemple.fr`,
          password,
        });
      const au = await adminUser(weak, 1);
      expect(au.statusCode).toBe(400);
      expect(au.json()).toMatchObject({ detail: MSG.short(12), fields: { password: allMissing } });
      expect((await adminUser(strong, 1)).statusCode).toBe(201);

      const adminAccount = (password: string, n: number) =>
        call('admin', 'POST', '/api/accounts/admin/create/', {
          username: `chefadmin${n}`,
          email: `chefadmin${n}@exemple.fr`,
          password,
        });
      const aa = await adminAccount('Longueur-suffisante', 1);
      expect(aa.statusCode).toBe(400);
      expect(aa.json()).toMatchObject({ detail: MSG.digit, fields: { password: [MSG.digit] } });
      expect((await adminAccount(strong, 1)).statusCode).toBe(201);

      const { access } = await signIn(t.app, 'inscrit1', strong);
      const change = (new_password: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/accounts/password/change/',
          headers: { authorization: `Bearer ${access}` },
          payload: { old_password: strong, new_password },
        });
      const ch = await change('nouveau mot de passe long');
      expect(ch.statusCode).toBe(400);
      expect(ch.json()).toMatchObject({
        detail: MSG.upper,
        fields: { new_password: [MSG.upper, MSG.digit, MSG.symbol] },
      });
      expect((await change('Nouveau-mot-de-passe-9')).statusCode).toBe(200);

      const [inscrit] = await t.database.db.select().from(users).where(eq(users.username, 'inscrit1'));
      const token = randomBytes(32).toString('base64url');
      await t.database.db.insert(passwordResetTokens).values({
        tokenHash: createHash('sha256').update(token).digest('hex'),
        userId: inscrit!.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      const reset = (new_password: string) =>
        t.app.inject({
          method: 'POST',
          url: '/api/accounts/password/reset/confirm/',
          payload: { token, new_password },
        });
      const rs = await reset('Sans-chiffre-ici');
      expect(rs.statusCode).toBe(400);
      expect(rs.json().fields.new_password).toEqual([MSG.digit]);
      expect((await reset('Avec-un-chiffre-1')).statusCode).toBe(200);

      await patch({
        password_min_length: 8,
        password_require_uppercase: false,
        password_require_lowercase: false,
        password_require_digit: false,
        password_require_symbol: false,
      });
      expect((await register('simple mot', 2)).statusCode).toBe(201);
    });

    it('closes and reopens self-registration', async () => {
      await patch({ allow_registration: false });
      const closed = await t.app.inject({
        method: 'POST',
        url: '/api/register/',
        payload: { username: 'ferme', email: 'ferme@exemple.fr', password: 'assez long' },
      });
      expect(closed.statusCode).toBe(403);
      expect(closed.json()).toEqual({ detail: 'Création de compte non autorisée', code: 'registration_closed' });
      await patch({ allow_registration: true });
      const open = await t.app.inject({
        method: 'POST',
        url: '/api/register/',
        payload: { username: 'ouvert', email: 'ouvert@exemple.fr', password: 'assez long' },
      });
      expect(open.statusCode).toBe(201);
    });

    it('requires 2FA per role: the session opens onto the 2FA setup only, until TOTP is on', async () => {
      // A session opened before the change is restricted at once too.
      const opened = await login('lecteur');
      expect(opened.json().two_factor_setup_required).toBe(false);
      const lecteur = opened.json<{ access: string }>();
      await patch({ two_factor_required_roles: ['user', 'readonly'] });

      const as = (access: string, method: Method, url: string, payload?: Record<string, unknown>) =>
        t.app.inject({
          method,
          url,
          headers: { authorization: `Bearer ${access}` },
          ...(payload ? { payload } : {}),
        });
      const gated = await as(lecteur.access, 'GET', '/api/assets/');
      expect(gated.statusCode).toBe(403);
      expect(gated.json()).toEqual({
        detail: 'Authentification à deux facteurs obligatoire : configurez-la pour continuer.',
        code: 'two_factor_setup_required',
        two_factor_setup_required: true,
      });

      const res = await login('analyste');
      expect(res.statusCode).toBe(200);
      const session = res.json<{ access: string; refresh: string; two_factor_setup_required: boolean }>();
      expect(session.two_factor_setup_required).toBe(true);
      expect((await as(session.access, 'GET', '/api/assets/')).json().code).toBe('two_factor_setup_required');
      expect((await as(session.access, 'GET', '/api/admin/tenants/')).statusCode).toBe(403);
      // The profile, the 2FA setup and refresh stay open.
      expect((await as(session.access, 'GET', '/api/users/me/')).statusCode).toBe(200);
      expect((await as(session.access, 'GET', '/api/accounts/2fa/status/')).json()).toEqual({
        enabled: false,
        recovery_codes_left: 0,
      });
      const refreshed = await t.app.inject({
        method: 'POST',
        url: '/api/token/refresh/',
        payload: { refresh: session.refresh },
      });
      expect(refreshed.statusCode).toBe(200);
      const enable = await as(session.access, 'POST', '/api/accounts/2fa/enable/');
      expect(enable.statusCode).toBe(200);
      const { secret } = enable.json<{ secret: string }>();
      const verify = await as(session.access, 'POST', '/api/accounts/2fa/verify/', { token: totpNow(secret) });
      expect(verify.json()).toMatchObject({ enabled: true });
      // Set up: the same session reaches the data at once, and the next sign-in asks for the code.
      expect((await as(session.access, 'GET', '/api/assets/')).statusCode).toBe(200);
      expect((await login('analyste')).json()).toMatchObject({ code: 'two_factor_required' });
      const withCode = await login('analyste', TEST_PASSWORD, { otp: totpNow(secret) });
      expect(withCode.json().two_factor_setup_required).toBe(false);

      // Roles not listed are untouched; the superuser's own console still answers.
      const manager = await login('manager');
      expect(manager.json().two_factor_setup_required).toBe(false);
      expect((await call('admin', 'GET', PATH)).statusCode).toBe(200);
      const logins = await auditEventsOf(
        t.database.db,
        { eventType: 'user_login', username: 'analyste' },
        { newestFirst: true, limit: 2 },
      );
      expect(logins.map((r) => r.description)).toEqual([
        'Connexion réussie',
        'Connexion réussie (configuration 2FA obligatoire)',
      ]);
      expect(logins[1]!.details).toMatchObject({ two_factor_setup_required: true });

      await patch({ two_factor_required_roles: [] });
      expect((await as(lecteur.access, 'GET', '/api/assets/')).statusCode).toBe(200);
      // Later tests sign analyste in with the password alone.
      await t.database.db
        .update(users)
        .set({ totpEnabled: false, totpSecret: null })
        .where(eq(users.username, 'analyste'));
    });

    it('derives the 2FA roles from every membership and from the platform flags', () => {
      const user = { isSuperuser: false, isStaff: false, totpEnabled: false };
      const policy = (roles: string[]) => ({ twoFactorRequiredRoles: roles as never[] });
      expect(twoFactorSetupRequired(policy(['admin']), user, [{ role: 'user' }, { role: 'admin' }])).toBe(true);
      expect(twoFactorSetupRequired(policy(['admin']), user, [{ role: 'user' }])).toBe(false);
      expect(twoFactorSetupRequired(policy(['superuser']), { ...user, isSuperuser: true }, [])).toBe(true);
      expect(twoFactorSetupRequired(policy(['staff']), { ...user, isStaff: true }, [])).toBe(true);
      expect(twoFactorSetupRequired(policy(['staff']), { ...user, isStaff: true, totpEnabled: true }, [])).toBe(false);
      expect(twoFactorSetupRequired(policy([]), { ...user, isSuperuser: true }, [])).toBe(false);
    });

    it('issues refresh tokens with the session lifetime, at sign-in and on refresh', async () => {
      await patch({ session_lifetime_minutes: 30 });
      const start = Date.now();
      const short = await signIn(t.app, 'manager');
      const claims = decodeJwt(short.refresh);
      expect(claims.exp! - claims.iat!).toBe(1800);
      // The access token never outlives the session.
      expect(short.expires_in).toBe(1800);
      expect(decodeJwt(short.access).exp! - decodeJwt(short.access).iat!).toBe(1800);
      const [row] = await t.database.db.select().from(refreshTokens).where(eq(refreshTokens.jti, claims.jti!));
      expect(Math.abs(row!.expiresAt.getTime() - (start + 1_800_000))).toBeLessThan(60_000);

      await patch({ session_lifetime_minutes: 43200 });
      const rotated = await t.app.inject({
        method: 'POST',
        url: '/api/token/refresh/',
        payload: { refresh: short.refresh },
      });
      const next = rotated.json<{ refresh: string; expires_in: number }>();
      expect(decodeJwt(next.refresh).exp! - decodeJwt(next.refresh).iat!).toBe(43200 * 60);
      expect(next.expires_in).toBe(3600);
      await patch({ session_lifetime_minutes: 10080 });
      const usual = await signIn(t.app, 'manager');
      expect(decodeJwt(usual.refresh).exp! - decodeJwt(usual.refresh).iat!).toBe(7 * 24 * 3600);
      expect(usual.expires_in).toBe(3600);
    });

    it('locks an account after consecutive failures, says so in French, audits it, and lets it in after the window', async () => {
      await patch({ lockout_threshold: 3, lockout_minutes: 1 });
      const realNow = Date.now.bind(Date);
      let offset = 0;
      vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);

      // Only failures in a row count: a success starts the count again.
      for (let i = 0; i < 2; i++) expect((await login('analyste', 'mauvais')).statusCode).toBe(400);
      expect((await login('analyste')).statusCode).toBe(200);
      for (let i = 0; i < 2; i++) expect((await login('analyste', 'mauvais')).statusCode).toBe(400);

      const third = await login('analyste', 'mauvais');
      expect(third.statusCode).toBe(429);
      expect(third.json()).toEqual({
        detail: 'Compte temporairement verrouillé après plusieurs échecs de connexion. Réessayez dans 1 minute.',
        code: 'account_locked',
        retry_after: 60,
      });
      expect(third.headers['retry-after']).toBe('60');
      // Locked: even the right password waits, whichever name it signs in with; others are not affected.
      const right = await login('marc.lefevre@acme-securite.fr');
      expect(right.statusCode).toBe(429);
      expect(right.json().code).toBe('account_locked');
      expect((await login('lecteur')).statusCode).toBe(200);

      const failures = await auditEventsOf(
        t.database.db,
        { eventType: 'login_failed' },
        { newestFirst: true, limit: 2 },
      );
      expect(failures[0]!.details).toMatchObject({ reason: 'account_locked', success: false });
      expect(failures[1]!.details).toMatchObject({ reason: 'wrong_password', locked: true, lockout_threshold: 3 });
      expect(failures[1]!.severity).toBe('ERROR');

      // An unknown name locks the same way, so a lock does not reveal which accounts exist.
      for (let i = 0; i < 2; i++) expect((await login('personne', 'mauvais')).statusCode).toBe(400);
      expect((await login('personne', 'mauvais')).json().code).toBe('account_locked');

      offset = 61_000;
      expect((await login('analyste')).statusCode).toBe(200);
      await patch({ lockout_threshold: 10, lockout_minutes: 15 });
    });

    it('lifts a lock when the password is reset', async () => {
      await patch({ lockout_threshold: 3 });
      for (let i = 0; i < 3; i++) await login('lecteur', 'mauvais');
      expect((await login('lecteur')).json().code).toBe('account_locked');
      const [lecteur] = await t.database.db.select().from(users).where(eq(users.username, 'lecteur'));
      const token = randomBytes(32).toString('base64url');
      await t.database.db.insert(passwordResetTokens).values({
        tokenHash: createHash('sha256').update(token).digest('hex'),
        userId: lecteur!.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      const reset = await t.app.inject({
        method: 'POST',
        url: '/api/accounts/password/reset/confirm/',
        payload: { token, new_password: 'un nouveau mot de passe' },
      });
      expect(reset.statusCode).toBe(200);
      expect((await login('lecteur', 'un nouveau mot de passe')).statusCode).toBe(200);
      await patch({ lockout_threshold: 10 });
    });
  });
});

describe(`LoginLockout (${backend})`, () => {
  const t = useTestApp({ runJobs: false });

  it('counts failures in a row, locks for the given minutes, and forgets after', async () => {
    let now = 1_000_000;
    const lockout = new LoginLockout(t.database.db, () => now);
    expect(await lockout.fail('a', 3, 2)).toBe(false);
    expect(await lockout.fail('a', 3, 2)).toBe(false);
    await lockout.clear('a');
    expect(await lockout.fail('a', 3, 2)).toBe(false);
    expect(await lockout.fail('a', 3, 2)).toBe(false);
    expect(await lockout.fail('a', 3, 2)).toBe(true);
    expect(await lockout.lockedFor('a')).toBe(120);
    expect(await lockout.lockedFor('b')).toBe(0);
    now += 119_500;
    expect(await lockout.lockedFor('a')).toBe(1);
    now += 500;
    expect(await lockout.lockedFor('a')).toBe(0);
    // After the lock the count starts from zero.
    expect(await lockout.fail('a', 3, 2)).toBe(false);
  });

  it('forgets counts left alone for a day, never a lock still running', async () => {
    const day = 24 * 3600_000;
    let now = Date.UTC(2026, 10, 1);
    const lockout = new LoginLockout(t.database.db, () => now);
    await lockout.fail('idle', 5, 1);
    await lockout.fail('locked', 1, 3 * 24 * 60);
    now += 2 * day;
    const keys = async () =>
      (await t.database.db.select({ key: loginLockouts.key }).from(loginLockouts)).map((r) => r.key);
    expect(await keys()).toEqual(expect.arrayContaining(['idle', 'locked']));
    await loginLockoutRepo.purge(t.database.db, new Date(now - day));
    expect(await keys()).not.toContain('idle');
    expect(await keys()).toContain('locked');
    expect(await lockout.lockedFor('locked')).toBeGreaterThan(0);
    const windows = await attemptCounterRepo.hit(t.database.db, 'login:ip:test', 1, 60_000, new Date(now - day));
    expect(windows.count).toBe(1);
    const counters = async () =>
      (await t.database.db.select({ key: attemptCounters.key }).from(attemptCounters)).map((r) => r.key);
    expect(await counters()).toContain('login:ip:test');
    await attemptCounterRepo.purge(t.database.db, new Date(now - 60_000));
    expect(await counters()).not.toContain('login:ip:test');
  });

  it('is one count for every process on the database', async () => {
    const now = () => 5_000_000;
    const a = new LoginLockout(t.database.db, now);
    const b = new LoginLockout(t.database.db, now);
    expect(await a.fail('shared', 3, 1)).toBe(false);
    expect(await b.fail('shared', 3, 1)).toBe(false);
    expect(await a.fail('shared', 3, 1)).toBe(true);
    expect(await b.lockedFor('shared')).toBe(60);
    await b.clear('shared');
    expect(await a.lockedFor('shared')).toBe(0);
  });
});
