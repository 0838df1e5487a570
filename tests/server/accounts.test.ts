import { createHash } from 'node:crypto';
import net from 'node:net';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import {
  auditEvents,
  mailOutbox,
  memberships,
  passwordResetTokens,
  recoveryCodes,
  securityPolicies,
  users,
} from '../../server/src/db/schema.ts';
import { totpNow } from '../../server/src/lib/totp.ts';
import { createMailer } from '../../server/src/services/mailer.ts';
import { signIn, TEST_PASSWORD, type TestApp } from './helpers.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf } from './support/world.ts';

/** Every answer of these routes is checked for leaked secrets: a hash or a sealed TOTP seed. */
function assertNoSecrets(res: LightMyRequestResponse): void {
  expect(res.body).not.toMatch(/scrypt\$|password_?hash|passwordHash|totp_?secret|totpSecret|"v1\./i);
}

function client(t: () => TestApp) {
  return async (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    opts: { payload?: unknown; access?: string; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.access) headers.authorization = `Bearer ${opts.access}`;
    const res = await t().app.inject({
      method,
      url,
      headers,
      ...(opts.payload === undefined ? {} : { payload: opts.payload as string }),
    });
    assertNoSecrets(res);
    return res;
  };
}

/** Sign-in is rate-limited per IP; these suites sign in often, so they get a larger budget. */
async function relaxLimits(t: TestApp, perMinute = 1000) {
  await t.database.db.update(securityPolicies).set({ loginAttemptsPerMinute: perMinute });
}

async function userRow(t: TestApp, username: string) {
  const [row] = await t.database.db.select().from(users).where(eq(users.username, username));
  return row;
}

async function auditCount(t: TestApp, eventType: string, username?: string) {
  const [row] = await t.database.db
    .select({ n: sql<number>`count(*)::int` })
    .from(auditEvents)
    .where(and(eq(auditEvents.eventType, eventType), username ? eq(auditEvents.username, username) : undefined));
  return row!.n;
}

describe(`registration (${backend})`, () => {
  const t = useTestApp();
  const api = client(() => t);
  const register = (payload: unknown) => api('POST', '/api/register/', { payload });
  const INVALID = "Données d'inscription invalides";

  it('creates a plain account with no rights and no tenant, whatever role is asked for', async () => {
    const res = await register({
      username: 'nouveau.compte',
      email: 'Nouveau@Exemple.FR',
      password: 'un mot de passe sûr',
      first_name: 'Nina',
      last_name: 'Roux',
      role: 'admin',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      username: 'nouveau.compte',
      email: 'Nouveau@exemple.fr',
      first_name: 'Nina',
      last_name: 'Roux',
      is_active: true,
      is_staff: false,
      is_superuser: false,
      role: 'user',
      tenants: [],
      tenant_memberships: [],
      current_tenant: null,
      last_login: null,
    });
    expect(body.id).toEqual(expect.any(Number));

    const row = (await userRow(t, 'nouveau.compte'))!;
    expect(row.isStaff || row.isSuperuser).toBe(false);
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(await t.database.db.select().from(memberships).where(eq(memberships.userId, row.id))).toEqual([]);
    const [audit] = await auditEventsOf(t.database.db, { eventType: 'user_created', userId: row.id });
    expect(audit).toMatchObject({ tenantId: null, username: 'nouveau.compte' });

    // The password given at registration signs in; the account has no tenant yet.
    const session = await signIn(t.app, 'nouveau.compte', 'un mot de passe sûr');
    expect(session.user.current_tenant).toBeNull();
  });

  it('names each missing field with its French message', async () => {
    const res = await register({});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail: INVALID,
      code: 'invalid',
      fields: {
        username: ["Nom d'utilisateur requis"],
        email: ['Email requis'],
        password: ['Mot de passe requis'],
      },
    });
    const blank = await register({ username: '  ', email: '', password: '' });
    expect(blank.json().fields).toEqual(res.json().fields);
  });

  it('checks the username pattern, the email and the policy length', async () => {
    await t.database.db.update(securityPolicies).set({ passwordMinLength: 12 });
    const res = await register({ username: 'a b', email: 'pas-un-email', password: 'onze-caract' });
    expect(res.statusCode).toBe(400);
    const { detail, fields } = res.json();
    expect(detail).toBe(INVALID);
    expect(fields.username).toHaveLength(1);
    expect(fields.email).toEqual(['Adresse email invalide.']);
    expect(fields.password).toEqual(['Le mot de passe doit contenir au moins 12 caractères']);

    for (const username of ['ab', 'x'.repeat(151), 'émile', 'a/b']) {
      const bad = await register({ username, email: 'ok@exemple.fr', password: 'douze-caract' });
      expect(bad.statusCode, username).toBe(400);
      expect(Object.keys(bad.json().fields), username).toEqual(['username']);
    }
    const exactly = await register({ username: 'a.b@c+d-e_f', email: 'min12@exemple.fr', password: 'douze-caract' });
    expect(exactly.statusCode).toBe(201);
    await t.database.db.update(securityPolicies).set({ passwordMinLength: 8 });
  });

  it('requires the confirmation to match when it is given', async () => {
    const res = await register({
      username: 'confirme',
      email: 'confirme@exemple.fr',
      password: TEST_PASSWORD,
      confirm_password: 'autre chose',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail: INVALID,
      code: 'invalid',
      fields: { confirm_password: ['Les mots de passe ne correspondent pas'] },
    });
    const ok = await register({
      username: 'confirme',
      email: 'confirme@exemple.fr',
      password: TEST_PASSWORD,
      confirm_password: TEST_PASSWORD,
    });
    expect(ok.statusCode).toBe(201);
  });

  it('refuses a taken email (409, any letter case) and a taken username (400)', async () => {
    const email = await register({
      username: 'quelquun',
      email: 'CLAIRE.DUBOIS@acme-securite.fr',
      password: TEST_PASSWORD,
    });
    expect(email.statusCode).toBe(409);
    expect(email.json()).toEqual({ detail: 'Un compte avec cet email existe déjà', code: 'duplicate_email' });

    for (const username of ['Manager', 'admin@vigie.local']) {
      const res = await register({ username, email: `${username.length}@libre.fr`, password: TEST_PASSWORD });
      expect(res.statusCode, username).toBe(400);
      expect(res.json()).toEqual({
        detail: INVALID,
        code: 'invalid',
        fields: { username: ['Un utilisateur portant ce nom existe déjà.'] },
      });
    }
    // Sign-in accepts either name, so an email may not equal someone's username (nor the reverse).
    expect(
      (await register({ username: 'chez@exemple.fr', email: 'chez@ailleurs.fr', password: TEST_PASSWORD })).statusCode,
    ).toBe(201);
    const asEmail = await register({ username: 'autre', email: 'CHEZ@exemple.fr', password: TEST_PASSWORD });
    expect(asEmail.statusCode).toBe(409);
    expect(await userRow(t, 'autre')).toBeUndefined();
  });

  it('refuses fields it does not know, such as privilege flags', async () => {
    const res = await register({
      username: 'pirate',
      email: 'pirate@exemple.fr',
      password: TEST_PASSWORD,
      is_superuser: true,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ detail: INVALID, code: 'invalid', fields: { is_superuser: expect.any(Array) } });
    const wrongType = await register({ username: ['x'], email: 'pirate@exemple.fr', password: TEST_PASSWORD });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().fields.username).toEqual(['Valeur invalide.']);
    expect(await userRow(t, 'pirate')).toBeUndefined();
  });

  it('says without a session whether registration is open, as the policy has it', async () => {
    const open = await api('GET', '/api/register/');
    expect(open.statusCode).toBe(200);
    expect(open.json()).toEqual({ allowed: true });
    expect(open.headers['cache-control']).toBe('no-store');
    await t.database.db.update(securityPolicies).set({ allowRegistration: false });
    expect((await api('GET', '/api/register/')).json()).toEqual({ allowed: false });
    await t.database.db.update(securityPolicies).set({ allowRegistration: true });
  });

  it('answers 403 when the platform closes registration', async () => {
    await t.database.db.update(securityPolicies).set({ allowRegistration: false });
    const res = await register({ username: 'ferme', email: 'ferme@exemple.fr', password: TEST_PASSWORD });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ detail: 'Création de compte non autorisée', code: 'registration_closed' });
    expect(await userRow(t, 'ferme')).toBeUndefined();
    await t.database.db.update(securityPolicies).set({ allowRegistration: true });
    expect((await register({ username: 'ferme', email: 'ferme@exemple.fr', password: TEST_PASSWORD })).statusCode).toBe(
      201,
    );
  });
});

