import { and, eq, inArray } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { memberships, notifications, users, type NotificationLevel } from '../../server/src/db/schema.ts';
import { notifierOf } from '../../server/src/services/notifier.ts';
import { signIn, TEST_SECRET } from './helpers.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addUser, auditEventsOf, seededTenants, userIdsOf, type TenantName } from './support/world.ts';
import type { Notification } from '../../server/src/presenters/notification.ts';

const LIST = '/api/notifications/notifications/';
const STREAM = '/api/notifications/stream/';
const FIELDS = [
  'id',
  'title',
  'created_at',
  'read',
  'body',
  'level',
  'link',
  'kind',
  'tenant_id',
  'tenant_name',
].sort();
const MESSAGES = {
  title: 'Le titre est obligatoire (200 caractères au plus).',
  body: 'Le texte dépasse 2000 caractères.',
  level: 'Niveau invalide : info, warning ou critical.',
  link: "Lien invalide : un chemin de l'application commençant par « / » est attendu.",
  user: 'Destinataire inconnu dans cette organisation.',
  tenant: 'Organisation invalide : un identifiant (UUID) est attendu.',
};

type Json = Notification;
interface Page {
  results: Json[];
  count: number;
  unread: number;
}

describe(`notifications API (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let userIds = new Map<string, number>();
  let seeded: { acme: string; horizon: string };
  const acme = () => seeded.acme;
  const horizon = () => seeded.horizon;

  const ok = async <T = Page>(username: string, url: string) => jsonOf<T>(await call(username, 'GET', url), 200);
  const send = async (username: string, payload: object, tenant?: TenantName) =>
    jsonOf<{ results: Json[]; count: number }>(
      await call(username, 'POST', LIST, { payload, ...(tenant ? { tenant } : {}) }),
      201,
    );

  /** Rows written with the owner connection, with chosen times, for exact ordering and paging. */
  const insertFor = async (
    username: string,
    tenantId: string,
    rows: { title: string; minutesAgo: number; read?: boolean; level?: NotificationLevel }[],
  ) => {
    const now = Date.now();
    const inserted = await t.database.db
      .insert(notifications)
      .values(
        rows.map((r) => ({
          tenantId,
          userId: userIds.get(username)!,
          title: r.title,
          level: r.level ?? 'info',
          read: r.read ?? false,
          createdAt: new Date(now - r.minutesAgo * 60_000),
        })),
      )
      .returning({ id: notifications.id, title: notifications.title });
    return new Map(inserted.map((r) => [r.title, r.id]));
  };

  beforeAll(async () => {
    const db = t.database.db;
    seeded = await seededTenants(db);
    // A member of both tenants, with no seeded notification: the scope and paging tests' subject.
    await addUser(db, 'double', [
      [acme(), 'user'],
      [horizon(), 'user'],
    ]);
    await addUser(db, 'membre', [acme(), 'user']);
    await addUser(db, 'inactif', [acme(), 'user'], { active: false });
    await addUser(db, 'horizonien', [horizon(), 'user']);
    userIds = await userIdsOf(db);
  });

  describe('reading', () => {
    let ids: Map<string, number>;

    beforeAll(async () => {
      ids = new Map([
        ...(await insertFor('double', acme(), [
          { title: 'A1', minutesAgo: 50 },
          { title: 'A2', minutesAgo: 30, read: true },
          { title: 'A3', minutesAgo: 10, level: 'critical' },
        ])),
        ...(await insertFor('double', horizon(), [
          { title: 'H1', minutesAgo: 40 },
          { title: 'H2', minutesAgo: 20, read: true },
        ])),
      ]);
      // Someone else's notifications in the same tenants never show.
      await insertFor('membre', acme(), [{ title: 'Pas pour double', minutesAgo: 5 }]);
      await insertFor('horizonien', horizon(), [{ title: 'Pas pour double non plus', minutesAgo: 5 }]);
    });

    it('lists the caller’s own notifications of every tenant, newest first, with exactly the Notification fields', async () => {
      const page = await ok('double', LIST);
      expect(page.count).toBe(5);
      expect(page.unread).toBe(3);
      expect(page.results.map((n) => n.title)).toEqual(['A3', 'H2', 'A2', 'H1', 'A1']);
      for (const n of page.results) expect(Object.keys(n).sort()).toEqual(FIELDS);
      const a3 = page.results[0]!;
      expect(a3).toMatchObject({
        id: ids.get('A3'),
        read: false,
        body: '',
        level: 'critical',
        link: null,
        kind: 'manual',
        tenant_id: acme(),
        tenant_name: 'Acme Sécurité',
      });
      expect(new Date(a3.created_at).toISOString()).toBe(a3.created_at);
      expect(page.results.find((n) => n.title === 'H1')).toMatchObject({
        tenant_id: horizon(),
        tenant_name: 'Banque Horizon',
      });
      expect(await ok('double', `${LIST}unread_count/`)).toEqual({ count: 3 });
    });

    it('pages across tenants (size, page) and keeps count and unread over the whole scope', async () => {
      const titles = async (query: string) => {
        const page = await ok('double', `${LIST}?${query}`);
        expect(page).toMatchObject({ count: 5, unread: 3 });
        return page.results.map((n) => n.title);
      };
      expect(await titles('size=2')).toEqual(['A3', 'H2']);
      expect(await titles('size=2&page=2')).toEqual(['A2', 'H1']);
      expect(await titles('size=2&page=3')).toEqual(['A1']);
      expect(await titles('size=2&page=9')).toEqual([]);
      const acmePage = await ok('double', `${LIST}?size=2&page=2&tenant=${acme()}`);
      expect(acmePage).toMatchObject({ count: 3, unread: 2 });
      expect(acmePage.results.map((n) => n.title)).toEqual(['A1']);
      // One tenant's totals ride on its page's rows; a page past its end still carries them.
      expect(await ok('double', `${LIST}?size=2&page=4&tenant=${acme()}`)).toMatchObject({
        count: 3,
        unread: 2,
        results: [],
      });
      expect(await ok('double', `${LIST}?unread=true&size=1&page=2&tenant=${acme()}`)).toMatchObject({
        count: 2,
        unread: 2,
      });
    });

    it('keeps only unread ones with unread=true (count is then the unread count)', async () => {
      const page = await ok('double', `${LIST}?unread=true`);
      expect(page.results.map((n) => n.title)).toEqual(['A3', 'H1', 'A1']);
      expect(page).toMatchObject({ count: 3, unread: 3 });
      const read = await ok('double', `${LIST}?unread=false`);
      expect(read.count).toBe(5);
      const one = await ok('double', `${LIST}?unread=1&tenant=${horizon()}`);
      expect(one.results.map((n) => n.title)).toEqual(['H1']);
      expect(one).toMatchObject({ count: 1, unread: 1 });
    });

    it('narrows to one tenant with tenant=, refusing a malformed one (400) and one the caller is not in (403)', async () => {
      const h = await ok('double', `${LIST}?tenant=${horizon()}`);
      expect(h.results.map((n) => n.title)).toEqual(['H2', 'H1']);
      expect(h.results.every((n) => n.tenant_id === horizon())).toBe(true);
      expect(await ok('double', `${LIST}unread_count/?tenant=${acme()}`)).toEqual({ count: 2 });
      expect(await ok('double', `${LIST}unread_count/?tenant=${horizon().toUpperCase()}`)).toEqual({ count: 1 });

      for (const url of [`${LIST}?tenant=acme`, `${LIST}unread_count/?tenant=12`]) {
        const res = await call('double', 'GET', url);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ detail: MESSAGES.tenant, fields: { tenant: [MESSAGES.tenant] } });
      }
      for (const url of [
        `${LIST}?tenant=${horizon()}`,
        `${LIST}unread_count/?tenant=${horizon()}`,
        `${LIST}?tenant=00000000-0000-4000-8000-000000000000`,
      ]) {
        const res = await call('analyste', 'GET', url);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      const denied = await auditEventsOf(t.database.db, {
        eventType: 'permission_denied',
        userId: userIds.get('analyste')!,
      });
      expect(denied.some((e) => e.details.requested_tenant === horizon())).toBe(true);
    });

    it('refuses bad paging and filters with French field messages', async () => {
      const cases: [string, string, string][] = [
        ['size=201', 'size', 'Taille de page invalide : un entier entre 1 et 200 est attendu.'],
        ['size=0', 'size', 'Taille de page invalide : un entier entre 1 et 200 est attendu.'],
        ['page=0', 'page', 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.'],
        ['unread=peut-être', 'unread', 'Valeur invalide : true ou false attendu.'],
      ];
      for (const [query, field, message] of cases) {
        const res = await call('double', 'GET', `${LIST}?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().fields).toEqual({ [field]: [message] });
      }
      expect((await call('double', 'GET', `${LIST}?size=200`)).statusCode).toBe(200);
    });

    it('answers 401 without a token', async () => {
      for (const [method, url] of [
        ['GET', LIST],
        ['GET', `${LIST}unread_count/`],
        ['POST', `${LIST}1/mark_as_read/`],
        ['POST', `${LIST}mark_all_as_read/`],
        ['POST', LIST],
        ['GET', STREAM],
      ] as const) {
        const res = await t.app.inject({ method, url });
        expect(res.statusCode, url).toBe(401);
      }
    });
  });

  describe('marking read', () => {
    it('marks one (in any of the caller’s tenants), idempotently; someone else’s or an unknown id is 404', async () => {
      const mine = await insertFor('double', horizon(), [{ title: 'À lire', minutesAgo: 1 }]);
      const theirs = await insertFor('membre', acme(), [{ title: 'Celle de membre', minutesAgo: 1 }]);
      const id = mine.get('À lire')!;
      const before = (await ok<{ count: number }>('double', `${LIST}unread_count/`)).count;
      // The current tenant is Acme; the notification is Horizon's.
      for (let i = 0; i < 2; i++) {
        const res = await call('double', 'POST', `${LIST}${id}/mark_as_read/`, { tenant: 'Acme Sécurité' });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json()).toEqual({ id, read: true });
      }
      expect((await ok<{ count: number }>('double', `${LIST}unread_count/`)).count).toBe(before - 1);
      // A queued replay carries an Idempotency-Key: the same answer comes back.
      const other = (await insertFor('double', acme(), [{ title: 'Rejouée', minutesAgo: 1 }])).get('Rejouée')!;
      const headers = { 'idempotency-key': 'notification-replay-0001' };
      const first = await call('double', 'POST', `${LIST}${other}/mark_as_read/`, { headers });
      const replay = await call('double', 'POST', `${LIST}${other}/mark_as_read/`, { headers });
      expect(first.json()).toEqual({ id: other, read: true });
      expect(replay.statusCode).toBe(200);
      expect(replay.json()).toEqual({ id: other, read: true });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      const [row] = await t.database.db.select().from(notifications).where(eq(notifications.id, id));
      expect(row).toMatchObject({ read: true });
      expect(row!.readAt).toBeInstanceOf(Date);

      for (const other of [theirs.get('Celle de membre')!, 999_999_999, 'abc', '0']) {
        const res = await call('double', 'POST', `${LIST}${other}/mark_as_read/`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual(NOT_FOUND);
      }
      const [untouched] = await t.database.db
        .select()
        .from(notifications)
        .where(eq(notifications.id, theirs.get('Celle de membre')!));
      expect(untouched!.read).toBe(false);
    });

    it('marks all in scope: query tenant, body tenant, or every tenant; a second call updates nothing', async () => {
      await insertFor('membre', acme(), [
        { title: 'M1', minutesAgo: 3 },
        { title: 'M2', minutesAgo: 2 },
      ]);
      await insertFor('double', acme(), [{ title: 'D-acme', minutesAgo: 2 }]);
      await insertFor('double', horizon(), [
        { title: 'D-horizon-1', minutesAgo: 2 },
        { title: 'D-horizon-2', minutesAgo: 1 },
      ]);
      const unreadIn = async (tenant: string) =>
        (await ok<{ count: number }>('double', `${LIST}unread_count/?tenant=${tenant}`)).count;
      const acmeUnread = await unreadIn(acme());
      const horizonUnread = await unreadIn(horizon());
      expect(horizonUnread).toBeGreaterThanOrEqual(2);

      const byBody = await call('double', 'POST', `${LIST}mark_all_as_read/`, { payload: { tenant: horizon() } });
      expect(byBody.statusCode, byBody.body).toBe(200);
      expect(byBody.json()).toEqual({ updated: horizonUnread });
      expect(await unreadIn(acme())).toBe(acmeUnread);

      const byQuery = await call('double', 'POST', `${LIST}mark_all_as_read/?tenant=${acme()}`, { payload: {} });
      expect(byQuery.json()).toEqual({ updated: acmeUnread });

      await insertFor('double', horizon(), [{ title: 'D-tard', minutesAgo: 0 }]);
      await insertFor('double', acme(), [{ title: 'D-tard', minutesAgo: 0 }]);
      const all = await call('double', 'POST', `${LIST}mark_all_as_read/`);
      expect(all.json()).toEqual({ updated: 2 });
      expect((await call('double', 'POST', `${LIST}mark_all_as_read/`)).json()).toEqual({ updated: 0 });
      expect(await ok('double', `${LIST}unread_count/`)).toEqual({ count: 0 });
      // Another user's notifications stayed unread.
      expect((await ok<{ count: number }>('membre', `${LIST}unread_count/`)).count).toBeGreaterThanOrEqual(2);

      const bad = await call('double', 'POST', `${LIST}mark_all_as_read/`, { payload: { tenant: 42 } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().fields).toEqual({ tenant: [MESSAGES.tenant] });
      const foreign = await call('analyste', 'POST', `${LIST}mark_all_as_read/`, { payload: { tenant: horizon() } });
      expect(foreign.statusCode).toBe(403);
    });
  });

  describe('sending', () => {
    it('lets a manager send to one member: 201 with the created rows, audited as data_change', async () => {
      const analyste = userIds.get('analyste')!;
      const created = await send('manager', {
        title: '  Point sécurité  ',
        body: 'Merci de relire le plan de remédiation.',
        level: 'warning',
        link: '/projects/1?tab=remediation',
        user: analyste,
      });
      expect(created.count).toBe(1);
      const n = created.results[0]!;
      expect(Object.keys(n).sort()).toEqual(FIELDS);
      expect(n).toMatchObject({
        title: 'Point sécurité',
        body: 'Merci de relire le plan de remédiation.',
        level: 'warning',
        link: '/projects/1?tab=remediation',
        kind: 'manual',
        read: false,
        tenant_id: acme(),
        tenant_name: 'Acme Sécurité',
      });
      const list = await ok('analyste', `${LIST}?size=1`);
      expect(list.results[0]).toEqual(n);
      const [row] = await t.database.db.select().from(notifications).where(eq(notifications.id, n.id));
      expect(row).toMatchObject({ userId: analyste, createdBy: userIds.get('manager'), dedupeKey: null });

      const audits = await auditEventsOf(t.database.db, { eventType: 'data_change', userId: userIds.get('manager')! });
      const audit = audits.find((a) => a.details.action === 'notification_created');
      expect(audit).toBeDefined();
      expect(audit!.tenantId).toBe(acme());
      expect(audit!.details).toMatchObject({ count: 1, recipient: analyste, level: 'warning' });
      expect(audit!.description).toContain('Point sécurité');
    });

    it('broadcasts to every active member of the current tenant when no user is named (admin)', async () => {
      const members = await t.database.db
        .select({ id: users.id })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.tenantId, acme()), eq(users.isActive, true)));
      const created = await send('admin', { title: 'Maintenance ce soir', level: 'info' });
      expect(created.count).toBe(members.length);
      const rows = await t.database.db
        .select({ userId: notifications.userId, tenantId: notifications.tenantId })
        .from(notifications)
        .where(
          inArray(
            notifications.id,
            created.results.map((r) => r.id),
          ),
        );
      expect(rows.map((r) => r.userId).sort()).toEqual(members.map((m) => m.id).sort());
      expect(rows.every((r) => r.tenantId === acme())).toBe(true);
      expect(rows.some((r) => r.userId === userIds.get('inactif'))).toBe(false);
      expect(created.results.every((r) => r.level === 'info' && r.link === null && r.body === '')).toBe(true);
      // Each recipient sees it; the inactive member gets nothing.
      expect((await ok('membre', `${LIST}?size=1`)).results[0]!.title).toBe('Maintenance ce soir');
    });

    it('sends in the tenant named by X-Tenant-ID (staff manager in Horizon)', async () => {
      const created = await send(
        'manager',
        { title: 'Message Horizon', user: userIds.get('lecteur') },
        'Banque Horizon',
      );
      expect(created.results[0]).toMatchObject({ tenant_id: horizon(), tenant_name: 'Banque Horizon' });
      expect((await ok('lecteur', `${LIST}?size=1`)).results[0]!.title).toBe('Message Horizon');
    });

    it('refuses users (analyste) and viewers (lecteur) with 403, audited', async () => {
      for (const username of ['analyste', 'lecteur', 'double']) {
        const res = await call(username, 'POST', LIST, { payload: { title: 'Non' } });
        expect(res.statusCode, username).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      const denied = await auditEventsOf(t.database.db, {
        eventType: 'permission_denied',
        userId: userIds.get('lecteur')!,
      });
      expect(denied.some((e) => e.details.path === LIST)).toBe(true);
      const sent = await t.database.db.select().from(notifications).where(eq(notifications.title, 'Non'));
      expect(sent).toHaveLength(0);
    });

    it('validates every field with the contract’s French messages', async () => {
      const cases: [object, string, string][] = [
        [{}, 'title', MESSAGES.title],
        [{ title: '   ' }, 'title', MESSAGES.title],
        [{ title: 'x'.repeat(201) }, 'title', MESSAGES.title],
        [{ title: 42 }, 'title', MESSAGES.title],
        [{ title: 'ok', body: 'x'.repeat(2001) }, 'body', MESSAGES.body],
        [{ title: 'ok', body: ['liste'] }, 'body', MESSAGES.body],
        [{ title: 'ok', level: 'urgent' }, 'level', MESSAGES.level],
        [{ title: 'ok', link: 'https://exemple.fr/' }, 'link', MESSAGES.link],
        [{ title: 'ok', link: '//exemple.fr/piege' }, 'link', MESSAGES.link],
        [{ title: 'ok', link: '/a\\b' }, 'link', MESSAGES.link],
        [{ title: 'ok', link: 'projects/1' }, 'link', MESSAGES.link],
        [{ title: 'ok', link: '/a b' }, 'link', MESSAGES.link],
        [{ title: 'ok', user: 'analyste' }, 'user', MESSAGES.user],
        [{ title: 'ok', user: 999_999 }, 'user', MESSAGES.user],
        // A member of another tenant, and an inactive member, are unknown here.
        [{ title: 'ok', user: userIds.get('lecteur') }, 'user', MESSAGES.user],
        [{ title: 'ok', user: userIds.get('inactif') }, 'user', MESSAGES.user],
      ];
      for (const [payload, field, message] of cases) {
        const res = await call('manager', 'POST', LIST, { payload });
        expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
        expect(res.json()).toMatchObject({ detail: message, code: 'invalid', fields: { [field]: [message] } });
      }
      const several = await call('manager', 'POST', LIST, { payload: { title: '', level: 'x', link: 'x' } });
      expect(Object.keys(several.json().fields).sort()).toEqual(['level', 'link', 'title']);
      expect((await call('manager', 'POST', LIST, { payload: { title: 'ok', couleur: 'rouge' } })).statusCode).toBe(
        400,
      );
      const exact = await send('manager', {
        title: 'x'.repeat(200),
        body: 'y'.repeat(2000),
        level: 'CRITICAL',
        link: '/vulnerabilities/list?severity=critical&scan=3',
        user: userIds.get('membre'),
      });
      expect(exact.results[0]).toMatchObject({
        level: 'critical',
        link: '/vulnerabilities/list?severity=critical&scan=3',
      });
    });
  });

  describe('isolation', () => {
    it('never shows a user another tenant’s or another user’s notifications', async () => {
      await send('manager', { title: 'Secret Horizon', user: userIds.get('horizonien') }, 'Banque Horizon');
      await send('manager', { title: 'Secret membre', user: userIds.get('membre') });
      for (const username of ['analyste', 'double', 'lecteur']) {
        const page = await ok(username, `${LIST}?size=200`);
        const titles = page.results.map((n) => n.title);
        expect(titles).not.toContain('Secret Horizon');
        expect(titles).not.toContain('Secret membre');
        const rows = await t.database.db
          .select({ userId: notifications.userId })
          .from(notifications)
          .where(
            inArray(
              notifications.id,
              page.results.map((n) => n.id),
            ),
          );
        expect(rows.every((r) => r.userId === userIds.get(username))).toBe(true);
        expect(page.count).toBe(rows.length);
      }
      // analyste belongs to Acme alone: every one of theirs is Acme's.
      const mine = await ok('analyste', `${LIST}?size=200`);
      expect(mine.results.every((n) => n.tenant_id === acme())).toBe(true);
      const secret = await t.database.db.select().from(notifications).where(eq(notifications.title, 'Secret membre'));
      const res = await call('analyste', 'POST', `${LIST}${secret[0]!.id}/mark_as_read/`);
      expect(res.statusCode).toBe(404);
    });
  });

  describe('stream', () => {
    let base: string;

    beforeAll(async () => {
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });

    /** Reads server-sent events off a fetch body. */
    const open = async (token: string) => {
      const controller = new AbortController();
      const res = await fetch(`${base}${STREAM}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      let ended = false;
      const next = async (timeoutMs = 10_000): Promise<{ event: string; data: unknown } | 'end'> => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const cut = buffer.indexOf('\n\n');
          if (cut >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const event = /^event: (.+)$/m.exec(block)?.[1];
            const data = /^data: (.+)$/m.exec(block)?.[1];
            if (event && data) return { event, data: JSON.parse(data) as unknown };
            continue;
          }
          if (ended) return 'end';
          const chunk = await Promise.race([
            reader.read(),
            new Promise<never>((_, reject) =>
              setTimeout(() => reject(new Error('no event in time')), Math.max(1, deadline - Date.now())),
            ),
          ]);
          if (chunk.done) ended = true;
          else buffer += decoder.decode(chunk.value, { stream: true });
        }
      };
      return { res, next, close: () => controller.abort() };
    };

    it('sends unread on connect, then each new notification and the new count; cleans up on close', async () => {
      const token = (await signIn(t.app, 'membre')).access;
      const membre = userIds.get('membre')!;
      const unread = (await ok<{ count: number }>('membre', `${LIST}unread_count/`)).count;
      const stream = await open(token);
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.res.headers.get('cache-control')).toBe('no-store');
      expect(stream.res.headers.get('x-accel-buffering')).toBe('no');
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: unread } });
      expect(notifierOf(t.database).bus.listeners(membre)).toBe(1);

      const created = await send('manager', { title: 'En direct', level: 'critical', user: membre });
      expect(await stream.next()).toEqual({ event: 'notification', data: created.results[0] });
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: unread + 1 } });

      // Someone else's notification does not reach this stream; a mark-all does change the count.
      await send('manager', { title: 'Pour analyste', user: userIds.get('analyste') });
      const marked = await call('membre', 'POST', `${LIST}mark_all_as_read/`);
      expect(marked.json()).toEqual({ updated: unread + 1 });
      expect(await stream.next()).toEqual({ event: 'unread', data: { count: 0 } });

      stream.close();
      for (let i = 0; i < 50 && notifierOf(t.database).bus.listeners(membre) > 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(notifierOf(t.database).bus.listeners(membre)).toBe(0);
    });

    it('ends the stream when the access token expires', async () => {
      const membre = userIds.get('membre')!;
      const short = await new SignJWT({ username: 'membre', is_staff: false, is_superuser: false, type: 'access' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(membre))
        .setIssuedAt()
        .setIssuer('vigie')
        .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
        .sign(new TextEncoder().encode(TEST_SECRET));
      const stream = await open(short);
      expect(stream.res.status).toBe(200);
      expect(await stream.next()).toMatchObject({ event: 'unread' });
      expect(await stream.next(6000)).toBe('end');
      expect(notifierOf(t.database).bus.listeners(membre)).toBe(0);
      const expired = await fetch(`${base}${STREAM}`, { headers: { authorization: `Bearer ${short}` } });
      expect(expired.status).toBe(401);
    });

    it('leaves an open stream to the server’s close (which must not wait for it)', async () => {
      const stream = await open((await signIn(t.app, 'double')).access);
      expect(await stream.next()).toMatchObject({ event: 'unread' });
      // afterAll closes the app with this stream still open.
    });
  });
});
