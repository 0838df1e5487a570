import { beforeAll, describe, expect, it } from 'vitest';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { assets, auditEvents, memberships, tenants } from '../../server/src/db/schema.ts';
import { signIn } from './helpers.ts';
import { apiFor, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addUser, auditEventsOf, seededTenants } from './support/world.ts';
import type { TenantOut } from '../../server/src/presenters/tenant.ts';

const TENANT_FIELDS = [
  'id',
  'name',
  'domain',
  'subscription_plan',
  'status',
  'created_at',
  'user_count',
  'contact_email',
  'logo_url',
  'deleted_at',
].sort();

describe(`tenant administration (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    // A tenant admin who is nothing else: admin of Acme only, no platform flag.
    await addUser(t.database.db, 'chef', [acme, 'admin']);
  });

  const list = async (who: string, url = '/api/admin/tenants/') => (await call(who, 'GET', url)).json<TenantOut[]>();
  const lastAudit = async (action: string) => {
    const [row] = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.eventType, 'configuration_change'), sql`${auditEvents.details}->>'action' = ${action}`))
      .orderBy(desc(auditEvents.id))
      .limit(1);
    return row;
  };

  it('lists every tenant with the spec §3 fields to a superuser', async () => {
    const res = await call('admin', 'GET', '/api/admin/tenants/');
    expect(res.statusCode).toBe(200);
    const body = res.json<TenantOut[]>();
    expect(body.map((x) => x.name)).toEqual(['Acme Sécurité', 'Banque Horizon']);
    for (const tenant of body) expect(Object.keys(tenant).sort()).toEqual(TENANT_FIELDS);
    expect(body[0]).toMatchObject({
      id: acme,
      domain: 'acme-securite.fr',
      subscription_plan: 'Enterprise',
      status: 'active',
      user_count: 4,
      contact_email: 'rssi@acme-securite.fr',
      logo_url: null,
      deleted_at: null,
    });
    expect(body[1]).toMatchObject({ id: horizon, subscription_plan: 'Business', user_count: 3 });
    expect(new Date(body[0]!.created_at).toISOString()).toBe(body[0]!.created_at);
  });

  it('refuses managers, users and viewers everywhere, records it, and wants a token', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      const attempts = [
        await call(who, 'GET', '/api/admin/tenants/'),
        await call(who, 'GET', `/api/admin/tenants/${acme}/`),
        await call(who, 'POST', '/api/admin/tenants/', { payload: { name: 'X', domain: 'x.fr' } }),
        await call(who, 'PATCH', `/api/admin/tenants/${acme}/`, { payload: { name: 'X' } }),
        await call(who, 'DELETE', `/api/admin/tenants/${acme}/`, { payload: { confirm: 'acme-securite.fr' } }),
        await call(who, 'POST', `/api/admin/tenants/${acme}/restore/`),
      ];
      for (const [i, res] of attempts.entries()) {
        expect(res.statusCode, `${who} #${i}`).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
    }
    const [denied] = await auditEventsOf(
      t.database.db,
      { eventType: 'permission_denied', username: 'lecteur' },
      { newestFirst: true, limit: 1 },
    );
    expect(denied?.description).toMatch(/^Accès refusé : (administration|gestion) des organisations$/);
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/tenants/' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/tenants/' })).statusCode).toBe(401);
    expect((await list('admin')).map((x) => x.name)).toEqual(['Acme Sécurité', 'Banque Horizon']);
  });

  it('limits a tenant admin to their own tenant: read and edit, never status, plan, create or delete', async () => {
    const own = await list('chef');
    expect(own.map((x) => x.id)).toEqual([acme]);
    expect((await call('chef', 'GET', `/api/admin/tenants/${acme}/`)).json()).toMatchObject({ id: acme });
    expect((await call('chef', 'GET', `/api/admin/tenants/${horizon}/`)).json()).toEqual(NOT_FOUND);
    expect(
      (await call('chef', 'PATCH', `/api/admin/tenants/${horizon}/`, { payload: { name: 'Pris' } })).statusCode,
    ).toBe(404);

    // The editor may send the whole object back: unchanged status and plan, and read-only fields, pass.
    const edited = await call('chef', 'PATCH', `/api/admin/tenants/${acme}/`, {
      payload: {
        ...own[0],
        name: 'Acme Sécurité SA',
        contact_email: 'SOC@Acme-Securite.FR',
        logo_url: '/logos/acme.png',
      },
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({
      id: acme,
      name: 'Acme Sécurité SA',
      contact_email: 'SOC@acme-securite.fr',
      logo_url: '/logos/acme.png',
      status: 'active',
      subscription_plan: 'Enterprise',
      user_count: 4,
    });
    const audit = await lastAudit('tenant_updated');
    expect(audit).toMatchObject({ tenantId: acme, username: 'chef', severity: 'INFO' });
    expect(audit!.details.changes).toEqual({
      name: { from: 'Acme Sécurité', to: 'Acme Sécurité SA' },
      contact_email: { from: 'rssi@acme-securite.fr', to: 'SOC@acme-securite.fr' },
      logo_url: { from: null, to: '/logos/acme.png' },
    });

    for (const payload of [{ status: 'suspended' }, { subscription_plan: 'Free' }]) {
      const res = await call('chef', 'PATCH', `/api/admin/tenants/${acme}/`, { payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(403);
    }
    expect(
      (await call('chef', 'POST', '/api/admin/tenants/', { payload: { name: 'X', domain: 'x.fr' } })).statusCode,
    ).toBe(403);
    expect(
      (await call('chef', 'DELETE', `/api/admin/tenants/${acme}/`, { payload: { confirm: 'acme-securite.fr' } }))
        .statusCode,
    ).toBe(403);
    const [row] = await t.database.db.select().from(tenants).where(eq(tenants.id, acme));
    expect(row).toMatchObject({ status: 'active', subscriptionPlan: 'Enterprise', deletedAt: null });
    // The fallback list shows a member their own tenants, a superuser every one.
    expect((await call('analyste', 'GET', '/api/tenants/')).json<TenantOut[]>().map((x) => x.id)).toEqual([acme]);
    expect((await call('admin', 'GET', '/api/tenants/')).json<TenantOut[]>().map((x) => x.id)).toEqual([acme, horizon]);
  });

  it('creates a tenant with defaults, normalises the domain and audits it', async () => {
    const res = await call('admin', 'POST', '/api/admin/tenants/', {
      payload: {
        name: '  Nouvelle Organisation ',
        domain: 'Nouvelle-Org.FR',
        logo_url: 'https://cdn.exemple.fr/logo.png',
      },
    });
    const created = jsonWithFields<TenantOut>(res, 201, TENANT_FIELDS);
    expect(created).toMatchObject({
      name: 'Nouvelle Organisation',
      domain: 'nouvelle-org.fr',
      subscription_plan: 'Business',
      status: 'active',
      user_count: 0,
      contact_email: null,
      logo_url: 'https://cdn.exemple.fr/logo.png',
      deleted_at: null,
    });
    expect(await lastAudit('tenant_created')).toMatchObject({ tenantId: created.id, username: 'admin' });

    // The superuser can then act in it (create its first user) through X-Tenant-ID.
    const member = await call('admin', 'POST', '/api/admin/users/', {
      tenant: created.id,
      payload: { username: 'premier', email: 'premier@nouvelle-org.fr', password: 'assez long', role: 'user' },
    });
    expect(member.statusCode).toBe(201);
    expect((await list('admin')).find((x) => x.id === created.id)?.user_count).toBe(1);

    const again = await call('admin', 'POST', '/api/admin/tenants/', {
      payload: { name: 'Doublon', domain: 'NOUVELLE-org.fr' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'duplicate_domain',
      detail: 'Une organisation utilise déjà ce domaine.',
    });
    const taken = await call('admin', 'PATCH', `/api/admin/tenants/${created.id}/`, {
      payload: { domain: 'acme-securite.fr' },
    });
    expect(taken.statusCode).toBe(409);

    // A client that cannot send a body with DELETE confirms in the query string.
    const gone = await call('admin', 'DELETE', `/api/admin/tenants/${created.id}/?confirm=nouvelle-org.fr`);
    expect(gone.statusCode).toBe(204);
    expect((await list('admin')).map((x) => x.id)).not.toContain(created.id);
  });

  it('validates every field with French messages and stores nothing when one is wrong', async () => {
    const before = (await t.database.db.select({ n: count() }).from(tenants))[0]!.n;
    const res = await call('admin', 'POST', '/api/admin/tenants/', {
      payload: {
        name: 'x'.repeat(201),
        domain: 'pas un domaine',
        subscription_plan: 'Gold',
        status: 'closed',
        contact_email: 'pas-une-adresse',
        logo_url: 'http://exemple.fr/logo.png',
        owner: 'moi',
      },
    });
    expect(res.statusCode).toBe(400);
    const { code, fields } = res.json<{ code: string; fields: Record<string, string[]> }>();
    expect(code).toBe('invalid');
    expect(fields).toEqual({
      owner: ['Champ inconnu : « owner ».'],
      name: ['Le nom de l’organisation ne doit pas dépasser 200 caractères.'],
      domain: ['Domaine invalide : un nom d’hôte est attendu, par exemple « exemple.fr ».'],
      subscription_plan: ['Offre invalide. Valeurs possibles : Free, Business, Enterprise.'],
      status: ['Statut invalide. Valeurs possibles : active, suspended.'],
      contact_email: ['Adresse email de contact invalide.'],
      logo_url: ['Adresse du logo invalide : une URL https:// ou un chemin commençant par « / » est attendu.'],
    });
    const missing = await call('admin', 'POST', '/api/admin/tenants/', { payload: { name: ' ' } });
    expect(missing.json().fields).toEqual({
      name: ['Le nom de l’organisation est requis.'],
      domain: ['Le domaine est requis.'],
    });
    for (const logo of ['//evil.example/logo.png', 'javascript:alert(1)', '/a b.png', 'data:image/png;base64,AA']) {
      const bad = await call('admin', 'PATCH', `/api/admin/tenants/${acme}/`, { payload: { logo_url: logo } });
      expect(bad.statusCode, logo).toBe(400);
    }
    for (const payload of [{ name: null }, { domain: '' }, { name: 42 }, [1]]) {
      const bad = await call('admin', 'PATCH', `/api/admin/tenants/${acme}/`, { payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await t.database.db.select({ n: count() }).from(tenants))[0]!.n).toBe(before);
    expect((await call('admin', 'PATCH', '/api/admin/tenants/pas-un-id/', { payload: { name: 'X' } })).json()).toEqual(
      NOT_FOUND,
    );
  });

  it('soft-deletes only with the typed domain; members lose access at once, data stays, restore brings it back', async () => {
    const horizonAssets = async () =>
      (await t.database.db.select({ n: count() }).from(assets).where(eq(assets.tenantId, horizon)))[0]!.n;
    const assetsBefore = await horizonAssets();
    expect(assetsBefore).toBeGreaterThan(0);
    // Sessions opened before the deletion.
    for (const who of ['lecteur', 'manager', 'admin']) {
      expect((await call(who, 'GET', '/api/assets/', { tenant: horizon })).statusCode, who).toBe(200);
    }

    const missing = await call('admin', 'DELETE', `/api/admin/tenants/${horizon}/`);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'confirmation_required',
      detail:
        'Confirmation requise : saisissez le domaine de l’organisation (« banque-horizon.fr ») dans « confirm » pour la supprimer.',
    });
    const wrong = await call('admin', 'DELETE', `/api/admin/tenants/${horizon}/`, {
      payload: { confirm: 'acme-securite.fr' },
    });
    expect(wrong.statusCode).toBe(400);
    expect((await list('admin')).map((x) => x.id)).toContain(horizon);

    const done = await call('admin', 'DELETE', `/api/admin/tenants/${horizon}/`, {
      payload: { confirm: ' Banque-Horizon.fr ' },
    });
    expect(done.statusCode).toBe(204);
    expect(await lastAudit('tenant_deleted')).toMatchObject({ tenantId: horizon, severity: 'WARNING' });

    // Gone from X-Tenant-ID resolution, for members and superusers alike.
    for (const who of ['lecteur', 'manager', 'admin']) {
      const res = await call(who, 'GET', '/api/assets/', { tenant: horizon });
      expect(res.statusCode, who).toBe(403);
    }
    // Gone from the memberships of a new sign-in and of the profile.
    const signedIn = await signIn(t.app, 'lecteur');
    expect(signedIn.user.tenants).toEqual([]);
    expect(signedIn.user.current_tenant).toBeNull();
    const me = await call('manager', 'GET', '/api/users/me/');
    expect(me.json().tenants.map((x: { id: string }) => x.id)).toEqual([acme]);
    // Gone from the lists, but a superuser finds it among the deleted ones.
    expect((await list('admin')).map((x) => x.id)).not.toContain(horizon);
    expect((await call('manager', 'GET', '/api/tenants/')).json<TenantOut[]>().map((x) => x.id)).toEqual([acme]);
    expect((await call('admin', 'GET', '/api/tenants/')).json<TenantOut[]>().map((x) => x.id)).not.toContain(horizon);
    const withDeleted = await list('admin', '/api/admin/tenants/?include_deleted=true');
    const deleted = withDeleted.find((x) => x.id === horizon)!;
    expect(deleted.deleted_at).not.toBeNull();
    expect(deleted.user_count).toBe(3);
    // Nothing more can be done to it but a restore.
    expect(
      (await call('admin', 'PATCH', `/api/admin/tenants/${horizon}/`, { payload: { name: 'X' } })).statusCode,
    ).toBe(404);
    expect(
      (await call('admin', 'DELETE', `/api/admin/tenants/${horizon}/`, { payload: { confirm: 'banque-horizon.fr' } }))
        .statusCode,
    ).toBe(404);
    // Its data is all still there.
    expect(await horizonAssets()).toBe(assetsBefore);
    expect(
      (await t.database.db.select({ n: count() }).from(memberships).where(eq(memberships.tenantId, horizon)))[0]!.n,
    ).toBe(3);

    const restored = await call('admin', 'POST', `/api/admin/tenants/${horizon}/restore/`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ id: horizon, deleted_at: null, status: 'active' });
    expect(await lastAudit('tenant_restored')).toMatchObject({ tenantId: horizon });
    // Restoring again changes nothing and answers the same.
    expect((await call('admin', 'POST', `/api/admin/tenants/${horizon}/restore/`)).statusCode).toBe(200);
    expect((await call('admin', 'POST', `/api/admin/tenants/${crypto.randomUUID()}/restore/`)).statusCode).toBe(404);

    const back = await call('lecteur', 'GET', '/api/assets/', { tenant: horizon });
    expect(back.statusCode).toBe(200);
    expect(back.json().count).toBe(assetsBefore);
    expect((await signIn(t.app, 'lecteur')).user.tenants).toEqual([{ id: horizon, name: 'Banque Horizon' }]);
  });

  it('closes a suspended tenant to its members while superusers still list it', async () => {
    const suspend = await call('admin', 'PATCH', `/api/admin/tenants/${horizon}/`, {
      payload: { status: 'suspended' },
    });
    expect(suspend.statusCode).toBe(200);
    expect(suspend.json().status).toBe('suspended');
    expect(await lastAudit('tenant_updated')).toMatchObject({
      details: expect.objectContaining({ changes: { status: { from: 'active', to: 'suspended' } } }),
    });
    expect((await call('lecteur', 'GET', '/api/assets/', { tenant: horizon })).statusCode).toBe(403);
    expect((await call('admin', 'GET', '/api/assets/', { tenant: horizon })).statusCode).toBe(403);
    expect((await list('admin')).find((x) => x.id === horizon)?.status).toBe('suspended');
    expect((await call('manager', 'GET', '/api/tenants/')).json<TenantOut[]>().map((x) => x.id)).toEqual([acme]);

    await call('admin', 'PATCH', `/api/admin/tenants/${horizon}/`, { payload: { status: 'active' } });
    expect((await call('lecteur', 'GET', '/api/assets/', { tenant: horizon })).statusCode).toBe(200);
  });
});