describe(`own profile (${backend})`, () => {
  const t = useTestApp();
  let access: string;
  beforeAll(async () => {
    access = (await signIn(t.app, 'analyste')).access;
  });
  const api = client(() => t);
  const patch = (payload: unknown, token = access) => api('PATCH', '/api/accounts/me/', { payload, access: token });

  it('requires authentication', async () => {
    const res = await api('PATCH', '/api/accounts/me/', { payload: { first_name: 'X' } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('not_authenticated');
  });

  // The e-mail itself changes only once confirmed: tests/server/email-change.test.ts.
  it('updates the names at once and answers the profile', async () => {
    const res = await patch({ first_name: ' Marcel ', last_name: 'Lefort' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      username: 'analyste',
      first_name: 'Marcel',
      last_name: 'Lefort',
      email: 'marc.lefevre@acme-securite.fr',
      role: 'user',
      current_tenant: { name: 'Acme Sécurité' },
    });
    expect(res.json()).not.toHaveProperty('detail');
    const me = await api('GET', '/api/users/me/', { access });
    expect(me.json()).toMatchObject({ first_name: 'Marcel', email: 'marc.lefevre@acme-securite.fr' });
    expect(await auditCount(t, 'user_updated', 'analyste')).toBe(1);
    // Keeping one's own email (the domain in any letter case) is no change: no password asked.
    expect((await patch({ email: 'marc.lefevre@ACME-securite.fr' })).statusCode).toBe(200);
  });

  it("refuses another account's email with 409", async () => {
    const res = await patch({ email: 'ADMIN@vigie.local' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ detail: 'Un compte avec cet email existe déjà', code: 'duplicate_email' });
    expect((await userRow(t, 'analyste'))!.email).toBe('marc.lefevre@acme-securite.fr');
  });

  it('validates the email and refuses other fields', async () => {
    const bad = await patch({ email: 'sans-arobase' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      detail: 'Adresse email invalide.',
      code: 'invalid',
      fields: { email: ['Adresse email invalide.'] },
    });
    const empty = await patch({ email: ' ' });
    expect(empty.json().fields).toEqual({ email: ['Email requis'] });

    for (const payload of [{ is_superuser: true }, { username: 'root' }]) {
      const res = await patch(payload);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().fields)).toEqual(Object.keys(payload));
    }
    const row = (await userRow(t, 'analyste'))!;
    expect(row.isSuperuser).toBe(false);
  });
});

