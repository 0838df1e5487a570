import { afterEach, describe, expect, it } from 'vitest';
import { signIn, TEST_PASSWORD } from '../server/helpers.ts';
import { useVigieClient } from './harness.ts';
import { apiRequest, ApiError } from '../../src/lib/api-client.ts';
import { login, LoginError, loginErrorMessage, loginFormError } from '../../src/features/auth/api/login.ts';
import {
  isAuthenticated,
  logout,
  onAuthChange,
  refreshTokens,
  restoreSession,
  saveSession,
  session,
  SESSION_KEY,
  sessionExpired,
  type Session,
  switchTenant,
} from '../../src/lib/auth/session.ts';
import { startTokenRefresh, type TokenRefresh } from '../../src/lib/auth/token-refresh.ts';
import { kvGet } from '../../src/lib/storage.ts';
import type { UserProfile } from '../../src/lib/auth/types.ts';

const { t, seen, pointClient } = useVigieClient();
let scheduler: TokenRefresh | undefined;
afterEach(() => {
  scheduler?.stop();
  scheduler = undefined;
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sign-in against the Vigie server', () => {
  it('stores tokens and profile in IndexedDB, tells listeners, and sends Bearer + tenant afterwards', async () => {
    const events: boolean[] = [];
    const off = onAuthChange((v) => events.push(v));
    const profile = await login({ username: 'manager', password: TEST_PASSWORD });
    off();
    expect(profile.username).toBe('manager');
    expect(events).toEqual([true]);
    expect(isAuthenticated.value).toBe(true);
    const stored = await kvGet<{ tokens: { access_token: string; expires_at: number } }>(SESSION_KEY);
    expect(stored!.tokens.access_token.split('.')).toHaveLength(3);
    expect(stored!.tokens.expires_at).toBeGreaterThan(Date.now() + 3500_000);
    // The first endpoint answered: nothing else of the chain was tried.
    expect(seen.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/api/token/']);

    const me = await apiRequest<UserProfile>('/users/me/');
    expect(me.username).toBe('manager');
    const last = seen.requests.at(-1)!;
    expect(last.path).toBe('/api/users/me/');
    expect(last.headers.authorization).toMatch(/^Bearer /);
    expect(last.headers['x-requested-with']).toBe('XMLHttpRequest');
    expect(last.headers['x-tenant-id']).toBe(profile.current_tenant!.id);
  });

  it('restores the session after a reload', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    session.value = undefined;
    await restoreSession();
    const restored = (): Session | null | undefined => session.value;
    expect(restored()?.profile.username).toBe('analyste');
  });

  it('reports bad credentials with the server message after trying the chain', async () => {
    const err = await login({ username: 'manager', password: 'wrong' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LoginError);
    expect((err as LoginError).status).toBe(400);
    expect((err as LoginError).message).toBe('Invalid credentials');
    expect(loginErrorMessage(err)).toBe(
      'Invalid credentials — identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.',
    );
    expect(seen.requests.map((r) => r.path)).toEqual(['/api/token/', '/api/auth/token/', '/auth/token/', '/token/']);
    expect(isAuthenticated.value).toBe(false);
  });

  it('validates before calling anything (spec §5)', async () => {
    await expect(login({ username: ' ', password: 'x' })).rejects.toThrow('Username is required');
    await expect(login({ username: 'a', password: '' })).rejects.toThrow('Password is required');
    expect(seen.requests).toEqual([]);
  });

  it('shows spec §5’s texts in French on the form and spec §8’s exactly, with their French sense', () => {
    expect(loginErrorMessage(new LoginError('Username is required', 0))).toBe('Nom d’utilisateur obligatoire.');
    expect(loginErrorMessage(new LoginError('Password is required', 0))).toBe('Mot de passe obligatoire.');
    const otp = new LoginError('Two-factor authentication required', 403, true);
    expect(otp.message).toBe('Two-factor authentication required');
    expect(loginErrorMessage(otp)).toBe(
      'Two-factor authentication required — double authentification requise : saisissez le code de votre application.',
    );
    expect(loginFormError({ username: '', password: '' })).toBe('Identifiants incomplets');
    expect(loginFormError({ username: ' ', password: 'x' })).toBe('Nom d’utilisateur obligatoire.');
    expect(loginFormError({ username: 'a', password: 'x' })).toBeNull();
  });

  it('sends the current tenant chosen in the switcher', async () => {
    const profile = await login({ username: 'admin', password: TEST_PASSWORD });
    const horizon = profile.tenants!.find((x) => x.name === 'Banque Horizon')!;
    await switchTenant(horizon.id);
    const me = await apiRequest<UserProfile>('/users/me/');
    expect(me.current_tenant).toEqual({ id: horizon.id, name: 'Banque Horizon' });
  });
});

describe('401 handling', () => {
  it('refreshes once, retries once, and shares one refresh between concurrent 401s', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    // An access token the server no longer accepts (signed for someone else's key would do too).
    await saveSession({ ...session.value!, tokens: { ...session.value!.tokens, access_token: 'a.b.c' } });
    seen.requests.length = 0;
    const answers = await Promise.all([
      apiRequest<UserProfile>('/users/me/'),
      apiRequest<UserProfile>('/current-user/'),
      apiRequest<UserProfile>('/tenants/user-data/'),
    ]);
    for (const answer of answers) expect(JSON.stringify(answer)).toContain('"username":"manager"');
    expect(seen.requests.filter((r) => r.path === '/api/token/refresh/')).toHaveLength(1);
    expect(session.value!.tokens.access_token).not.toBe('a.b.c');
    expect(seen.navigations).toEqual([]);
  });

  it('signs out and redirects to /login?session_expired=true after 100 ms when the refresh fails', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    const events: boolean[] = [];
    const off = onAuthChange((v) => events.push(v));
    await saveSession({
      ...session.value!,
      tokens: { ...session.value!.tokens, access_token: 'a.b.c', refresh_token: 'x.y.z' },
    });
    const err = await apiRequest('/users/me/').catch((e: unknown) => e);
    off();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect(session.value).toBeNull();
    expect(await kvGet(SESSION_KEY)).toBeUndefined();
    expect(events).toEqual([false]);
    expect(seen.navigations).toEqual([]);
    await wait(150);
    expect(seen.navigations).toEqual(['/login?session_expired=true']);
  });

  it('without a refresh token, signs out at once', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    await saveSession({
      ...session.value!,
      tokens: { ...session.value!.tokens, access_token: 'a.b.c', refresh_token: '' },
    });
    await expect(apiRequest('/users/me/')).rejects.toMatchObject({ status: 401 });
    expect(seen.requests.some((r) => r.path === '/api/token/refresh/')).toBe(false);
    expect(session.value).toBeNull();
  });
});

