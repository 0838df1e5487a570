import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetClientState, useClient, type Observed } from './harness.ts';
import { useStubBackend } from './stub-backend.ts';
import { login, LoginError } from '../../src/features/auth/api/login.ts';
import { ProfileError } from '../../src/lib/auth/profile.ts';
import { refreshTokens, REFRESH_MESSAGES, saveSession, session } from '../../src/lib/auth/session.ts';

/** A JWT-shaped token with the given claims (the client decodes, it never verifies). */
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `${b64({ alg: 'none' })}.${b64(claims)}.sig`;

type Handler = (body: Record<string, unknown>) => { status: number; json?: unknown } | undefined;

/**
 * Another backend speaking the same contract differently (DRF/SimpleJWT and friends). Each test installs the
 * routes it needs; anything else is a 404.
 */
let routes: Record<string, Handler> = {};
let seen: Observed;
const base = useStubBackend(({ method, path, body }) => routes[`${method} ${path}`]?.(body));

beforeEach(async () => {
  await resetClientState();
  routes = {};
  seen = useClient(base());
});
afterEach(async () => resetClientState());

const PROFILE = { id: 12, username: 'jdupont', email: 'j.dupont@client.fr', is_active: true, first_name: 'Jean' };

describe('sign-in on other backends', () => {
  it('SimpleJWT style: /api/token/ missing, /api/auth/token/ answers {access, refresh}, profile on the third endpoint', async () => {
    routes['POST /api/auth/token/'] = () => ({ status: 200, json: { access: jwt({ user_id: 12 }), refresh: 'r1' } });
    routes['GET /api/users/me/'] = () => ({ status: 404 });
    routes['GET /api/user/profile/'] = () => ({ status: 200, json: { count: 1, results: [PROFILE] } }); // paged: not a profile
    routes['GET /api/v1/users/me/'] = () => ({ status: 200, json: PROFILE });
    const profile = await login({ username: 'jdupont', password: 'pw' });
    expect(profile).toEqual(PROFILE);
    expect(session.value!.tokens.refresh_token).toBe('r1');
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/token/',
      'POST /api/auth/token/',
      'GET /api/users/me/',
      'GET /api/user/profile/',
      'GET /api/v1/users/me/',
    ]);
  });

  it('a 401 tries the next credential format on the same endpoint', async () => {
    const bodies: Record<string, unknown>[] = [];
    routes['POST /api/token/'] = (body) => {
      bodies.push(body);
      return 'username' in body
        ? { status: 401, json: { detail: 'No active account' } }
        : { status: 200, json: { user: PROFILE, tokens: { access_token: jwt({ sub: '12' }), refresh_token: 'r2' } } };
    };
    const profile = await login({ username: 'jdupont', password: 'pw' });
    expect(profile.username).toBe('jdupont');
    // First the full format (with the derived local-domain email), then email and password alone.
    expect(bodies).toEqual([
      { username: 'jdupont', email: 'jdupont@localhost', identifier: 'jdupont', password: 'pw' },
      { email: 'jdupont@localhost', password: 'pw' },
    ]);
    expect(session.value!.tokens.refresh_token).toBe('r2');
  });

  it('sends a username containing @ as the email too', async () => {
    const bodies: Record<string, unknown>[] = [];
    routes['POST /api/token/'] = (body) => {
      bodies.push(body);
      return { status: 200, json: { access_token: jwt({ sub: '12' }), refresh_token: 'r', user: PROFILE } };
    };
    await login({ username: 'j.dupont@client.fr', password: 'pw' });
    expect(bodies[0]).toMatchObject({ username: 'j.dupont@client.fr', email: 'j.dupont@client.fr' });
  });

  it('accepts the token{access, refresh} shape and rebuilds the profile from the claims when no endpoint has one', async () => {
    routes['POST /token/'] = () => ({
      status: 200,
      json: { token: { access: jwt({ sub: '5', username: 'ops', is_staff: true }), refresh: 'r3' } },
    });
    const profile = await login({ username: 'ops', password: 'pw' });
    expect(profile).toMatchObject({ id: 5, username: 'ops', role: 'manager' });
    expect(seen.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual([
      '/api/token/',
      '/api/auth/token/',
      '/auth/token/',
      '/token/',
    ]);
  });

  it('uses the user-data endpoint when it is the only one, and rejects inactive accounts there', async () => {
    routes['POST /api/token/'] = () => ({ status: 200, json: { access: 'opaque-token', refresh: 'r' } });
    routes['GET /api/tenants/user-data/'] = () => ({ status: 200, json: { authenticated: true, user: PROFILE } });
    expect((await login({ username: 'jdupont', password: 'pw' })).id).toBe(12);

    await resetClientState();
    seen = useClient(base());
    routes['GET /api/tenants/user-data/'] = () => ({
      status: 200,
      json: { authenticated: true, user: { ...PROFILE, is_active: false } },
    });
    const err = await login({ username: 'jdupont', password: 'pw' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProfileError);
    expect((err as ProfileError).flag).toBe('auth_failed');
    expect(session.value).toBeFalsy();
  });

  it('says profile_error when no profile endpoint answers at all and the token is opaque', async () => {
    routes['POST /api/token/'] = () => ({ status: 200, json: { access: 'opaque-token', refresh: 'r' } });
    for (const p of [
      '/api/users/me/',
      '/api/user/profile/',
      '/api/v1/users/me/',
      '/api/v1/api/users/me/',
      '/api/tenants/user-data/',
    ]) {
      routes[`GET ${p}`] = () => ({ status: 503 });
    }
    const err = await login({ username: 'jdupont', password: 'pw' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProfileError);
    expect((err as ProfileError).message).toBe('Impossible de récupérer le profil utilisateur après connexion');
    expect((err as ProfileError).flag).toBe('profile_error');
  });

  it.each([
    [{}, 'Format de réponse non reconnu'],
    [{ user: PROFILE }, 'No valid token or user data received after login'],
    [[], 'Format de réponse non reconnu'],
  ])('refuses the answer %j with "%s"', async (json, message) => {
    routes['POST /api/token/'] = () => ({ status: 200, json });
    await expect(login({ username: 'a', password: 'b' })).rejects.toThrow(message);
  });

  it('says "Aucune donnée reçue après la connexion" for an empty answer', async () => {
    routes['POST /api/token/'] = () => ({ status: 204 });
    await expect(login({ username: 'a', password: 'b' })).rejects.toThrow('Aucune donnée reçue après la connexion');
  });

  it('stops at "Two-factor authentication required" without trying other endpoints', async () => {
    routes['POST /api/token/'] = () => ({
      status: 403,
      json: { detail: 'Two-factor authentication required', two_factor_required: true },
    });
    const err = await login({ username: 'a', password: 'b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect((err as LoginError).twoFactorRequired).toBe(true);
    expect(seen.requests).toHaveLength(1);
  });

  it('gives "Échec de la connexion avec tous les endpoints"-level errors when nothing answers', async () => {
    await resetClientState();
    seen = useClient('http://127.0.0.1:1');
    const err = await login({ username: 'a', password: 'b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect((err as LoginError).status).toBe(0);
    expect(seen.noResponse).toBe(4);
  });
});

describe('refresh answer shapes (spec §7) and errors (spec §8)', () => {
  const signedIn = (refresh = 'r0') =>
    saveSession({
      tokens: { access_token: 'a.b.c', refresh_token: refresh, expires_at: Date.now() + 1000 },
      profile: PROFILE,
    });

  it.each([
    [{ access: 'A1', refresh: 'R1' }, 'A1', 'R1'],
    [{ tokens: { access_token: 'A2', refresh_token: 'R2' } }, 'A2', 'R2'],
    [{ access_token: 'A3', refresh_token: 'R3' }, 'A3', 'R3'],
    [{ token: { access: 'A4', refresh: 'R4' } }, 'A4', 'R4'],
    [{ access: 'A5' }, 'A5', 'r0'],
  ])('reads %j', async (json, access, refresh) => {
    const sent: unknown[] = [];
    routes['POST /api/token/refresh/'] = (body) => {
      sent.push(body);
      return { status: 200, json };
    };
    await signedIn();
    const tokens = await refreshTokens();
    expect(tokens).toMatchObject({ access_token: access, refresh_token: refresh });
    expect(tokens.expires_at).toBeGreaterThan(Date.now() + 3500_000);
    expect(sent).toEqual([{ refresh: 'r0', refresh_token: 'r0' }]);
  });

  it('gives 30 minutes after a refresh in the 401 path when the server states no lifetime', async () => {
    routes['POST /api/token/refresh/'] = () => ({ status: 200, json: { access: 'A', refresh: 'R' } });
    await signedIn();
    const tokens = await refreshTokens({ retryPath: true });
    expect(tokens.expires_at - Date.now()).toBeGreaterThan(1790_000);
    expect(tokens.expires_at - Date.now()).toBeLessThanOrEqual(1800_000);
  });

  it('fails with "Invalid token refresh response structure" and signs out', async () => {
    routes['POST /api/token/refresh/'] = () => ({ status: 200, json: { ok: true } });
    await signedIn();
    await expect(refreshTokens()).rejects.toThrow(REFRESH_MESSAGES.structure);
    expect(session.value).toBeNull();
  });

  it('fails with "No refresh token available" without calling the server', async () => {
    await signedIn('');
    await expect(refreshTokens()).rejects.toThrow(REFRESH_MESSAGES.missing);
    expect(seen.requests).toEqual([]);
    expect(session.value).toBeNull();
  });
});
