import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayPairings, displays } from '../../server/src/db/schema.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { apiFor, jsonOf, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import {
  ALL_PANELS,
  CODE_RE,
  DISPLAY_FIELDS,
  DISPLAY_FORBIDDEN,
  DISPLAY_UNKNOWN,
  freshIp,
  screenOf,
  TOKEN_RE,
  WRONG_CODE,
  type Answer,
  type Pairing,
} from './support/displays.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addUser, auditEventsOf, seededTenants } from './support/world.ts';

// Paired wall screens (issue 22, docs/displays.md): the pairing, the credential and its limits, management. The
// credential against every route the app registers: display-routes.test.ts.

describe(`display devices: pairing, credential, management (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);
  const screen = screenOf(() => t.app);
  let acme: string;
  let horizon: string;

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    const db = t.database.db;
    // Plain roles, without the seeded accounts' platform flags (admin is a superuser, manager is staff).
    await addUser(db, 'chef-acme', [acme, 'manager']);
    await addUser(db, 'admin-acme', [acme, 'admin']);
    await addUser(db, 'chef-horizon', [horizon, 'manager']);
    await addUser(db, 'double', [
      [acme, 'admin'],
      [horizon, 'manager'],
    ]);
    await addUser(db, 'essais', [acme, 'manager']);
    await addUser(db, 'lecteur-acme', [acme, 'readonly']);
  });

  const approve = (username: string, payload: Record<string, unknown>, tenant?: string) =>
    api.call(username, 'POST', '/api/displays/', { payload, ...(tenant !== undefined ? { tenant } : {}) });

  /** A screen paired by `username` with these settings: its credential and its Display. */
  const paired = async (username = 'chef-acme', settings: Record<string, unknown> = {}, tenant?: string) => {
    const p = await screen.pair();
    jsonOf<Answer>(await approve(username, { code: p.code, name: 'Mur SOC', ...settings }, tenant), 201);
    const collected = jsonOf<{ token: string; display: { id: string } }>(await screen.poll(p), 200);
    return collected;
  };

  describe('pairing', () => {
    it('pairs a screen: code, approval by a manager, the credential collected once', async () => {
      const res = await t.app.inject({ method: 'POST', url: '/api/displays/pairings/', payload: {} });
      const p = jsonWithFields<Pairing>(res, 201, ['id', 'code', 'poll_secret', 'expires_at']);
      expect(p.code).toMatch(CODE_RE);
      const ttl = new Date(p.expires_at).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(9 * 60_000);
      expect(ttl).toBeLessThanOrEqual(10 * 60_000);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(jsonWithFields(await screen.poll(p), 200, ['status', 'expires_at'])).toEqual({
        status: 'pending',
        expires_at: p.expires_at,
      });

      // Typed back in lower case without its dash.
      const typed = p.code.replace('-', '').toLowerCase();
      const approved = await approve('chef-acme', {
        code: typed,
        name: '  Mur du SOC  ',
        panels: ['act', 'kev', 'act'],
        rotation_s: 20,
        theme: 'light',
        text_size: 'xlarge',
      });
      const display = jsonWithFields(approved, 201, DISPLAY_FIELDS);
      expect(display).toMatchObject({
        name: 'Mur du SOC',
        tenants: [{ id: acme, name: 'Acme Sécurité' }],
        panels: ['act', 'kev'],
        rotation_s: 20,
        theme: 'light',
        text_size: 'xlarge',
        created_by: 'chef-acme',
        last_seen_at: null,
        last_ip: null,
        version: null,
        revoked_at: null,
      });

      const first = jsonWithFields(await screen.poll(p), 200, ['status', 'expires_at', 'token', 'display']);
      expect(first.status).toBe('approved');
      expect(first.token).toMatch(TOKEN_RE);
      expect(first.display).toEqual(display);
      // Single use: the credential is handed over once.
      expect(jsonWithFields(await screen.poll(p), 200, ['status', 'expires_at'])).toEqual({
        status: 'consumed',
        expires_at: p.expires_at,
      });

      const me = jsonWithFields(await screen.as(first.token, 'GET', '/api/displays/me/'), 200, ['display']);
      expect(me.display.id).toBe(display.id);

      const [line] = await auditEventsOf(
        t.database.db,
        { eventType: 'configuration_change', description: 'Écran d’affichage appairé : Mur du SOC' },
        { newestFirst: true, limit: 1 },
      );
      expect(line?.username).toBe('chef-acme');
      expect(line?.tenantId).toBe(acme);
      expect(line?.details).toMatchObject({ action: 'display_paired', display_id: display.id });
    });

    it('asks a pairing with or without a body, never replayed under an Idempotency-Key', async () => {
      const ask = (opts: { payload?: object; key?: string } = {}) =>
        t.app.inject({
          method: 'POST',
          url: '/api/displays/pairings/',
          remoteAddress: freshIp(),
          ...(opts.payload ? { payload: opts.payload } : {}),
          ...(opts.key ? { headers: { 'idempotency-key': opts.key } } : {}),
        });
      jsonOf<Answer>(await ask(), 201);
      expect((await ask({ payload: { name: 'x' } })).statusCode).toBe(400);
      const first = jsonOf<Answer>(await ask({ payload: {}, key: 'cle-appairage-1' }), 201);
      const second = jsonOf<Answer>(await ask({ payload: {}, key: 'cle-appairage-1' }), 201);
      expect(second.id).not.toBe(first.id);
      expect(second.poll_secret).not.toBe(first.poll_secret);
    });

    it('keeps digests only: of the code, the poll secret and the credential', async () => {
      const p = await screen.pair();
      const [row] = await t.database.db.select().from(displayPairings).where(eq(displayPairings.id, p.id));
      expect(JSON.stringify(row)).not.toContain(p.code.replace('-', ''));
      expect(JSON.stringify(row)).not.toContain(p.poll_secret);
      jsonOf<Answer>(await approve('chef-acme', { code: p.code, name: 'Digests' }), 201);
      const { token, display } = jsonOf<{ token: string; display: { id: string } }>(await screen.poll(p), 200);
      const [stored] = await t.database.db.select().from(displays).where(eq(displays.id, display.id));
      expect(stored?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(stored)).not.toContain(token.slice(4));
    });

    it('answers 404 to an unknown pairing, a wrong secret or none', async () => {
      const p = await screen.pair();
      expect(jsonOf<Answer>(await screen.poll({ ...p, poll_secret: `${p.poll_secret}x` }), 404).code).toBe('not_found');
      expect((await t.app.inject({ method: 'GET', url: `/api/displays/pairings/${p.id}/` })).statusCode).toBe(404);
      expect((await screen.poll({ ...p, id: '00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
      expect((await screen.poll({ ...p, id: 'pas-un-uuid' })).statusCode).toBe(404);
    });

    it('expires a code after 10 minutes: the screen reads « expired », the approver the same 400', async () => {
      const p = await screen.pair();
      await t.database.db
        .update(displayPairings)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(displayPairings.id, p.id));
      expect(jsonOf<Answer>(await screen.poll(p), 200).status).toBe('expired');
      const res = await approve('chef-acme', { code: p.code, name: 'Trop tard' });
      expect(jsonOf<Answer>(res, 400)).toEqual({ detail: WRONG_CODE, code: 'invalid', fields: { code: [WRONG_CODE] } });
    });

    it('takes a code once: the second approval gets the same 400 as an unknown code', async () => {
      const p = await screen.pair();
      jsonOf<Answer>(await approve('chef-acme', { code: p.code, name: 'Premier' }), 201);
      const again = jsonOf<Answer>(await approve('admin-acme', { code: p.code, name: 'Second' }), 400);
      const unknown = jsonOf<Answer>(await approve('admin-acme', { code: 'ZZZZ-ZZZZ', name: 'Inconnu' }), 400);
      const malformed = jsonOf<Answer>(await approve('admin-acme', { code: 'pas un code', name: 'Mal formé' }), 400);
      expect(again).toEqual(unknown);
      expect(malformed).toEqual(unknown);
      expect(unknown.detail).toBe(WRONG_CODE);
    });

    it('limits pairings to 5 per client IP in 10 minutes (429 with Retry-After)', async () => {
      const ip = freshIp();
      for (let i = 0; i < 5; i++) await screen.pair(ip);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/displays/pairings/',
        payload: {},
        remoteAddress: ip,
      });
      expect(jsonOf<Answer>(res, 429)).toMatchObject({
        detail: 'Trop de demandes d’appairage : réessayez dans quelques minutes.',
        code: 'rate_limited',
      });
      const wait = Number(res.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(600);
      // Another screen elsewhere is not held back.
      await screen.pair(freshIp());
    });

    it('limits wrong codes to 10 per approver in 10 minutes: the 11th attempt is 429, even a right code', async () => {
      const p = await screen.pair();
      for (let i = 0; i < 10; i++) {
        expect(
          jsonOf<Answer>(
            await approve('essais', { code: `ZZZZ-ZZ${'23456789'[i % 8]}${i % 2 ? 'A' : 'B'}`, name: 'x' }),
            400,
          ).detail,
        ).toBe(WRONG_CODE);
      }
      const res = await approve('essais', { code: p.code, name: 'Enfin' });
      expect(jsonOf<Answer>(res, 429).code).toBe('rate_limited');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Another approver is not held back, and the code is still good.
      jsonOf<Answer>(await approve('chef-acme', { code: p.code, name: 'Enfin' }), 201);
    });

    it('refuses approval to an analyst, a viewer and an anonymous caller; the code stays good', async () => {
      const p = await screen.pair();
      expect(jsonOf<Answer>(await approve('analyste', { code: p.code, name: 'Non' }), 403)).toEqual(FORBIDDEN);
      expect(jsonOf<Answer>(await approve('lecteur-acme', { code: p.code, name: 'Non' }), 403)).toEqual(FORBIDDEN);
      expect(jsonOf<Answer>(await approve('lecteur', { code: p.code, name: 'Non' }, 'Banque Horizon'), 403)).toEqual(
        FORBIDDEN,
      );
      const anonymous = await t.app.inject({
        method: 'POST',
        url: '/api/displays/',
        payload: { code: p.code, name: 'Non' },
      });
      expect(anonymous.statusCode).toBe(401);
      expect(jsonOf<Answer>(await screen.poll(p), 200).status).toBe('pending');
      const refused = await auditEventsOf(t.database.db, { eventType: 'permission_denied', username: 'analyste' });
      expect(refused.map((r) => r.description)).toContain(
        'Accès refusé : gestion des écrans d’affichage réservée aux administrateurs et responsables',
      );
      jsonOf<Answer>(await approve('admin-acme', { code: p.code, name: 'Oui' }), 201);
    });

    it('refuses a tenant the approver does not administer (403), and shows several to one who does', async () => {
      const p = await screen.pair();
      const refused = await approve('chef-acme', { code: p.code, name: 'Deux', tenants: [acme, horizon] });
      expect(jsonOf<Answer>(refused, 403)).toEqual(FORBIDDEN);
      expect(jsonOf<Answer>(await screen.poll(p), 200).status).toBe('pending');
      // A user of Banque Horizon only cannot name Acme either, nor act in it.
      expect(
        jsonOf<Answer>(
          await approve('chef-horizon', { code: p.code, name: 'Deux', tenants: [acme] }, 'Banque Horizon'),
          403,
        ),
      ).toEqual(FORBIDDEN);
      expect((await approve('chef-horizon', { code: p.code, name: 'Deux' }, 'Acme Sécurité')).statusCode).toBe(403);

      const both = jsonOf<Answer>(
        await approve('double', { code: p.code, name: 'Deux', tenants: [horizon, acme, horizon] }),
        201,
      );
      expect(both.tenants).toEqual([
        { id: horizon, name: 'Banque Horizon' },
        { id: acme, name: 'Acme Sécurité' },
      ]);
      expect(both.panels).toEqual(ALL_PANELS);
      expect(both).toMatchObject({ rotation_s: 30, theme: 'dark', text_size: 'normal' });
    });

    it('checks the settings with French messages', async () => {
      const p = await screen.pair();
      const bad = async (payload: Record<string, unknown>) =>
        jsonOf<Answer>(await approve('chef-acme', { code: p.code, name: 'Mur', ...payload }), 400).detail as string;
      expect(await bad({ name: '   ' })).toMatch(/nom de l’écran est obligatoire/);
      expect(await bad({ rotation_s: 2 })).toMatch(/Durée de rotation invalide/);
      expect(await bad({ panels: ['météo'] })).toMatch(/Panneaux invalides/);
      expect(await bad({ panels: [] })).toMatch(/Panneaux invalides/);
      expect(await bad({ theme: 'rose' })).toMatch(/Thème invalide/);
      expect(await bad({ tenants: ['pas-un-uuid'] })).toMatch(/Organisations invalides/);
      expect(await bad({ token: 'x' })).toBeTruthy();
      // None of them took the code.
      jsonOf<Answer>(await approve('chef-acme', { code: p.code, name: 'Mur' }), 201);
    });
  });

  describe('the device credential', () => {
    it('reads the kiosk panels of its tenant, and records last seen, IP and version', async () => {
      const { token, display } = await paired();
      const reads = [
        '/api/vulnerabilities/summary/?days=30',
        '/api/dashboard/summary/',
        '/api/threats/summary/',
        '/api/celery/tasks/',
        '/api/vulnerabilities/vulnerabilities/?is_resolved=false&ssvc_decision=act&page_size=10',
        '/api/vulnerabilities/vulnerabilities/?is_kev=true',
        '/api/vulnerabilities/sla-report/',
      ];
      for (const url of reads) expect((await screen.as(token, 'GET', url)).statusCode, url).toBe(200);

      const me = await screen.as(token, 'GET', '/api/displays/me/', {
        remoteAddress: '192.0.2.77',
        headers: { 'x-vigie-version': '0.1.0' },
      });
      const seen = jsonWithFields(me, 200, ['display']).display;
      expect(seen).toMatchObject({ last_ip: '192.0.2.77', version: '0.1.0' });
      expect(Date.now() - new Date(seen.last_seen_at).getTime()).toBeLessThan(60_000);
      const listed = jsonOf<{ id: string }[]>(await api.call('chef-acme', 'GET', '/api/displays/'), 200).find(
        (d) => d.id === display.id,
      );
      expect(listed).toMatchObject({ last_ip: '192.0.2.77', version: '0.1.0', last_seen_at: seen.last_seen_at });
    });

    it('reads its own tenant’s data only: X-Tenant-ID another tenant is refused', async () => {
      const { token } = await paired();
      const mine = jsonOf<{ count: number; results: { id: number }[] }>(
        await screen.as(token, 'GET', '/api/vulnerabilities/vulnerabilities/?page_size=25'),
        200,
      );
      const acmeSeen = jsonOf<{ count: number; results: { id: number }[] }>(
        await api.call('admin-acme', 'GET', '/api/vulnerabilities/vulnerabilities/?page_size=25'),
        200,
      );
      expect(mine.count).toBe(acmeSeen.count);
      expect(mine.results.map((r) => r.id)).toEqual(acmeSeen.results.map((r) => r.id));
      expect(
        jsonOf<Answer>(await screen.as(token, 'GET', '/api/dashboard/summary/', { tenant: horizon }), 403),
      ).toEqual(DISPLAY_FORBIDDEN);
      expect((await screen.as(token, 'GET', '/api/dashboard/summary/', { tenant: 'pas-un-uuid' })).statusCode).toBe(
        403,
      );
      // Its settings stay readable whatever it names (it learns its tenants there).
      expect((await screen.as(token, 'GET', '/api/displays/me/', { tenant: horizon })).statusCode).toBe(200);
      // Pages of 25 findings at most.
      expect(
        jsonOf<Answer>(await screen.as(token, 'GET', '/api/vulnerabilities/vulnerabilities/?page_size=26'), 403),
      ).toEqual(DISPLAY_FORBIDDEN);
    });

    it('reads each of its tenants by X-Tenant-ID, the first by default', async () => {
      const { token } = await paired('double', { tenants: [horizon, acme] });
      const count = async (tenant?: string) =>
        jsonOf<{ count: number }>(
          await screen.as(token, 'GET', '/api/vulnerabilities/vulnerabilities/', tenant ? { tenant } : {}),
          200,
        ).count;
      const of = async (tenant: string) =>
        jsonOf<{ count: number }>(
          await api.call('double', 'GET', '/api/vulnerabilities/vulnerabilities/', { tenant }),
          200,
        ).count;
      expect(await count()).toBe(await of(horizon));
      expect(await count(horizon)).toBe(await of(horizon));
      expect(await count(acme)).toBe(await of(acme));
    });

    it('is no person: a cookie sent along is ignored, user routes refuse it', async () => {
      const { token } = await paired();
      const session = await api.as('chef-acme');
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/users/me/',
        headers: { authorization: `Display ${token}`, cookie: `vigie_access=${session.access}` },
      });
      expect(jsonOf<Answer>(res, 403)).toEqual(DISPLAY_FORBIDDEN);
      // A person's kiosk keeps working with the person's session.
      expect((await api.call('analyste', 'GET', '/api/vulnerabilities/summary/?days=30')).statusCode).toBe(200);
      expect(jsonOf<Answer>(await api.call('analyste', 'GET', '/api/displays/me/'), 401)).toEqual(DISPLAY_UNKNOWN);
    });

    it('answers 401 to an unknown credential', async () => {
      const res = await screen.as(`vgd_${'A'.repeat(43)}`, 'GET', '/api/dashboard/summary/');
      expect(jsonOf<Answer>(res, 401)).toEqual(DISPLAY_UNKNOWN);
    });

    it('is renewed after 30 days at check-in; the old credential holds 24 hours more', async () => {
      const { token, display } = await paired();
      const fresh = jsonOf<Answer>(await screen.as(token, 'GET', '/api/displays/me/'), 200);
      expect(fresh.renewed_token).toBeUndefined();

      await t.database.db
        .update(displays)
        .set({ tokenIssuedAt: new Date(Date.now() - 31 * 24 * 3600_000) })
        .where(eq(displays.id, display.id));
      const renewed = jsonWithFields(await screen.as(token, 'GET', '/api/displays/me/'), 200, [
        'display',
        'renewed_token',
      ]);
      const next = renewed.renewed_token as string;
      expect(next).toMatch(TOKEN_RE);
      expect(next).not.toBe(token);
      expect((await screen.as(next, 'GET', '/api/dashboard/summary/')).statusCode).toBe(200);
      expect(jsonOf<Answer>(await screen.as(next, 'GET', '/api/displays/me/'), 200).renewed_token).toBeUndefined();
      // The old one is still good for a day: its renewed answer may have been lost.
      expect((await screen.as(token, 'GET', '/api/dashboard/summary/')).statusCode).toBe(200);
      const [row] = await t.database.db.select().from(displays).where(eq(displays.id, display.id));
      const grace = row!.previousTokenExpiresAt!.getTime() - Date.now();
      expect(grace).toBeGreaterThan(23 * 3600_000);
      expect(grace).toBeLessThanOrEqual(24 * 3600_000);

      await t.database.db
        .update(displays)
        .set({ previousTokenExpiresAt: new Date(Date.now() - 1000) })
        .where(eq(displays.id, display.id));
      expect(jsonOf<Answer>(await screen.as(token, 'GET', '/api/dashboard/summary/'), 401)).toEqual(DISPLAY_UNKNOWN);
      expect((await screen.as(next, 'GET', '/api/dashboard/summary/')).statusCode).toBe(200);
    });

    it('presented as the replaced credential at check-in, is renewed again (the renewed one was lost)', async () => {
      const { token, display } = await paired();
      await t.database.db
        .update(displays)
        .set({ tokenIssuedAt: new Date(Date.now() - 31 * 24 * 3600_000) })
        .where(eq(displays.id, display.id));
      const lost = jsonOf<Answer>(await screen.as(token, 'GET', '/api/displays/me/'), 200).renewed_token as string;
      const again = jsonOf<Answer>(await screen.as(token, 'GET', '/api/displays/me/'), 200).renewed_token as string;
      expect(again).toMatch(TOKEN_RE);
      expect(again).not.toBe(lost);
      expect((await screen.as(lost, 'GET', '/api/dashboard/summary/')).statusCode).toBe(401);
      expect((await screen.as(again, 'GET', '/api/dashboard/summary/')).statusCode).toBe(200);
      expect((await screen.as(token, 'GET', '/api/dashboard/summary/')).statusCode).toBe(200);
    });
  });

  describe('managing screens', () => {
    it('lists the current tenant’s displays, newest first, to its administrators and managers only', async () => {
      const older = await paired('chef-acme', { name: 'Ancien' });
      const newer = await paired('admin-acme', { name: 'Récent' });
      const list = jsonOf<{ id: string }[]>(await api.call('chef-acme', 'GET', '/api/displays/'), 200);
      const ids = list.map((d) => d.id);
      expect(ids.indexOf(newer.display.id)).toBeLessThan(ids.indexOf(older.display.id));
      for (const d of list) expect(Object.keys(d).sort()).toEqual([...DISPLAY_FIELDS].sort());
      expect(JSON.stringify(list)).not.toMatch(/token|hash/i);
      expect(jsonOf<Answer>(await api.call('analyste', 'GET', '/api/displays/'), 403)).toEqual(FORBIDDEN);
      expect(jsonOf<Answer>(await api.call('lecteur-acme', 'GET', '/api/displays/'), 403)).toEqual(FORBIDDEN);
    });

    it('changes a display; the screen reads it at its next check-in', async () => {
      const { token, display } = await paired();
      const url = `/api/displays/${display.id}/`;
      const changed = jsonWithFields(
        await api.call('chef-acme', 'PATCH', url, {
          payload: { name: 'Salle de crise', panels: ['overdue', 'threats'], rotation_s: 60, text_size: 'large' },
        }),
        200,
        DISPLAY_FIELDS,
      );
      expect(changed).toMatchObject({
        name: 'Salle de crise',
        panels: ['overdue', 'threats'],
        rotation_s: 60,
        text_size: 'large',
        theme: 'dark',
      });
      expect(jsonOf<Answer>(await screen.as(token, 'GET', '/api/displays/me/'), 200).display).toMatchObject({
        name: 'Salle de crise',
        panels: ['overdue', 'threats'],
      });
      const [line] = await auditEventsOf(
        t.database.db,
        { eventType: 'configuration_change', description: 'Écran d’affichage modifié : Salle de crise' },
        { limit: 1 },
      );
      expect(line?.details).toMatchObject({ action: 'display_changed', display_id: display.id });

      // Adding a tenant the caller does not manage: refused; one they do: shown at once.
      expect(
        jsonOf<Answer>(await api.call('chef-acme', 'PATCH', url, { payload: { tenants: [acme, horizon] } }), 403),
      ).toEqual(FORBIDDEN);
      jsonOf<Answer>(await api.call('double', 'PATCH', url, { payload: { tenants: [acme, horizon] } }), 200);
      expect((await screen.as(token, 'GET', '/api/threats/summary/', { tenant: horizon })).statusCode).toBe(200);
      // Removing one is not adding: a manager of Acme alone may narrow it.
      jsonOf<Answer>(await api.call('chef-acme', 'PATCH', url, { payload: { tenants: [acme] } }), 200);
      expect((await screen.as(token, 'GET', '/api/threats/summary/', { tenant: horizon })).statusCode).toBe(403);

      // Nothing asked, nothing changed.
      expect(jsonOf<Answer>(await api.call('chef-acme', 'PATCH', url, { payload: {} }), 200).tenants).toEqual([
        { id: acme, name: 'Acme Sécurité' },
      ]);
      expect(
        jsonOf<Answer>(await api.call('chef-acme', 'PATCH', url, { payload: { rotation_s: 4000 } }), 400).detail,
      ).toMatch(/Durée de rotation invalide/);
      expect(jsonOf<Answer>(await api.call('analyste', 'PATCH', url, { payload: { name: 'x' } }), 403)).toEqual(
        FORBIDDEN,
      );
      const unknown = '/api/displays/00000000-0000-4000-8000-000000000000/';
      expect(jsonOf<Answer>(await api.call('chef-acme', 'PATCH', unknown, { payload: { name: 'x' } }), 404)).toEqual(
        NOT_FOUND,
      );
      expect(
        jsonOf<Answer>(await api.call('chef-acme', 'PATCH', '/api/displays/42/', { payload: { name: 'x' } }), 404),
      ).toEqual(NOT_FOUND);
    });

    it('revokes a display: its very next request is 401, in every route', async () => {
      const { token, display } = await paired();
      expect((await screen.as(token, 'GET', '/api/dashboard/summary/')).statusCode).toBe(200);
      const revoked = jsonWithFields(
        await api.call('chef-acme', 'POST', `/api/displays/${display.id}/revoke/`),
        200,
        DISPLAY_FIELDS,
      );
      expect(revoked.revoked_at).not.toBeNull();
      expect(jsonOf<Answer>(await screen.as(token, 'GET', '/api/dashboard/summary/'), 401)).toEqual(DISPLAY_UNKNOWN);
      expect(jsonOf<Answer>(await screen.as(token, 'GET', '/api/displays/me/'), 401)).toEqual(DISPLAY_UNKNOWN);
      expect(jsonOf<Answer>(await screen.as(token, 'POST', '/api/threats/', { payload: {} }), 401)).toEqual(
        DISPLAY_UNKNOWN,
      );
      const [row] = await t.database.db.select().from(displays).where(eq(displays.id, display.id));
      expect(row?.tokenHash).toBeNull();

      // Revoked stays revoked: again keeps its date, a change is refused.
      const again = jsonOf<Answer>(await api.call('chef-acme', 'POST', `/api/displays/${display.id}/revoke/`), 200);
      expect(again.revoked_at).toBe(revoked.revoked_at);
      expect(
        jsonOf<Answer>(
          await api.call('chef-acme', 'PATCH', `/api/displays/${display.id}/`, { payload: { name: 'x' } }),
          409,
        ).code,
      ).toBe('display_revoked');
      const [line] = await auditEventsOf(
        t.database.db,
        { eventType: 'configuration_change', description: 'Écran d’affichage révoqué : Mur SOC' },
        { limit: 1 },
      );
      expect(line?.severity).toBe('WARNING');
      expect(line?.details).toMatchObject({ action: 'display_revoked', display_id: display.id });
    });

    it('takes a revoked display off the list (204), refuses an active one (409) and a reader (403)', async () => {
      const { token, display } = await paired();
      const remove = (username: string) => api.call(username, 'DELETE', `/api/displays/${display.id}/`);
      expect(jsonOf<Answer>(await remove('chef-acme'), 409)).toEqual({
        detail: 'Écran encore actif : révoquez-le avant de le retirer de la liste.',
        code: 'display_active',
      });
      expect((await screen.as(token, 'GET', '/api/displays/me/')).statusCode).toBe(200);
      jsonOf(await api.call('chef-acme', 'POST', `/api/displays/${display.id}/revoke/`), 200);
      expect((await remove('lecteur-acme')).statusCode).toBe(403);
      expect(
        (await api.call('chef-horizon', 'DELETE', `/api/displays/${display.id}/`, { tenant: 'Banque Horizon' }))
          .statusCode,
      ).toBe(404);

      expect((await remove('chef-acme')).statusCode).toBe(204);
      const list = jsonOf<{ id: string }[]>(await api.call('chef-acme', 'GET', '/api/displays/'), 200);
      expect(list.map((d) => d.id)).not.toContain(display.id);
      expect(await t.database.db.select().from(displays).where(eq(displays.id, display.id))).toEqual([]);
      expect(
        await t.database.db.select().from(displayPairings).where(eq(displayPairings.displayId, display.id)),
      ).toEqual([]);
      expect(jsonOf<Answer>(await remove('chef-acme'), 404)).toEqual(NOT_FOUND);
      expect(jsonOf<Answer>(await screen.as(token, 'GET', '/api/displays/me/'), 401)).toEqual(DISPLAY_UNKNOWN);
      const [line] = await auditEventsOf(
        t.database.db,
        { eventType: 'configuration_change', description: 'Écran d’affichage retiré de la liste : Mur SOC' },
        { newestFirst: true, limit: 1 },
      );
      expect(line?.username).toBe('chef-acme');
      expect(line?.details).toMatchObject({ action: 'display_removed', display_id: display.id });
    });

    it('keeps each tenant’s displays its own: another tenant’s list, change and revocation see nothing', async () => {
      const { token, display } = await paired();
      const list = jsonOf<{ id: string }[]>(
        await api.call('chef-horizon', 'GET', '/api/displays/', { tenant: 'Banque Horizon' }),
        200,
      );
      expect(list.map((d) => d.id)).not.toContain(display.id);
      expect(
        jsonOf<Answer>(
          await api.call('chef-horizon', 'PATCH', `/api/displays/${display.id}/`, { payload: { name: 'Volé' } }),
          404,
        ),
      ).toEqual(NOT_FOUND);
      expect(
        jsonOf<Answer>(await api.call('chef-horizon', 'POST', `/api/displays/${display.id}/revoke/`), 404),
      ).toEqual(NOT_FOUND);
      // Even a manager of both, acting in Banque Horizon, reaches Acme's display only from Acme.
      expect(
        (await api.call('double', 'POST', `/api/displays/${display.id}/revoke/`, { tenant: 'Banque Horizon' }))
          .statusCode,
      ).toBe(404);
      // Row-level security holds it too: Banque Horizon's transaction does not see the row, Acme's does.
      const ids = async (tenant: string) =>
        (await withTenant(t.database.db, tenant as TenantId, (tx) => tx.select().from(displays))).map((d) => d.id);
      expect(await ids(horizon)).not.toContain(display.id);
      expect(await ids(acme)).toContain(display.id);
      expect((await screen.as(token, 'GET', '/api/displays/me/')).statusCode).toBe(200);
    });
  });
});
