import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { auditEvents } from '../../server/src/db/schema.ts';
import { signIn, TEST_PASSWORD } from './helpers.ts';
import { backend, useTestApp } from './support/app.ts';

describe(`POST /api/audit/events/ (${backend})`, () => {
  const t = useTestApp();

  const event = (over: Record<string, unknown> = {}) => ({
    event_id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    event_type: 'route_change',
    severity: 'info',
    details: { description: 'Navigation vers /dashboard', to: '/dashboard' },
    source: 'frontend',
    url: 'http://localhost/dashboard',
    user_agent: 'test',
    ...over,
  });
  const stored = (clientEventId: string) =>
    t.database.db.select().from(auditEvents).where(eq(auditEvents.clientEventId, clientEventId));

  it('stores events sent by fetch with a Bearer token, in the user’s tenant, as frontend events', async () => {
    const { access, user } = await signIn(t.app, 'analyste');
    const e1 = event({ severity: 'warning', event_type: 'access_denied', user_id: 999, tenant_id: 'forged' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/audit/events/',
      headers: { authorization: `Bearer ${access}` },
      payload: { events: [e1, event()] },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ accepted: 2, duplicates: 0 });
    const [row] = await stored(e1.event_id);
    expect(row).toMatchObject({
      eventType: 'access_denied',
      severity: 'WARNING',
      source: 'frontend',
      username: 'analyste',
      tenantId: (user.current_tenant as { id: string }).id,
    });
    expect(row!.userId).not.toBe(999);
    expect(row!.details).toMatchObject({ url: 'http://localhost/dashboard', success: true });
  });

  it('describes in French an event the application sent without a description: no raw type shows through', async () => {
    const { access } = await signIn(t.app, 'analyste');
    const sent = [
      event({ event_type: 'route_change', details: { path: '/assets', from: '/' } }),
      event({ event_type: 'permission_check', details: { permission: 'write', result: 'denied', path: '/assets' } }),
      event({ event_type: 'login', details: {} }),
      event({ event_type: 'ui_action', details: { action: 'mock_api_mode', enabled: true } }),
      event({ event_type: 'ui_action', details: { action: 'constructor' } }),
      event({
        event_type: 'api_error',
        severity: 'error',
        details: { url: '/api/assets/', method: 'GET', status: 502 },
      }),
      event({ event_type: 'login_failed', severity: 'warning', details: { username: 'ana', reason: 'x' } }),
      event({ event_type: 'something_new', details: {} }),
    ];
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/audit/events/',
      headers: { authorization: `Bearer ${access}` },
      payload: { events: sent },
    });
    expect(res.statusCode).toBe(202);
    const descriptions = [];
    for (const e of sent) descriptions.push((await stored(e.event_id))[0]?.description);
    expect(descriptions).toEqual([
      'Affichage de l’écran /assets',
      'Droit « modification des données » refusé',
      'Connexion à l’application',
      'Mode API simulée activé',
      'Action dans l’interface',
      'Erreur 502 de l’API sur /api/assets/',
      'Échec de connexion du compte « ana »',
      'Événement de l’application',
    ]);
    for (const d of descriptions) expect(d).not.toMatch(/[a-z]+_[a-z]+/);
  });

  it('accepts a beacon: text/plain JSON carrying the token, and stores a re-sent event once', async () => {
    const { access } = await signIn(t.app, 'manager');
    const e = event();
    const beacon = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/audit/events/',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        payload: JSON.stringify({ events: [e], token: access }),
      });
    expect((await beacon()).json()).toEqual({ accepted: 1, duplicates: 0 });
    expect((await beacon()).json()).toEqual({ accepted: 0, duplicates: 1 });
    const rows = await stored(e.event_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.username).toBe('manager');
  });

  it('accepts a beacon authenticated by the session cookie alone', async () => {
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'manager', password: TEST_PASSWORD },
    });
    const access = (login.cookies as { name: string; value: string }[]).find((c) => c.name === 'vigie_access')!.value;
    const e = event();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/audit/events/',
      headers: { 'content-type': 'text/plain', cookie: `vigie_access=${access}` },
      payload: JSON.stringify({ events: [e] }),
    });
    expect(res.statusCode).toBe(202);
    expect((await stored(e.event_id))[0]!.username).toBe('manager');
  });

  it('stores unauthenticated events flagged and without a tenant, and rate-limits them per IP', async () => {
    const e = event({ event_type: 'token_expired' });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/audit/events/',
      remoteAddress: '192.0.2.44',
      payload: { events: [e] },
    });
    expect(res.statusCode).toBe(202);
    const [row] = await stored(e.event_id);
    expect(row!.tenantId).toBeNull();
    expect(row!.userId).toBeNull();
    expect(row!.details).toMatchObject({ unauthenticated: true });

    const flood = await t.app.inject({
      method: 'POST',
      url: '/api/audit/events/',
      remoteAddress: '192.0.2.44',
      payload: { events: Array.from({ length: 60 }, () => event()) },
    });
    expect(flood.statusCode).toBe(429);
  });

  it('refuses malformed, oversized and overlong batches with a 4xx and stores nothing', async () => {
    const { access } = await signIn(t.app, 'analyste');
    const send = (payload: string | object, contentType = 'application/json') =>
      t.app.inject({
        method: 'POST',
        url: '/api/audit/events/',
        headers: { authorization: `Bearer ${access}`, 'content-type': contentType },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
    const before = (await t.database.db.select().from(auditEvents)).length;
    expect((await send('{"events": [', 'text/plain')).statusCode).toBe(400);
    expect((await send({ events: 'x' })).statusCode).toBe(400);
    expect((await send({ events: [1, 2] })).statusCode).toBe(400);
    expect((await send({ events: Array.from({ length: 201 }, () => event()) })).statusCode).toBe(413);
    expect((await send({ events: [event({ details: { blob: 'x'.repeat(300 * 1024) } })] })).statusCode).toBe(413);
    expect((await t.database.db.select().from(auditEvents)).length).toBe(before);
  });
});