describe(`admin account creation (${backend})`, () => {
  const t = useTestApp();
  const access: Record<string, string> = {};
  let horizonId: string;
  beforeAll(async () => {
    for (const u of ['admin', 'manager', 'analyste', 'lecteur']) {
      const s = await signIn(t.app, u);
      access[u] = s.access;
      if (u === 'admin')
        horizonId = (s.user.tenants as { id: string; name: string }[]).find((x) => x.name === 'Banque Horizon')!.id;
    }
  });
  const api = client(() => t);
  const create = (payload: unknown, as = 'admin', headers: Record<string, string> = {}) =>
    api('POST', '/api/accounts/admin/create/', { payload, access: access[as]!, headers });
  const valid = {
    username: 'admin2',
    email: 'admin2@vigie.local',
    password: 'huit-car',
    is_staff: true,
    is_superuser: true,
  };

  it('requires authentication', async () => {
    const res = await api('POST', '/api/accounts/admin/create/', { payload: valid });
    expect(res.statusCode).toBe(401);
  });

  it('refuses every account but a superuser, and records the refusal', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      const res = await create({ ...valid, username: `par-${who}` }, who);
      expect(res.statusCode, who).toBe(403);
      expect(res.json()).toEqual({ detail: 'Création de compte admin non autorisée', code: 'permission_denied' });
      expect(await auditCount(t, 'permission_denied', who)).toBe(1);
      expect(await userRow(t, `par-${who}`)).toBeUndefined();
    }
  });

  it('lists the missing fields', async () => {
    const res = await create({});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail: 'Tous les champs requis doivent être remplis',
      code: 'invalid',
      fields: {
        username: ["Nom d'utilisateur requis"],
        email: ['Email requis'],
        password: ['Mot de passe requis'],
      },
    });
    const onlyPassword = await create({ username: 'x-admin', email: 'x@vigie.local' });
    expect(onlyPassword.json()).toMatchObject({
      detail: 'Tous les champs requis doivent être remplis',
      fields: { password: ['Mot de passe requis'] },
    });
    expect(Object.keys(onlyPassword.json().fields)).toEqual(['password']);
  });

  it('requires 8 characters of password', async () => {
    const res = await create({ ...valid, password: 'sept-ca' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail: 'Le mot de passe doit contenir au moins 8 caractères',
      code: 'invalid',
      fields: { password: ['Le mot de passe doit contenir au moins 8 caractères'] },
    });
  });

  it('refuses taken emails and usernames', async () => {
    const email = await create({ ...valid, email: 'Sophie.Moreau@banque-horizon.fr' });
    expect(email.statusCode).toBe(409);
    expect(email.json()).toEqual({ detail: 'Un compte avec cet email existe déjà', code: 'duplicate_email' });
    const username = await create({ ...valid, username: 'LECTEUR' });
    expect(username.statusCode).toBe(400);
    expect(username.json().fields).toEqual({ username: ['Un utilisateur portant ce nom existe déjà.'] });
  });

  it("creates a superuser who administers the caller's current tenant", async () => {
    const res = await create({ ...valid, is_superuser: false, first_name: 'Alix' }, 'admin', {
      'x-tenant-id': horizonId,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      username: 'admin2',
      email: 'admin2@vigie.local',
      first_name: 'Alix',
      is_staff: true,
      is_superuser: true,
      role: 'admin',
      tenants: [{ id: horizonId, name: 'Banque Horizon' }],
      tenant_memberships: [{ tenant_id: horizonId, tenant_name: 'Banque Horizon', role: 'admin' }],
      current_tenant: { id: horizonId, name: 'Banque Horizon' },
    });
    const row = (await userRow(t, 'admin2'))!;
    expect(row).toMatchObject({ isStaff: true, isSuperuser: true, defaultTenantId: horizonId });
    const [audit] = await auditEventsOf(t.database.db, { eventType: 'user_created', username: 'admin' });
    expect(audit).toMatchObject({ tenantId: horizonId, details: expect.objectContaining({ created_user_id: row.id }) });

    const session = await signIn(t.app, 'admin2', 'huit-car');
    expect(session.user).toMatchObject({ role: 'admin', current_tenant: { name: 'Banque Horizon' } });
  });
});

