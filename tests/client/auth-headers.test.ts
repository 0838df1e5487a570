import { describe, expect, it } from 'vitest';
import { resetClientState, useClient, useVigieClient } from './harness.ts';
import { useStubBackend } from './stub-backend.ts';
import { apiRequest, ApiError, schemeChallenged, setClientEnvironment } from '../../src/lib/api-client.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { LOGOUT_ENDPOINTS, logout, saveSession, session, type LogoutEffects } from '../../src/lib/auth/session.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';

/** What went on the wire, body included (the harness records headers only). */
interface Sent {
  method: string;
  path: string;
  authorization: string | undefined;
  logoutToken: string | undefined;
  body: unknown;
}

/** Records every request the client sends, then lets the real fetch do it. */
function recordWire(): Sent[] {
  const sent: Sent[] = [];
  setClientEnvironment({
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const text = await req.clone().text();
      sent.push({
        method: req.method,
        path: new URL(req.url).pathname,
        authorization: req.headers.get('authorization') ?? undefined,
        logoutToken: req.headers.get('logout-token') ?? undefined,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      });
      return globalThis.fetch(req);
    },
  });
  return sent;
}

/** Logout's effects, kept in the test: no navigation, timers run at once. */
const quietEffects: LogoutEffects = { purgeOfflineData: () => {}, navigate: () => {}, setTimeout: () => undefined };

const isLogout = (s: Sent) => (LOGOUT_ENDPOINTS as readonly string[]).includes(s.path);

describe('against the Vigie server (spec §7 authorization styles)', () => {
  const { t } = useVigieClient();

  it('calls with Bearer, and logs out on all three endpoints in the Token style with the logout-token header', async () => {
    const sent = recordWire();
    await login({ username: 'manager', password: TEST_PASSWORD });
    await apiRequest('/users/me/');
    const { access_token: access, refresh_token: refresh } = session.value!.tokens;

    await logout(quietEffects);

    // Every call but logout carries a Bearer token (row 7.2: Bearer where spec §7 says nothing else).
    const authorised = sent.filter((s) => s.authorization && !isLogout(s));
    expect(authorised.length).toBeGreaterThan(0);
    for (const s of authorised) expect(s.authorization, s.path).toBe(`Bearer ${access}`);
    // Row 7.7: the three endpoints, each with « Token <access> », the logout-token header and both body fields.
    const outs = sent.filter(isLogout);
    expect(outs.map((s) => `${s.method} ${s.path}`).sort()).toEqual(LOGOUT_ENDPOINTS.map((p) => `POST ${p}`).sort());
    for (const s of outs) {
      expect(s.authorization).toBe(`Token ${access}`);
      expect(s.logoutToken).toBe(refresh);
      expect(s.body).toEqual({ refresh, logout_token: refresh });
    }
    expect(session.value).toBeNull();

    // The server understood them: the session is revoked, its refresh token refused.
    const again = await t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: { refresh } });
    expect(again.statusCode).toBe(401);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/',
      headers: { authorization: `Bearer ${access}` },
    });
    expect(me.statusCode).toBe(401);
  });
});

/**
 * DRF-style backends: TokenAuthentication wants `Token <key>` and challenges a Bearer header with
 * `WWW-Authenticate: Token`; SimpleJWT wants Bearer and challenges with `Bearer realm="api"`.
 */
