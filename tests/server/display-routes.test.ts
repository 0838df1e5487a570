import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/src/db/client.ts';
import { DISPLAY_AUDIT_EVENTS, DISPLAY_READS } from '../../server/src/policies/index.ts';
import { signIn } from './helpers.ts';
import { appWithRouteList } from './support/route-list.ts';
import { jsonOf, type Method } from './support/api.ts';
import { backend } from './support/app.ts';
import { DISPLAY_FORBIDDEN, screenOf } from './support/displays.ts';
import { auditEventsOf } from './support/world.ts';

// The device credential against every route the app registers (issue 22: « refused on every non-kiosk route and
// every write, a table over the route list »): the routes are collected as they register, so a new route is in the
// table the day it is written.

/** A URL for a route's path: each parameter filled in (the refusal comes before any parameter is looked at). */
const urlOf = (route: string) =>
  route
    .replace(/:[A-Za-z_]+/g, '1')
    .replace(/\*$/, 'x')
    .replace(/\*/g, 'x');

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

describe(`display credential over the whole route list (${backend})`, () => {
  let fastify: FastifyInstance;
  let close: (() => Promise<void>) | undefined;
  let database: Database;
  let routes: { method: Method; url: string }[] = [];
  const screen = screenOf(() => fastify);
  let token: string;
  let displayId: string;
  let tenantId: string;

  beforeAll(async () => {
    const built = await appWithRouteList();
    ({ fastify, database, close } = built);
    routes = built.routes.flatMap((route) => [route.method].flat().map((method) => ({ method, url: route.url })));

    const pairing = await screen.pair();
    const { access } = await signIn(fastify, 'manager');
    const approved = await fastify.inject({
      method: 'POST',
      url: '/api/displays/',
      headers: { authorization: `Bearer ${access}` },
      payload: { code: pairing.code, name: 'Mur des routes' },
    });
    const created = jsonOf<{ id: string; tenants: { id: string }[] }>(approved, 201);
    displayId = created.id;
    tenantId = created.tenants[0]!.id;
    token = jsonOf<{ token: string }>(await screen.poll(pairing), 200).token;
  });
  afterAll(async () => {
    await close?.();
  });

  it('collects the whole route list, the kiosk reads among it', () => {
    expect(routes.length).toBeGreaterThan(200);
    const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
    for (const read of DISPLAY_READS) expect(gets.has(read), read).toBe(true);
  });

  it('is refused (403) on every route outside the kiosk reads and on every write but its own audit events', async () => {
    const answered: string[] = [];
    const wrong: string[] = [];
    for (const { method, url } of routes) {
      if (method === 'GET' && DISPLAY_READS.includes(url)) continue;
      if (method === 'POST' && url === DISPLAY_AUDIT_EVENTS) continue;
      const res = await screen.as(token, method, urlOf(url), WRITES.has(method) ? { payload: {} } : {});
      answered.push(`${method} ${url}`);
      if (res.statusCode !== 403) wrong.push(`${method} ${url} → ${res.statusCode}`);
      else if (method !== 'HEAD') expect(res.json(), `${method} ${url}`).toEqual(DISPLAY_FORBIDDEN);
    }
    expect(wrong).toEqual([]);
    // Every method on the reads' own paths but GET, and the writes of every area, were among them.
    expect(answered).toContain('POST /api/vulnerabilities/vulnerabilities/');
    expect(answered).toContain('HEAD /api/dashboard/summary/');
    expect(answered).toContain('GET /api/users/me/');
    expect(answered).toContain('GET /api/admin/users/');
    expect(answered).toContain('GET /api/audit/results/');
    expect(answered).toContain('GET /api/vulnerabilities/export/');
    expect(answered).toContain('POST /api/displays/pairings/');
    expect(answered).toContain('PATCH /api/displays/:id/');
    expect(answered).toContain('DELETE /api/displays/:id/');
  });

  it('sends its own client audit events: kept in its tenant’s trail under its id, no person named', async () => {
    const events = [
      {
        event_id: 'wall-evt-1',
        event_type: 'api_error',
        severity: 'error',
        timestamp: new Date().toISOString(),
        url: 'http://localhost/kiosk',
        details: { status: 0, path: '/api/threats/summary/', user_id: 1, username: 'admin' },
      },
    ];
    const res = await screen.as(token, 'POST', DISPLAY_AUDIT_EVENTS, { payload: { events } });
    expect(jsonOf(res, 202)).toEqual({ accepted: 1, duplicates: 0 });
    const [line] = await auditEventsOf(database.db, { eventType: 'api_error' }, { newestFirst: true, limit: 1 });
    expect(line?.tenantId).toBe(tenantId);
    expect(line?.userId).toBeNull();
    expect(line?.username).toBeNull();
    expect(line?.source).toBe('frontend');
    expect(line?.details).toMatchObject({ display_id: displayId });
    expect((line?.details as { unauthenticated?: boolean }).unauthenticated).toBeUndefined();
    // Its own budget: 300 events a minute, then 429.
    const many = Array.from({ length: 50 }, (_, i) => ({ ...events[0]!, event_id: `wall-burst-${i}` }));
    const codes: number[] = [];
    for (let i = 0; i < 7; i++)
      codes.push((await screen.as(token, 'POST', DISPLAY_AUDIT_EVENTS, { payload: { events: many } })).statusCode);
    expect(codes).toEqual([202, 202, 202, 202, 202, 429, 429]);
  });

  it('is refused on a path no route serves too', async () => {
    for (const url of ['/api/nulle-part/', '/api/displays/me/extra/']) {
      expect(jsonOf(await screen.as(token, 'GET', url), 403)).toEqual(DISPLAY_FORBIDDEN);
    }
  });

  it('reads every kiosk read (neither 401 nor 403)', async () => {
    for (const url of DISPLAY_READS) {
      const res = await screen.as(token, 'GET', url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    }
  });

  it('leaves its refusals in the audit trail', async () => {
    const lines = await auditEventsOf(database.db, {
      eventType: 'permission_denied',
      description: 'Accès refusé : écran d’affichage hors de ses lectures',
    });
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.every((l) => (l.details as { display_id?: string }).display_id === displayId)).toBe(true);
  });
});