describe(`two-factor authentication (${backend})`, () => {
  const t = useTestApp();
  let access: string;
  let secret: string;
  let recovery: string[] = [];
  beforeAll(async () => {
    await relaxLimits(t);
    access = (await signIn(t.app, 'analyste')).access;
  });
  const api = client(() => t);
  const tfa = (step: string, payload?: unknown) =>
    api(step === 'status' ? 'GET' : 'POST', `/api/accounts/2fa/${step}/`, { payload, access });
  const login = (otp?: string) =>
    api('POST', '/api/token/', { payload: { username: 'analyste', password: TEST_PASSWORD, ...(otp ? { otp } : {}) } });

  it('requires authentication on every step', async () => {
    for (const step of ['status', 'enable', 'verify', 'recovery-codes', 'disable']) {
      const res = await api(step === 'status' ? 'GET' : 'POST', `/api/accounts/2fa/${step}/`, {
        payload: step === 'verify' ? { token: '123456' } : undefined,
      });
      expect(res.statusCode, step).toBe(401);
    }
  });

  it('starts disabled and needs a code before a verification is attempted', async () => {
    expect((await tfa('status')).json()).toEqual({ enabled: false, recovery_codes_left: 0 });
    const res = await tfa('verify', { token: '123456' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('not_started');
  });

  it('hands out a new secret, stored sealed and not yet required at sign-in', async () => {
    const res = await tfa('enable');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.enabled).toBe(false);
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(body.otpauth_url).toMatch(/^otpauth:\/\/totp\/Vigie:analyste\?/);
    expect(body.otpauth_url).toContain(`secret=${body.secret}`);
    secret = body.secret;

    const row = (await userRow(t, 'analyste'))!;
    expect(row.totpEnabled).toBe(false);
    // Sealed with the current key, named by its id (format v2.<kid>.<iv>.<tag>.<data>).
    expect(row.totpSecret).toMatch(/^v2\.k[0-9a-f]{16}\./);
    expect(row.totpSecret).not.toContain(secret);
    expect((await tfa('status')).json()).toEqual({ enabled: false, recovery_codes_left: 0 });
    expect((await login()).statusCode).toBe(200);
  });

  it('turns on only with a right code', async () => {
    const missing = await tfa('verify', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toHaveProperty('token');

    const wrong = await tfa('verify', { token: totpNow(secret, Date.now() + 10 * 60_000) });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ detail: 'Code de vérification invalide.', code: 'invalid_otp' });
    expect((await tfa('status')).json()).toEqual({ enabled: false, recovery_codes_left: 0 });

    const ok = await tfa('verify', { token: totpNow(secret) });
    expect(ok.statusCode).toBe(200);
    const { enabled, recovery_codes: codes } = ok.json<{ enabled: boolean; recovery_codes: string[] }>();
    expect(enabled).toBe(true);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-hj-km-np-z2-9]{5}-[a-hj-km-np-z2-9]{5}$/);
    recovery = codes;
    // Kept as digests only.
    const kept = await t.database.db.select().from(recoveryCodes);
    expect(kept).toHaveLength(10);
    expect(kept.map((k) => k.codeHash).sort()).toEqual(
      codes.map((c) => createHash('sha256').update(c).digest('hex')).sort(),
    );
    expect((await tfa('status')).json()).toEqual({ enabled: true, recovery_codes_left: 10 });
    expect(await auditCount(t, 'two_factor_change', 'analyste')).toBe(1);

    const again = await tfa('enable');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ detail: 'La double authentification est déjà activée.', code: 'already_enabled' });
  });

  it('is then required at sign-in', async () => {
    const none = await login();
    expect(none.statusCode).toBe(403);
    expect(none.json()).toMatchObject({ detail: 'Two-factor authentication required', two_factor_required: true });
    const wrong = await login('000000' === totpNow(secret) ? '111111' : '000000');
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('invalid_otp');
    const right = await login(totpNow(secret));
    expect(right.statusCode).toBe(200);
    expect(right.json().user.username).toBe('analyste');
  });

  it('takes a recovery code in place of a code, once each, typed loosely', async () => {
    const [first, second] = recovery as [string, string];
    const used = await login(` ${first.toUpperCase().replace('-', ' ')} `);
    expect(used.statusCode).toBe(200);
    expect((await tfa('status')).json()).toEqual({ enabled: true, recovery_codes_left: 9 });
    const spent = await auditEventsOf(t.database.db, {
      eventType: 'two_factor_change',
      description: 'Code de secours utilisé à la connexion (9 restants)',
    });
    expect(spent.map((e) => e.severity)).toEqual(['WARNING']);

    const again = await login(first);
    expect(again.statusCode).toBe(403);
    expect(again.json().code).toBe('invalid_otp');
    expect((await login('abcde-fghjk')).json().code).toBe('invalid_otp');
    expect((await login(second)).statusCode).toBe(200);
    expect((await tfa('status')).json()).toMatchObject({ recovery_codes_left: 8 });
  });

  it('hands out a new set of recovery codes on proof, and the old ones stop working', async () => {
    const neither = await tfa('recovery-codes', {});
    expect(neither.statusCode).toBe(400);
    const wrong = await tfa('recovery-codes', { password: 'pas le bon' });
    expect(wrong.json().code).toBe('invalid_password');

    const fresh = await tfa('recovery-codes', { password: TEST_PASSWORD });
    expect(fresh.statusCode).toBe(200);
    const codes = fresh.json<{ recovery_codes: string[] }>().recovery_codes;
    expect(codes).toHaveLength(10);
    expect(codes.some((c) => recovery.includes(c))).toBe(false);
    expect((await login(recovery[2])).json().code).toBe('invalid_otp');
    expect((await login(codes[0])).statusCode).toBe(200);
    recovery = codes.slice(1);
  });

  it('turns off only with a right code or password', async () => {
    for (const payload of [{}, undefined]) {
      const neither = await tfa('disable', payload);
      expect(neither.statusCode).toBe(400);
      expect(neither.json().detail).toBe('Code de vérification ou mot de passe requis.');
    }
    const badCode = await tfa('disable', { token: totpNow(secret, Date.now() - 10 * 60_000) });
    expect(badCode.json()).toMatchObject({ code: 'invalid_otp', detail: 'Code de vérification invalide.' });
    const badPassword = await tfa('disable', { password: 'pas le bon' });
    expect(badPassword.statusCode).toBe(400);
    expect(badPassword.json()).toMatchObject({
      code: 'invalid_password',
      fields: { password: ['Mot de passe incorrect.'] },
    });
    expect((await tfa('status')).json()).toMatchObject({ enabled: true });

    const ok = await tfa('disable', { password: TEST_PASSWORD });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ enabled: false });
    const row = (await userRow(t, 'analyste'))!;
    expect(row).toMatchObject({ totpEnabled: false, totpSecret: null });
    expect(await t.database.db.select().from(recoveryCodes)).toEqual([]);
    expect((await tfa('recovery-codes', { password: TEST_PASSWORD })).json().code).toBe('not_enabled');
    expect((await login()).statusCode).toBe(200);
    expect((await tfa('disable', { password: TEST_PASSWORD })).json().code).toBe('not_enabled');
  });

  it('can be turned off with a current code', async () => {
    const fresh = (await tfa('enable')).json().secret as string;
    expect(fresh).not.toBe(secret);
    expect((await tfa('verify', { token: totpNow(fresh) })).json()).toMatchObject({ enabled: true });
    const ok = await tfa('disable', { token: totpNow(fresh) });
    expect(ok.json()).toEqual({ enabled: false });
    // On, two recovery codes used, a new set and one of it used, off, on, off.
    expect(await auditCount(t, 'two_factor_change', 'analyste')).toBe(8);
  });
});