describe('against DRF-style backends (spec §7: a Bearer style or a Token style)', () => {
  const KEY = 'drf-key-0123456789abcdef';
  const PROFILE = { id: 7, username: 'jdupont', email: 'j.dupont@client.fr', is_active: true };
  let wants: 'Token' | 'Bearer' = 'Token';
  /** When set, even the right style is refused (an expired token). */
  let expired = false;
  let hits: { method: string; path: string; authorization: string | undefined; body: unknown }[] = [];
  const base = useStubBackend(({ method, path, headers, body }) => {
    hits.push({ method, path, authorization: headers.authorization, body });
    const reply = (status: number, json: unknown, extra: Record<string, string> = {}) => ({
      status,
      json,
      headers: extra,
    });
    if (method === 'POST' && path === '/api/token/') return reply(200, { access: KEY, refresh: 'drf-refresh' });
    if (method === 'POST' && path === '/api/token/refresh/') return reply(401, { detail: 'Token is invalid' });
    if (method === 'POST' && (LOGOUT_ENDPOINTS as readonly string[]).includes(path)) return reply(200, {});
    if (headers.authorization !== `${wants} ${KEY}` || expired)
      return reply(
        401,
        { detail: 'Authentication credentials were not provided.' },
        { 'WWW-Authenticate': wants === 'Token' ? 'Token' : 'Bearer realm="api"' },
      );
    if (path === '/api/users/me/') return reply(200, PROFILE);
    if (path === '/api/projects/') return reply(200, []);
    return undefined;
  });

  async function fresh(style: 'Token' | 'Bearer') {
    await resetClientState();
    useClient(base());
    wants = style;
    expired = false;
    hits = [];
  }

  it('TokenAuthentication: the challenge switches to the Token style, from sign-in on, without a refresh', async () => {
    await fresh('Token');
    const profile = await login({ username: 'jdupont', password: 'pw' });
    expect(profile.username).toBe('jdupont');
    expect(await apiRequest('/projects/')).toEqual([]);
    expect(await apiRequest('/projects/')).toEqual([]);
    const authed = hits.filter((h) => h.authorization);
    expect(authed.map((h) => `${h.path} ${h.authorization}`)).toEqual([
      `/api/users/me/ Bearer ${KEY}`,
      `/api/users/me/ Token ${KEY}`,
      `/api/projects/ Token ${KEY}`,
      `/api/projects/ Token ${KEY}`,
    ]);
    expect(hits.some((h) => h.path === '/api/token/refresh/')).toBe(false);
    expect(session.value?.profile.username).toBe('jdupont');
    await resetClientState();
  });

  it('SimpleJWT: stays with Bearer; logout still goes out in the Token style with both body fields', async () => {
    await fresh('Bearer');
    await login({ username: 'jdupont', password: 'pw' });
    expect(await apiRequest('/projects/')).toEqual([]);
    expect(hits.filter((h) => h.authorization && !h.path.includes('logout')).map((h) => h.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
    ]);
    await logout(quietEffects);
    const outs = hits.filter((h) => (LOGOUT_ENDPOINTS as readonly string[]).includes(h.path));
    expect(outs).toHaveLength(3);
    for (const h of outs) {
      expect(h.authorization).toBe(`Token ${KEY}`);
      expect(h.body).toEqual({ refresh: 'drf-refresh', logout_token: 'drf-refresh' });
    }
  });

  it('a refusal in the style already sent is a refused token: one refresh attempt, then signed out, no loop', async () => {
    await fresh('Token');
    await saveSession({
      tokens: { access_token: KEY, refresh_token: 'drf-refresh', expires_at: Date.now() + 3600_000 },
      profile: PROFILE,
    });
    expired = true;
    const err = await apiRequest('/projects/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    // Bearer, then Token once (the challenge), then the spec §4 refresh, refused: signed out.
    expect(hits.map((h) => `${h.method} ${h.path} ${h.authorization ?? '-'}`).slice(0, 3)).toEqual([
      `GET /api/projects/ Bearer ${KEY}`,
      `GET /api/projects/ Token ${KEY}`,
      'POST /api/token/refresh/ -',
    ]);
    expect(hits.filter((h) => h.path === '/api/projects/')).toHaveLength(2);
    expect(session.value).toBeNull();
    await resetClientState();
  });

  it('reads only Bearer and Token challenges, and only when they differ from the style sent', () => {
    expect(schemeChallenged('Token', 'Bearer')).toBe('Token');
    expect(schemeChallenged('Bearer realm="api"', 'Token')).toBe('Bearer');
    expect(schemeChallenged('token', 'Token')).toBeUndefined();
    expect(schemeChallenged('Basic realm="x"', 'Bearer')).toBeUndefined();
    expect(schemeChallenged('Tokenish', 'Bearer')).toBeUndefined();
    expect(schemeChallenged(null, 'Bearer')).toBeUndefined();
  });
});
