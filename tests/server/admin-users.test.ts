import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { memberships, securityPolicies, tenants, users } from '../../server/src/db/schema.ts';
import { signIn, TEST_PASSWORD, type TestApp } from './helpers.ts';
import { apiFor, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ADMIN_PERMISSION_CODENAMES, USER_FIELDS } from './support/contract.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { auditEventsOf, seededTenants, userIdOf, type TenantName } from './support/world.ts';

const LIST_FIELDS = [...USER_FIELDS].sort();
const ADMIN_PERMISSIONS = [...ADMIN_PERMISSION_CODENAMES];

/** The API as the demo's users, and the lookups these suites make. */
function adminApi(t: TestApp) {
  const userId = async (username: string) => {
    const [row] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.username, username));
    return row?.id;
  };
  const auditRows = (eventType: string, username: string) => auditEventsOf(t.database.db, { eventType, username });
  return { ...apiFor(t), userId, auditRows };
}

/** Nothing secret may leave the server, whatever the nesting. */
function expectNoSecrets(body: unknown) {
  const text = JSON.stringify(body);
  for (const key of ['password', 'password_hash', 'passwordHash', 'totp_secret', 'totpSecret', 'scrypt$']) {
    expect(text).not.toContain(key);
  }
}

describe(`admin users: reading and refusals (${backend})`, () => {
  const t = useTestApp();
  const { call, userId, auditRows } = adminApi(t);

  it('lists the current tenant’s members by username with exactly the list fields and spec §6 roles', async () => {
    const res = await call('admin', 'GET', '/api/admin/users/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({ count: 3, next: null, previous: null });
    expect(body.results.map((u: { username: string }) => u.username)).toEqual(['admin', 'analyste', 'manager']);
    for (const u of body.results) expect(Object.keys(u).sort()).toEqual(LIST_FIELDS);
    expect(body.results.map((u: { role: string }) => u.role)).toEqual(['admin', 'user', 'manager']);
    expect(body.results[1]).toMatchObject({
      id: await userId('analyste'),
      email: 'marc.lefevre@acme-securite.fr',
      first_name: 'Marc',
      last_name: 'Lefèvre',
      is_active: true,
      is_staff: false,
      is_superuser: false,
      last_login: null,
    });
    expect(new Date(body.results[1].date_joined).toISOString()).toBe(body.results[1].date_joined);
    expect(body.results[0].last_login).not.toBeNull();
    expectNoSecrets(body);
  });

  it('lists Banque Horizon without the Acme-only analyste, with the readonly role', async () => {
    const res = await call('admin', 'GET', '/api/admin/users/', { tenant: 'Banque Horizon' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(3);
    expect(body.results.map((u: { username: string; role: string }) => [u.username, u.role])).toEqual([
      ['admin', 'admin'],
      ['lecteur', 'readonly'],
      ['manager', 'manager'],
    ]);
    const searched = await call('admin', 'GET', '/api/admin/users/?search=marc', { tenant: 'Banque Horizon' });
    expect(searched.json()).toMatchObject({ count: 0, results: [] });
  });

  it('pages with count, next and previous links on the same path', async () => {
    const first = await call('admin', 'GET', '/api/admin/users/?page_size=2');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      count: 3,
      next: '/api/admin/users/?page=2&page_size=2',
      previous: null,
    });
    expect(first.json().results).toHaveLength(2);

    const second = await call('admin', 'GET', first.json().next);
    expect(second.json()).toMatchObject({ count: 3, next: null, previous: '/api/admin/users/?page=1&page_size=2' });
    expect(second.json().results.map((u: { username: string }) => u.username)).toEqual(['manager']);

    const beyond = await call('admin', 'GET', '/api/admin/users/?page=9&page_size=2');
    expect(beyond.json()).toMatchObject({ count: 3, next: null, previous: '/api/admin/users/?page=2&page_size=2' });
    expect(beyond.json().results).toEqual([]);

    const max = await call('admin', 'GET', '/api/admin/users/?page_size=100');
    expect(max.json().results).toHaveLength(3);
  });

  it('rejects bad page and page_size values with French messages', async () => {
    const pageMsg = 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.';
    const sizeMsg = 'Taille de page invalide : un entier entre 1 et 100 est attendu.';
    for (const [query, field, message] of [
      ['page=0', 'page', pageMsg],
      ['page=abc', 'page', pageMsg],
      ['page=-1', 'page', pageMsg],
      ['page=1.5', 'page', pageMsg],
      ['page_size=0', 'page_size', sizeMsg],
      ['page_size=101', 'page_size', sizeMsg],
      ['page_size=dix', 'page_size', sizeMsg],
      [`search=${'x'.repeat(151)}`, 'search', 'La recherche ne doit pas dépasser 150 caractères.'],
    ] as const) {
      const res = await call('admin', 'GET', `/api/admin/users/?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toEqual({ detail: message, code: 'invalid', fields: { [field]: [message] } });
    }
  });

  it('searches username, email and names case-insensitively, with wildcards taken literally', async () => {
    const names = async (search: string) =>
      (await call('admin', 'GET', `/api/admin/users/?search=${encodeURIComponent(search)}`))
        .json<{ results: { username: string }[] }>()
        .results.map((u) => u.username);
    expect(await names('ANALY')).toEqual(['analyste']);
    expect(await names('lefèvre')).toEqual(['analyste']);
    expect(await names('claire')).toEqual(['manager']);
    expect(await names('Acme-Securite.FR')).toEqual(['analyste', 'manager']);
    expect(await names('%')).toEqual([]);
    expect(await names('m_n')).toEqual([]);
    expect(await names('\\')).toEqual([]);
    const paged = await call('admin', 'GET', '/api/admin/users/?search=acme&page_size=1');
    expect(paged.json()).toMatchObject({ count: 2, next: '/api/admin/users/?page=2&page_size=1&search=acme' });
  });

  it('shows one member, and answers 404 for non-members, unknown and malformed ids', async () => {
    const analyste = await userId('analyste');
    const res = await call('admin', 'GET', `/api/admin/users/${analyste}/`);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(LIST_FIELDS);
    expect(res.json()).toMatchObject({ id: analyste, username: 'analyste', role: 'user' });
    expectNoSecrets(res.json());

    for (const id of [String(await userId('lecteur')), '99999', 'abc', '0', '1e3', '99999999999']) {
      const miss = await call('admin', 'GET', `/api/admin/users/${id}/`);
      expect(miss.statusCode, id).toBe(404);
      expect(miss.json()).toEqual(NOT_FOUND);
    }
  });

  it('keeps another tenant’s member out of reach: GET, PATCH and DELETE answer 404', async () => {
    const analyste = await userId('analyste');
    const url = `/api/admin/users/${analyste}/`;
    const opts = { tenant: 'Banque Horizon' as const };
    expect((await call('admin', 'GET', url, opts)).json()).toEqual(NOT_FOUND);
    const patch = await call('admin', 'PATCH', url, { ...opts, payload: { first_name: 'Pirate', is_active: false } });
    expect(patch.statusCode).toBe(404);
    expect(patch.json()).toEqual(NOT_FOUND);
    const del = await call('admin', 'DELETE', url, opts);
    expect(del.statusCode).toBe(404);
    expect(del.json()).toEqual(NOT_FOUND);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, analyste!));
    expect(row).toMatchObject({ firstName: 'Marc', isActive: true });
    const [m] = await t.database.db.select().from(memberships).where(eq(memberships.userId, analyste!));
    expect(m?.role).toBe('user');
  });

  it('answers the admin permission set to the superuser', async () => {
    const res = await call('admin', 'GET', '/api/admin/permissions/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ is_superuser: true, is_staff: true, permissions: ADMIN_PERMISSIONS, groups: [] });
  });

  it('refuses manager, user and readonly members everywhere with the exact 403', async () => {
    const analyste = await userId('analyste');
    const lecteur = await userId('lecteur');
    const cases: [string, number | undefined][] = [
      ['manager', analyste],
      ['analyste', analyste],
      ['lecteur', lecteur],
    ];
    for (const [username, target] of cases) {
      for (const [method, url, payload] of [
        ['GET', '/api/admin/users/', undefined],
        ['GET', '/api/admin/users/?page=0', undefined],
        ['POST', '/api/admin/users/', { username: 'intrus', email: 'intrus@example.fr', password: 'longenough1' }],
        // Authorization runs before validation: an invalid body still gets the 403.
        ['POST', '/api/admin/users/', { nonsense: true }],
        ['GET', `/api/admin/users/${target}/`, undefined],
        ['PATCH', `/api/admin/users/${target}/`, { role: 'admin', is_superuser: true }],
        ['DELETE', `/api/admin/users/${target}/`, undefined],
        ['GET', '/api/admin/permissions/', undefined],
      ] as const) {
        const res = await call(username, method, url, { payload });
        expect(res.statusCode, `${username} ${method} ${url}`).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
    }
    expect((await t.database.db.select().from(users).where(eq(users.username, 'intrus'))).length).toBe(0);
    const [m] = await t.database.db.select().from(memberships).where(eq(memberships.userId, analyste!));
    expect(m?.role).toBe('user');
  });

  it('writes a permission_denied audit row for a refusal, in the actor’s tenant', async () => {
    const before = (await auditRows('permission_denied', 'lecteur')).length;
    const res = await call('lecteur', 'GET', '/api/admin/users/');
    expect(res.statusCode).toBe(403);
    const rows = await auditRows('permission_denied', 'lecteur');
    expect(rows.length).toBe(before + 1);
    const row = rows.at(-1)!;
    const [horizon] = await t.database.db.select().from(tenants).where(eq(tenants.name, 'Banque Horizon'));
    expect(row).toMatchObject({ severity: 'WARNING', userId: await userId('lecteur'), tenantId: horizon!.id });
    expect(row.details).toMatchObject({ success: false, method: 'GET', path: '/api/admin/users/' });
  });

  it('refuses an X-Tenant-ID the user is not a member of, and unauthenticated calls', async () => {
    for (const [username, tenant] of [
      ['lecteur', 'Acme Sécurité'],
      ['analyste', 'Banque Horizon'],
    ] as const) {
      const res = await call(username, 'GET', '/api/admin/users/', { tenant });
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(FORBIDDEN.detail);
    }
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/admin/users/' });
    expect(anonymous.statusCode).toBe(401);
    const anonymousPost = await t.app.inject({ method: 'POST', url: '/api/admin/users/', payload: {} });
    expect(anonymousPost.statusCode).toBe(401);
  });
});

describe('admin users: creating, updating and deleting as superuser', () => {
  const t = useTestApp();
  const { call, tenantId, userId, auditRows } = adminApi(t);
  const create = (payload: unknown, tenant?: TenantName) =>
    call('admin', 'POST', '/api/admin/users/', { payload, ...(tenant ? { tenant } : {}) });

  it('creates an account and its membership in the current tenant (201, user by default)', async () => {
    const res = await create({
      username: ' jeanne ',
      email: 'Jeanne.Martin@Acme-Securite.FR',
      password: TEST_PASSWORD,
      first_name: 'Jeanne',
      last_name: 'Martin',
    });
    const body = jsonWithFields(res, 201, LIST_FIELDS);
    expect(body).toMatchObject({
      username: 'jeanne',
      email: 'Jeanne.Martin@acme-securite.fr',
      first_name: 'Jeanne',
      last_name: 'Martin',
      is_active: true,
      is_staff: false,
      is_superuser: false,
      role: 'user',
      last_login: null,
    });
    expectNoSecrets(body);

    const acme = await tenantId('Acme Sécurité');
    const [row] = await t.database.db.select().from(users).where(eq(users.id, body.id));
    expect(row?.defaultTenantId).toBe(acme);
    expect(row?.passwordHash).toMatch(/^scrypt\$/);
    const ms = await t.database.db.select().from(memberships).where(eq(memberships.userId, body.id));
    expect(ms.map((m) => [m.tenantId, m.role])).toEqual([[acme, 'user']]);

    const list = await call('admin', 'GET', '/api/admin/users/?search=jeanne');
    expect(list.json().results.map((u: { id: number }) => u.id)).toEqual([body.id]);
    // The new account signs in with its password, and lands in Acme.
    const session = await signIn(t.app, 'jeanne', TEST_PASSWORD);
    expect(session.user.current_tenant).toEqual({ id: acme, name: 'Acme Sécurité' });

    const [audit] = await auditRows('user_created', 'admin');
    expect(audit).toMatchObject({ tenantId: acme, severity: 'INFO', description: 'Utilisateur créé : jeanne' });
    expect(audit!.details).toMatchObject({ target_user_id: body.id, role: 'user' });
    expectNoSecrets(audit!.details);
  });

  it('rejects missing and invalid fields with French messages', async () => {
    const missing = await create({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      detail: "Nom d'utilisateur requis",
      code: 'invalid',
      fields: {
        username: ["Nom d'utilisateur requis"],
        email: ['Email requis'],
        password: ['Mot de passe requis'],
      },
    });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ password: 'court' }, 'password', 'Le mot de passe doit contenir au moins 8 caractères'],
      [{ email: 'pas-un-email' }, 'email', 'Adresse email invalide.'],
      [{ username: 'avec espace' }, 'username', expect.stringContaining("Le nom d'utilisateur ne peut contenir")],
      [{ username: 'x'.repeat(151) }, 'username', "Le nom d'utilisateur ne doit pas dépasser 150 caractères."],
      [{ role: 'guest' }, 'role', 'Rôle invalide. Valeurs possibles : admin, manager, user, readonly.'],
      [{ confirm_password: 'autre chose' }, 'confirm_password', 'Les mots de passe ne correspondent pas.'],
      [{ first_name: 'x'.repeat(151) }, 'first_name', 'Le prénom ne doit pas dépasser 150 caractères.'],
    ];
    for (const [override, field, message] of cases) {
      const res = await create({ username: 'valide', email: 'valide@example.fr', password: 'assez long', ...override });
      expect(res.statusCode, field).toBe(400);
      expect(res.json(), field).toMatchObject({ code: 'invalid', detail: message, fields: { [field]: [message] } });
    }
    const unknownField = await create({ username: 'v', email: 'v@example.fr', password: 'assez long', tenant: 'x' });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().fields).toHaveProperty('tenant');
    expect(await userId('valide')).toBeUndefined();
  });

  it('takes the minimum password length from the security policy', async () => {
    await t.database.db.update(securityPolicies).set({ passwordMinLength: 12 });
    const res = await create({ username: 'court', email: 'court@example.fr', password: 'onze carac.' });
    expect(res.json().fields.password).toEqual(['Le mot de passe doit contenir au moins 12 caractères']);
    await t.database.db.update(securityPolicies).set({ passwordMinLength: 8 });
  });

  it('answers 409 for a taken email and 400 for a taken username, even from another tenant', async () => {
    // lecteur belongs to Banque Horizon only; the caller acts in Acme.
    const email = await create({
      username: 'nouveau',
      email: 'SOPHIE.moreau@banque-horizon.fr',
      password: 'assez long',
    });
    expect(email.statusCode).toBe(409);
    expect(email.json()).toEqual({ detail: 'Un compte avec cet email existe déjà', code: 'duplicate_email' });

    for (const username of ['LECTEUR', 'sophie.moreau@banque-horizon.fr']) {
      const res = await create({ username, email: 'nouveau@example.fr', password: 'assez long' });
      expect(res.statusCode, username).toBe(400);
      expect(res.json(), username).toMatchObject({
        code: 'duplicate_username',
        fields: { username: ["Un utilisateur avec ce nom d'utilisateur existe déjà."] },
      });
    }
    // Same answer whichever tenant the duplicate lives in.
    const local = await create({ username: 'nouveau', email: 'marc.lefevre@acme-securite.fr', password: 'assez long' });
    expect(local.json()).toEqual(email.json());
    expect(await userId('nouveau')).toBeUndefined();
  });

  it('maps the requested role: admin by a superuser sets both flags, others set the membership', async () => {
    const admin = await create({ username: 'chef', email: 'chef@example.fr', password: 'assez long', role: 'admin' });
    expect(admin.statusCode).toBe(201);
    expect(admin.json()).toMatchObject({ role: 'admin', is_superuser: true, is_staff: true });

    const horizon = await tenantId('Banque Horizon');
    for (const role of ['manager', 'readonly'] as const) {
      const res = await create(
        { username: `r-${role}`, email: `${role}@example.fr`, password: 'assez long', role, is_active: false },
        'Banque Horizon',
      );
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ role, is_superuser: false, is_staff: false, is_active: false });
      const [m] = await t.database.db.select().from(memberships).where(eq(memberships.userId, res.json().id));
      expect(m).toMatchObject({ tenantId: horizon, role });
    }
  });

  it('updates names, email, activity and role, and audits it', async () => {
    const id = await userId('jeanne');
    const url = `/api/admin/users/${id}/`;
    const res = await call('admin', 'PATCH', url, {
      payload: { first_name: 'Jeanne-Marie', email: 'jm@example.fr', is_active: false, role: 'readonly' },
    });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(LIST_FIELDS);
    expect(res.json()).toMatchObject({
      id,
      first_name: 'Jeanne-Marie',
      last_name: 'Martin',
      email: 'jm@example.fr',
      is_active: false,
      role: 'readonly',
    });
    expect((await call('admin', 'GET', url)).json()).toEqual(res.json());
    const audits = await auditRows('user_updated', 'admin');
    expect(audits.at(-1)!.details).toMatchObject({
      target_user_id: id,
      changed: ['first_name', 'email', 'is_active', 'role'],
    });

    const promoted = await call('admin', 'PATCH', url, { payload: { role: 'admin', is_active: true } });
    expect(promoted.json()).toMatchObject({ role: 'admin', is_superuser: true, is_staff: true, is_active: true });
    const demoted = await call('admin', 'PATCH', url, { payload: { role: 'manager' } });
    expect(demoted.json()).toMatchObject({ role: 'manager', is_superuser: false, is_staff: false });
    const staff = await call('admin', 'PATCH', url, { payload: { is_staff: true } });
    expect(staff.json()).toMatchObject({ role: 'manager', is_superuser: false, is_staff: true });
    const superuser = await call('admin', 'PATCH', url, { payload: { is_superuser: true, is_staff: false } });
    expect(superuser.json()).toMatchObject({ role: 'admin', is_superuser: true, is_staff: true });
    const back = await call('admin', 'PATCH', url, { payload: { role: 'user', is_superuser: false, is_staff: false } });
    expect(back.json()).toMatchObject({ role: 'user', is_superuser: false, is_staff: false });
  });

  it('validates a PATCH: bad email, bad role, taken email, unknown field', async () => {
    const url = `/api/admin/users/${await userId('jeanne')}/`;
    const bad = await call('admin', 'PATCH', url, { payload: { email: 'nope' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ email: ['Adresse email invalide.'] });
    const empty = await call('admin', 'PATCH', url, { payload: { email: '' } });
    expect(empty.json().fields).toEqual({ email: ['Email requis'] });
    const role = await call('admin', 'PATCH', url, { payload: { role: 'guest' } });
    expect(role.json().fields.role).toEqual(['Rôle invalide. Valeurs possibles : admin, manager, user, readonly.']);
    const taken = await call('admin', 'PATCH', url, { payload: { email: 'Admin@vigie.local' } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ detail: 'Un compte avec cet email existe déjà', code: 'duplicate_email' });
    const unknown = await call('admin', 'PATCH', url, { payload: { password: 'nouveau mot de passe' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().fields).toHaveProperty('password');
    const same = await call('admin', 'PATCH', url, { payload: { email: 'jm@example.fr' } });
    expect(same.statusCode).toBe(200);
  });

  it('refuses to let an admin demote or deactivate themselves', async () => {
    const url = `/api/admin/users/${await userId('admin')}/`;
    for (const payload of [{ role: 'user' }, { is_active: false }, { is_superuser: false }, { role: 'manager' }]) {
      const res = await call('admin', 'PATCH', url, { payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toEqual({
        detail: 'Vous ne pouvez pas modifier votre propre rôle ou désactiver votre propre compte.',
        code: 'self_change',
      });
    }
    const [row] = await t.database.db.select().from(users).where(eq(users.username, 'admin'));
    expect(row).toMatchObject({ isSuperuser: true, isStaff: true, isActive: true });
    const names = await call('admin', 'PATCH', url, { payload: { first_name: 'Camille', role: 'admin' } });
    expect(names.statusCode).toBe(200);
  });

  it('removes a membership; deletes the account once no tenant holds it; never oneself', async () => {
    const self = await call('admin', 'DELETE', `/api/admin/users/${await userId('admin')}/`);
    expect(self.statusCode).toBe(400);
    expect(self.json()).toEqual({ detail: 'Vous ne pouvez pas supprimer votre propre compte.', code: 'self_delete' });

    // manager also belongs to Acme: leaving Horizon keeps the account.
    const manager = await userId('manager');
    const left = await call('admin', 'DELETE', `/api/admin/users/${manager}/`, { tenant: 'Banque Horizon' });
    expect(left.statusCode).toBe(204);
    expect(left.body).toBe('');
    expect(await userId('manager')).toBe(manager);
    const ms = await t.database.db.select().from(memberships).where(eq(memberships.userId, manager!));
    expect(ms.map((m) => m.role)).toEqual(['manager']);
    const horizonList = await call('admin', 'GET', '/api/admin/users/', { tenant: 'Banque Horizon' });
    expect(horizonList.json().results.map((u: { username: string }) => u.username)).not.toContain('manager');

    const jeanne = await userId('jeanne');
    const gone = await call('admin', 'DELETE', `/api/admin/users/${jeanne}/`);
    expect(gone.statusCode).toBe(204);
    expect(await userId('jeanne')).toBeUndefined();
    expect((await call('admin', 'GET', `/api/admin/users/${jeanne}/`)).statusCode).toBe(404);
    expect((await call('admin', 'DELETE', `/api/admin/users/${jeanne}/`)).statusCode).toBe(404);

    const audits = await auditRows('user_deleted', 'admin');
    expect(audits.map((a) => a.details)).toEqual([
      expect.objectContaining({ target_user_id: manager, account_deleted: false }),
      expect.objectContaining({ target_user_id: jeanne, account_deleted: true }),
    ]);
  });
});

describe('admin users: a tenant admin who is not superuser', () => {
  const t = useTestApp();
  const { call, userId, auditRows } = adminApi(t);
  let acme: string;
  beforeAll(async () => {
    ({ acme } = await seededTenants(t.database.db));
    // analyste becomes an administrator of Acme only.
    await t.database.db
      .update(memberships)
      .set({ role: 'admin' })
      .where(and(eq(memberships.userId, await userIdOf(t.database.db, 'analyste')), eq(memberships.tenantId, acme)));
  });

  it('lists the tenant and reads the permission set without platform flags', async () => {
    const list = await call('analyste', 'GET', '/api/admin/users/');
    expect(list.statusCode).toBe(200);
    expect(list.json().results.map((u: { username: string; role: string }) => [u.username, u.role])).toEqual([
      ['admin', 'admin'],
      ['analyste', 'admin'],
      ['manager', 'manager'],
    ]);
    const perms = await call('analyste', 'GET', '/api/admin/permissions/');
    expect(perms.json()).toEqual({ is_superuser: false, is_staff: false, permissions: ADMIN_PERMISSIONS, groups: [] });
    // lecteur is in Horizon only, and Horizon is not analyste's tenant.
    expect((await call('analyste', 'GET', `/api/admin/users/${await userId('lecteur')}/`)).statusCode).toBe(404);
    const elsewhere = await call('analyste', 'GET', '/api/admin/users/', { tenant: 'Banque Horizon' });
    expect(elsewhere.statusCode).toBe(403);
  });

  it('creates members, an admin one getting the tenant role only', async () => {
    const res = await call('analyste', 'POST', '/api/admin/users/', {
      payload: { username: 'adjoint', email: 'adjoint@acme-securite.fr', password: 'assez long', role: 'admin' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ role: 'admin', is_superuser: false, is_staff: false });
    const [m] = await t.database.db.select().from(memberships).where(eq(memberships.userId, res.json().id));
    expect(m).toMatchObject({ tenantId: acme, role: 'admin' });

    const flags = await call('analyste', 'POST', '/api/admin/users/', {
      payload: { username: 'boss', email: 'boss@acme-securite.fr', password: 'assez long', is_superuser: true },
    });
    expect(flags.statusCode).toBe(403);
    expect(flags.json()).toEqual(FORBIDDEN);
    expect(await userId('boss')).toBeUndefined();
  });

  it('edits a member of this tenant only, but cannot grant or remove platform flags', async () => {
    const url = `/api/admin/users/${await userId('adjoint')}/`;
    const ok = await call('analyste', 'PATCH', url, {
      payload: { last_name: 'Durand', email: 'durand@acme-securite.fr', role: 'readonly', is_superuser: false },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ last_name: 'Durand', email: 'durand@acme-securite.fr', role: 'readonly' });

    const before = (await auditRows('permission_denied', 'analyste')).length;
    for (const payload of [
      { is_superuser: true },
      { role: 'admin', is_superuser: true, is_staff: true },
      { is_staff: true },
    ]) {
      const res = await call('analyste', 'PATCH', url, { payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }
    expect((await auditRows('permission_denied', 'analyste')).length).toBe(before + 3);
    const [row] = await t.database.db.select().from(users).where(eq(users.username, 'adjoint'));
    expect(row).toMatchObject({ isSuperuser: false, isStaff: false });
  });

  it('cannot touch a superuser, nor rewrite an account shared with another tenant', async () => {
    const admin = `/api/admin/users/${await userId('admin')}/`;
    expect((await call('analyste', 'PATCH', admin, { payload: { email: 'moi@example.fr' } })).json()).toEqual(
      FORBIDDEN,
    );
    expect((await call('analyste', 'PATCH', admin, { payload: { role: 'user' } })).statusCode).toBe(403);
    expect((await call('analyste', 'DELETE', admin)).statusCode).toBe(403);

    // manager also opens Banque Horizon: its account fields are not Acme's to change; its Acme role is.
    const manager = `/api/admin/users/${await userId('manager')}/`;
    const email = await call('analyste', 'PATCH', manager, { payload: { email: 'pirate@example.fr' } });
    expect(email.statusCode).toBe(403);
    const [row] = await t.database.db.select().from(users).where(eq(users.username, 'manager'));
    expect(row?.email).toBe('claire.dubois@acme-securite.fr');
    const role = await call('analyste', 'PATCH', manager, { payload: { role: 'readonly' } });
    expect(role.statusCode).toBe(200);
    // Still staff, so still presented as manager; the Acme membership did change.
    expect(role.json()).toMatchObject({ role: 'manager', is_staff: true });
    const ms = await t.database.db.select().from(memberships).where(eq(memberships.userId, row!.id));
    expect(Object.fromEntries(ms.map((m) => [m.tenantId === acme ? 'acme' : 'horizon', m.role]))).toEqual({
      acme: 'readonly',
      horizon: 'manager',
    });
  });

  it('cannot demote itself; removes a member without deleting the account', async () => {
    const self = await call('analyste', 'PATCH', `/api/admin/users/${await userId('analyste')}/`, {
      payload: { role: 'user' },
    });
    expect(self.statusCode).toBe(400);
    expect(self.json().code).toBe('self_change');

    const adjoint = await userId('adjoint');
    const res = await call('analyste', 'DELETE', `/api/admin/users/${adjoint}/`);
    expect(res.statusCode).toBe(204);
    expect(await userId('adjoint')).toBe(adjoint);
    expect(await t.database.db.select().from(memberships).where(eq(memberships.userId, adjoint!))).toEqual([]);
    const list = await call('analyste', 'GET', '/api/admin/users/');
    expect(list.json().results.map((u: { username: string }) => u.username)).not.toContain('adjoint');
    expect((await auditRows('user_deleted', 'analyste'))[0]!.details).toMatchObject({ account_deleted: false });
  });
});