/** What a reload finds the next morning: the stored session with its access token expired (a 14 h old record). */
async function nextMorning(accessToken?: string): Promise<Session> {
  const s = session.value!;
  const aged: Session = {
    ...s,
    tokens: {
      ...s.tokens,
      ...(accessToken ? { access_token: accessToken } : {}),
      expires_at: Date.now() - 13 * 3600_000,
    },
  };
  await saveSession(aged);
  session.value = undefined;
  sessionExpired.value = false;
  return aged;
}

const refreshRequests = () => seen.requests.filter((r) => r.path === '/api/token/refresh/');

describe('sessions survive the night (issue 15)', () => {
  it('a reload with an expired access token and a valid refresh token stays signed in and refreshes once', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    const aged = await nextMorning();
    seen.requests.length = 0;

    await restoreSession();
    expect(isAuthenticated.value).toBe(true);
    scheduler = startTokenRefresh();
    await scheduler.firstCheck;

    expect(refreshRequests()).toHaveLength(1);
    // (The access token may read the same: a JWT issued within the same second with the same claims is identical.)
    const stored = await kvGet<Session>(SESSION_KEY);
    expect(stored!.tokens.refresh_token).not.toBe(aged.tokens.refresh_token);
    expect(stored!.tokens.expires_at).toBeGreaterThan(Date.now() + 3500_000);
    // The new access token is accepted as it is: no 401, no second refresh.
    const me = await apiRequest<UserProfile>('/users/me/');
    expect(me.username).toBe('analyste');
    expect(refreshRequests()).toHaveLength(1);
    expect(seen.navigations).toEqual([]);
  });

  it('the start and concurrent 401s share one refresh: the rotated family stays valid on the server', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    // Expired for the client, refused by the server: every request below answers 401 first.
    await nextMorning('a.b.c');
    await restoreSession();
    seen.requests.length = 0;

    scheduler = startTokenRefresh();
    const answers = await Promise.all([
      apiRequest<UserProfile>('/users/me/'),
      apiRequest<UserProfile>('/current-user/'),
      refreshTokens(),
      scheduler.firstCheck,
    ]);
    expect(answers[0].username).toBe('manager');
    expect(JSON.stringify(answers[1])).toContain('"username":"manager"');
    expect(refreshRequests()).toHaveLength(1);
    // A reused refresh token would have revoked the whole family: the next refresh would fail and sign out.
    await refreshTokens();
    expect(refreshRequests()).toHaveLength(2);
    expect(session.value).not.toBeNull();
    expect(seen.navigations).toEqual([]);
  });

  it('no answer from the server keeps the session; the same refresh token works once the server is back', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    const aged = await nextMorning();
    await restoreSession();
    pointClient({ baseUrl: 'http://127.0.0.1:1' }); // nothing listens there

    const err = await refreshTokens().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(0);
    expect(isAuthenticated.value).toBe(true);
    expect(sessionExpired.value).toBe(false);
    expect((await kvGet<Session>(SESSION_KEY))!.tokens.refresh_token).toBe(aged.tokens.refresh_token);

    pointClient();
    const tokens = await refreshTokens();
    expect(tokens.refresh_token).not.toBe(aged.tokens.refresh_token);
    expect(tokens.expires_at).toBeGreaterThan(Date.now() + 3500_000);
    expect((await apiRequest<UserProfile>('/users/me/')).username).toBe('analyste');
  });

  it('a refresh token the server revoked signs out at start and clears the stored session', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    const aged = await nextMorning();
    // Signed out elsewhere: the server revoked this refresh token's family.
    await t.app.inject({ method: 'POST', url: '/api/token/logout/', payload: { refresh: aged.tokens.refresh_token } });
    const events: boolean[] = [];
    const off = onAuthChange((v) => events.push(v));
    await restoreSession();
    expect(isAuthenticated.value).toBe(true); // until the server says otherwise
    scheduler = startTokenRefresh();
    await scheduler.firstCheck;
    off();

    expect(refreshRequests()).toHaveLength(1);
    expect(session.value).toBeNull();
    expect(isAuthenticated.value).toBe(false);
    expect(sessionExpired.value).toBe(true);
    expect(await kvGet(SESSION_KEY)).toBeUndefined();
    expect(events).toEqual([false]);
  });
});