/** A minimal SMTP server: enough of the protocol for nodemailer to deliver one message. */
async function fakeSmtp() {
  const commands: string[] = [];
  const messages: string[] = [];
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    let buffer = '';
    let message: string | undefined;
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf('\r\n'); i >= 0; i = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (message !== undefined) {
          if (line === '.') {
            messages.push(message);
            message = undefined;
            socket.write('250 queued\r\n');
          } else message += `${line}\n`;
          continue;
        }
        commands.push(line);
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-fake\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          message = '';
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, commands, messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe(`password reset and change (${backend})`, () => {
  const t = useTestApp();
  beforeAll(async () => {
    await relaxLimits(t);
  });
  const api = client(() => t);
  const SENT = 'Si un compte correspond à cet email, un message de réinitialisation a été envoyé.';
  const requestReset = (email: string) => api('POST', '/api/accounts/password/reset/', { payload: { email } });
  const confirm = (token: string, newPassword: string) =>
    api('POST', '/api/accounts/password/reset/confirm/', { payload: { token, new_password: newPassword } });
  const outbox = (recipient: string) =>
    t.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, recipient)).orderBy(desc(mailOutbox.id));

  /** The mail is written after the answer (no timing hint), so wait for it. */
  async function mailedToken(recipient: string, already = 0): Promise<{ token: string; body: string }> {
    const mail = await vi.waitFor(async () => {
      const rows = await outbox(recipient);
      expect(rows.length).toBeGreaterThan(already);
      return rows[0]!;
    });
    const token = /\/reset-password\?token=([A-Za-z0-9_-]{43})(?:\s|$)/.exec(mail.body)?.[1];
    expect(token).toBeDefined();
    return { token: token!, body: mail.body };
  }

  it('answers the same for known and unknown addresses and mails only a known one', async () => {
    const unknown = await requestReset('personne@nulle-part.fr');
    const known = await requestReset('Marc.Lefevre@ACME-securite.fr');
    for (const res of [unknown, known]) {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ detail: SENT });
    }
    expect(unknown.body).toBe(known.body);

    const { token, body } = await mailedToken('marc.lefevre@acme-securite.fr');
    const row = (await userRow(t, 'analyste'))!;
    expect(body).toContain('Bonjour Marc,');
    expect(body).toContain('valable 1 heure');
    expect(body).not.toContain(row.passwordHash);
    expect(body).not.toMatch(/scrypt\$/);
    expect(await outbox('personne@nulle-part.fr')).toEqual([]);

    // Only the digest is stored, valid for one hour.
    const [stored] = await t.database.db
      .select()
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.userId, row.id));
    expect(stored!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(stored!.expiresAt.getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(stored!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    expect(await t.database.db.select().from(passwordResetTokens)).toHaveLength(1);
  });

  it('sends nothing for an inactive account', async () => {
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.username, 'lecteur'));
    expect((await requestReset('sophie.moreau@banque-horizon.fr')).json()).toEqual({ detail: SENT });
    await requestReset('admin@vigie.local');
    await mailedToken('admin@vigie.local');
    expect(await outbox('sophie.moreau@banque-horizon.fr')).toEqual([]);
    await t.database.db.update(users).set({ isActive: true }).where(eq(users.username, 'lecteur'));
  });

  it('sets the new password once, and signs out every session', async () => {
    const before = await signIn(t.app, 'manager');
    await requestReset('claire.dubois@acme-securite.fr');
    const { token } = await mailedToken('claire.dubois@acme-securite.fr');

    const short = await confirm(token, 'court');
    expect(short.statusCode).toBe(400);
    expect(short.json()).toEqual({
      detail: 'Le mot de passe doit contenir au moins 8 caractères',
      code: 'invalid',
      fields: { new_password: ['Le mot de passe doit contenir au moins 8 caractères'] },
    });

    const ok = await confirm(token, 'nouveau mot de passe');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ detail: 'Mot de passe réinitialisé.' });
    expect((await signIn(t.app, 'manager', 'nouveau mot de passe')).user.username).toBe('manager');
    const old = await api('POST', '/api/token/', { payload: { username: 'manager', password: TEST_PASSWORD } });
    expect(old.statusCode).toBe(400);

    const refresh = await api('POST', '/api/token/refresh/', { payload: { refresh: before.refresh } });
    expect(refresh.statusCode).toBe(401);
    expect(await auditCount(t, 'password_reset', 'manager')).toBe(2);

    const second = await confirm(token, 'encore un autre');
    expect(second.statusCode).toBe(400);
    expect(second.json()).toEqual({ detail: 'Lien de réinitialisation invalide ou expiré.', code: 'invalid_token' });
    expect((await signIn(t.app, 'manager', 'nouveau mot de passe')).user.username).toBe('manager');
  });

  it('refuses unknown, malformed and expired tokens', async () => {
    const invalid = { detail: 'Lien de réinitialisation invalide ou expiré.', code: 'invalid_token' };
    for (const token of ['', 'abc', 'A'.repeat(43)]) {
      const res = await confirm(token, 'un mot de passe valide');
      expect(res.statusCode, token).toBe(400);
      expect(res.json()).toEqual(invalid);
    }
    const already = (await outbox('admin@vigie.local')).length;
    await requestReset('admin@vigie.local');
    const { token } = await mailedToken('admin@vigie.local', already);
    await t.database.db
      .update(passwordResetTokens)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(passwordResetTokens.tokenHash, createHash('sha256').update(token).digest('hex')));
    const expired = await confirm(token, 'un mot de passe valide');
    expect(expired.statusCode).toBe(400);
    expect(expired.json()).toEqual(invalid);
    expect((await signIn(t.app, 'admin')).user.username).toBe('admin');

    const missing = await api('POST', '/api/accounts/password/reset/confirm/', { payload: { token } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toHaveProperty('new_password');
  });

  it('changes the password with the current one and keeps only the current session', async () => {
    const unauthenticated = await api('POST', '/api/accounts/password/change/', {
      payload: { old_password: TEST_PASSWORD, new_password: 'x'.repeat(10) },
    });
    expect(unauthenticated.statusCode).toBe(401);

    const current = await signIn(t.app, 'analyste');
    const other = await signIn(t.app, 'analyste');
    const change = (payload: unknown) =>
      api('POST', '/api/accounts/password/change/', { payload, access: current.access });

    const wrong = await change({ old_password: 'pas le bon', new_password: 'tout nouveau' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ fields: { old_password: ['Mot de passe actuel incorrect.'] } });
    const short = await change({ old_password: TEST_PASSWORD, new_password: 'court' });
    expect(short.json()).toMatchObject({
      fields: { new_password: ['Le mot de passe doit contenir au moins 8 caractères'] },
    });
    expect((await change({ old_password: TEST_PASSWORD })).statusCode).toBe(400);

    const ok = await change({ old_password: TEST_PASSWORD, new_password: 'tout nouveau' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ detail: 'Mot de passe modifié.' });
    expect(await auditCount(t, 'password_change', 'analyste')).toBe(2);

    const otherRefresh = await api('POST', '/api/token/refresh/', { payload: { refresh: other.refresh } });
    expect(otherRefresh.statusCode).toBe(401);
    const currentRefresh = await api('POST', '/api/token/refresh/', { payload: { refresh: current.refresh } });
    expect(currentRefresh.statusCode).toBe(200);
    expect((await signIn(t.app, 'analyste', 'tout nouveau')).user.username).toBe('analyste');
  });

  // The transport on its own, sharing this suite's database.
  describe('mailer', () => {
    it('keeps messages in the outbox when no SMTP server is configured', async () => {
      const mailer = createMailer(t.database.db, {});
      await mailer.send({ to: 'a@exemple.fr', subject: 'Sujet', text: 'Corps' });
      const [row] = await t.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, 'a@exemple.fr'));
      expect(row).toMatchObject({ subject: 'Sujet', body: 'Corps', sentAt: null });
      expect(mailer.link('/reset-password?token=x')).toBe('/reset-password?token=x');
      expect(createMailer(t.database.db, { VIGIE_PUBLIC_URL: 'https://vigie.exemple.fr/' }).link('/a?b=c')).toBe(
        'https://vigie.exemple.fr/a?b=c',
      );
    });

    it('sends through VIGIE_SMTP_URL and records the message as sent', async () => {
      const smtp = await fakeSmtp();
      const mailer = createMailer(t.database.db, { VIGIE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
      try {
        await mailer.send({ to: 'b@exemple.fr', subject: 'Réinitialisation', text: 'Bonjour' });
      } finally {
        mailer.close();
        await smtp.close();
      }
      expect(smtp.commands).toContain('RCPT TO:<b@exemple.fr>');
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0]).toMatch(/^To: b@exemple\.fr$/m);
      const [row] = await t.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, 'b@exemple.fr'));
      expect(row!.sentAt).toBeInstanceOf(Date);
    });

    it('keeps an undeliverable message unsent and reports the failure', async () => {
      const smtp = await fakeSmtp();
      await smtp.close(); // nothing listens on that port any more
      const mailer = createMailer(t.database.db, { VIGIE_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
      await expect(mailer.send({ to: 'c@exemple.fr', subject: 'S', text: 'T' })).rejects.toThrow();
      mailer.close();
      const [row] = await t.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, 'c@exemple.fr'));
      expect(row).toMatchObject({ sentAt: null });
    });
  });
});

describe(`rate limits on the account routes (${backend})`, () => {
  const t = useTestApp();
  beforeAll(async () => {
    await relaxLimits(t, 2); // 2 per account, 6 per IP, per minute
  });
  const api = client(() => t);

  it('limits registrations per IP', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await api('POST', '/api/register/', { payload: {} })).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 429]);
  });

  it('limits reset requests per address', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await api('POST', '/api/accounts/password/reset/', { payload: { email: 'a@b.fr' } })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await api('POST', '/api/accounts/password/reset/', { payload: { email: 'c@d.fr' } })).statusCode).toBe(200);
  });

  it('limits second-factor attempts per account', async () => {
    const { access } = await signIn(t.app, 'analyste');
    await api('POST', '/api/accounts/2fa/enable/', { access });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await api('POST', '/api/accounts/2fa/verify/', { payload: { token: '000000' }, access })).statusCode,
      );
    }
    expect(statuses).toEqual([400, 400, 429]);
  });
});