describe('403 handling', () => {
  it('redirects to /login?session_expired=true outside the protected areas', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    pointClient({ pathname: '/vulnerabilities' });
    const horizonId = (await signIn(t.app, 'lecteur')).user.tenants as { id: string }[];
    await switchTenant(horizonId[0]!.id);
    await expect(apiRequest('/users/me/')).rejects.toMatchObject({ status: 403 });
    await wait(150);
    expect(seen.navigations).toEqual(['/login?session_expired=true']);
  });

  it('on /dashboard, refreshes the activity time instead of redirecting', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    const horizonId = (await signIn(t.app, 'lecteur')).user.tenants as { id: string }[];
    await switchTenant(horizonId[0]!.id);
    await expect(apiRequest('/users/me/')).rejects.toMatchObject({ status: 403 });
    await wait(150);
    expect(seen.navigations).toEqual([]);
  });
});

describe('logout', () => {
  it('calls the three endpoints, revokes the session on the server, clears everything and goes home after 500 ms', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    const refresh = session.value!.tokens.refresh_token;
    const purges: number[] = [];
    const navigations: string[] = [];
    const timers: number[] = [];
    await logout({
      purgeOfflineData: () => purges.push(1),
      navigate: (url) => navigations.push(url),
      setTimeout: (fn, ms) => {
        timers.push(ms);
        return setTimeout(fn, ms);
      },
    });
    const posted = seen.requests.filter((r) => r.method === 'POST').map((r) => r.path);
    expect(posted).toEqual(expect.arrayContaining(['/api/token/logout/', '/api/auth/logout/', '/api/logout/']));
    expect(session.value).toBeNull();
    expect(await kvGet(SESSION_KEY)).toBeUndefined();
    expect(purges).toEqual([1]);
    expect(timers).toEqual([200, 500]);
    await wait(550);
    expect(navigations).toHaveLength(1);
    expect(navigations[0]).toMatch(/^\/\?logout=\d{13}$/);
    const res = await t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: { refresh } });
    expect(res.statusCode).toBe(401);
  });
});
