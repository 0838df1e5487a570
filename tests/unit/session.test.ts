import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { signal } from '@preact/signals-react';
import {
  clearSession,
  displayName,
  greetingName,
  isAuthenticated,
  refreshTokens,
  restoreSession,
  saveSession,
  session,
  SESSION_KEY,
  sessionExpired,
  setAuditSink,
  startSession,
  type Session,
} from '../../src/lib/auth/session.ts';
import { startTokenRefresh, type TokenRefresh } from '../../src/lib/auth/token-refresh.ts';
import { apiRequest, ApiError, resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { closeStorage, kvGet, kvSet } from '../../src/lib/storage.ts';

const profile = { id: 7, username: 'manager', email: 'claire@acme.fr', first_name: 'Claire', last_name: 'Dubois' };

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** An unsigned JWT with these claims (the client never checks signatures). */
function jwt(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}.c2lnbmF0dXJl`;
}

/** A refresh token like our server's: a JWT expiring `inMs` from now. */
function refreshJwt(inMs: number, jti = crypto.randomUUID()): string {
  return jwt({ sub: '7', jti, exp: Math.floor((Date.now() + inMs) / 1000) });
}

// ---- the network: every call recorded; the refresh endpoint answers what `refreshAnswer` says ----

interface Call {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
  authorization: string | null;
}
let calls: Call[] = [];
let issued = 0;
type Answer = (call: Call) => Response | Promise<Response>;
const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
/** What our server does: a new pair, the refresh token rotated. */
const rotate: Answer = () => {
  issued += 1;
  return json({ access: `access-${issued}`, refresh: refreshJwt(7 * DAY), expires_in: 3600 });
};
let refreshAnswer: Answer = rotate;
let otherAnswer: Answer = () => json({});
const refreshCalls = () => calls.filter((c) => c.path === '/api/token/refresh/');

// ---- what leaves the module otherwise: audit events and messages to the service worker ----

let audits: { type: string; details: Record<string, unknown>; severity: string }[] = [];
const refreshAudits = () => audits.filter((a) => a.type === 'token_refresh');
let posted: unknown[] = [];
let online = true;
let visibility: DocumentVisibilityState = 'visible';

beforeEach(async () => {
  await closeStorage();
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase('vigie');
    req.onsuccess = req.onerror = req.onblocked = () => resolve();
  });
  resetApiClient();
  session.value = undefined;
  sessionExpired.value = false;
  calls = [];
  issued = 0;
  refreshAnswer = rotate;
  otherAnswer = () => json({});
  audits = [];
  posted = [];
  online = true;
  visibility = 'visible';
  setAuditSink((type, details, severity) => audits.push({ type, details, severity }));
  setClientEnvironment({
    navigate: () => {},
    pathname: () => '/vulnerabilities',
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), 'http://localhost');
      const headers = new Headers(init?.headers);
      const call: Call = {
        method: (init?.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        body: typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined,
        authorization: headers.get('authorization'),
      };
      calls.push(call);
      return call.path === '/api/token/refresh/' ? refreshAnswer(call) : otherAnswer(call);
    },
  });
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => online });
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { controller: { postMessage: (m: unknown) => posted.push(m) } },
  });
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
});

let running: TokenRefresh | undefined;
afterEach(() => {
  running?.stop();
  running = undefined;
  vi.useRealTimers();
});

function start(opts: Parameters<typeof startTokenRefresh>[0] = {}): TokenRefresh {
  running = startTokenRefresh(opts);
  return running;
}

/** A session as a reload finds it in IndexedDB. */
async function stored(tokens: Session['tokens']): Promise<void> {
  await kvSet(SESSION_KEY, { tokens, profile });
}

const storedSession = () => kvGet<Session>(SESSION_KEY);

// fake-indexeddb works in setImmediate callbacks, which the fake timers below leave alone.
const realTick = (fn: () => void) =>
  (globalThis as unknown as { setImmediate: (f: () => void) => void }).setImmediate(fn);

/** Lets pending promises, IndexedDB work and timers due now run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    if (vi.isFakeTimers()) await vi.advanceTimersByTimeAsync(0);
    await new Promise<void>((resolve) => realTick(resolve));
  }
}

/** Moves the fake clock (timers fire on the way), then lets what they started finish. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await flush();
}

describe('session persistence', () => {
  it('survives a reload through IndexedDB', async () => {
    const tokens = { access_token: 'a.b.c', refresh_token: 'd.e.f', expires_at: Date.now() + 3_600_000 };
    await saveSession({ tokens, profile });
    expect(isAuthenticated.value).toBe(true);

    session.value = undefined; // what a reload starts from
    await restoreSession();
    expect(session.value).toEqual({ tokens, profile });
    expect(isAuthenticated.value).toBe(true);
  });

  it('forgets everything on clear', async () => {
    await saveSession({
      tokens: { access_token: 'a.b.c', refresh_token: 'd.e.f', expires_at: Date.now() + 1000 },
      profile,
    });
    await clearSession();
    expect(session.value).toBeNull();
    expect(await kvGet('session')).toBeUndefined();
  });
});

describe('the next morning: restore with an expired access token', () => {
  it('keeps the session and refreshes it once when the refresh token is still valid', async () => {
    const refresh = refreshJwt(6 * DAY);
    await stored({ access_token: 'old-access', refresh_token: refresh, expires_at: Date.now() - 14 * HOUR });

    await restoreSession();
    expect(session.value?.profile.username).toBe('manager');
    expect(isAuthenticated.value).toBe(true);

    await start().firstCheck;
    expect(refreshCalls()).toHaveLength(1);
    expect(refreshCalls()[0]!.body).toMatchObject({ refresh });
    expect(session.value?.tokens.access_token).toBe('access-1');
    expect(session.value?.tokens.expires_at).toBeGreaterThan(Date.now() + 59 * MIN);
    expect((await storedSession())?.tokens.access_token).toBe('access-1');
    expect(sessionExpired.value).toBe(false);
    expect(audits).toEqual([
      { type: 'token_refresh', details: expect.objectContaining({ trigger: 'start' }), severity: 'info' },
    ]);
    // The audit trail never carries a token.
    expect(JSON.stringify(audits)).not.toContain(refresh);
    expect(JSON.stringify(audits)).not.toContain('access-1');
  });

  it('treats an opaque refresh token (another backend) as valid until the server refuses it', async () => {
    await stored({ access_token: 'old', refresh_token: 'opaque-refresh', expires_at: Date.now() - HOUR });
    await restoreSession();
    expect(isAuthenticated.value).toBe(true);
    await start().firstCheck;
    expect(refreshCalls()).toHaveLength(1);
    expect(session.value?.tokens.access_token).toBe('access-1');
  });

  it('signs out and purges when the refresh token expired too', async () => {
    await stored({ access_token: 'old', refresh_token: refreshJwt(-HOUR), expires_at: Date.now() - 8 * DAY });
    await restoreSession();
    await start().firstCheck;
    expect(session.value).toBeNull();
    expect(isAuthenticated.value).toBe(false);
    expect(sessionExpired.value).toBe(true);
    expect(await storedSession()).toBeUndefined();
    expect(posted).toEqual([{ type: 'LOGOUT' }]);
    expect(refreshCalls()).toHaveLength(0);
    expect(audits).toEqual([
      {
        type: 'token_refresh',
        details: expect.objectContaining({ reason: 'refresh_token_expired' }),
        severity: 'warning',
      },
    ]);
  });

  it('offline: stays signed in without calling anything, and refreshes when the network returns', async () => {
    online = false;
    await stored({ access_token: 'old', refresh_token: refreshJwt(6 * DAY), expires_at: Date.now() - 14 * HOUR });
    await restoreSession();
    await start().firstCheck;
    expect(isAuthenticated.value).toBe(true);
    expect(session.value?.tokens.access_token).toBe('old');
    expect(calls).toEqual([]);

    online = true;
    window.dispatchEvent(new Event('online'));
    await flush();
    expect(refreshCalls()).toHaveLength(1);
    expect(session.value?.tokens.access_token).toBe('access-1');
    expect(audits.map((a) => [a.type, a.details.trigger, a.severity])).toEqual([['token_refresh', 'online', 'info']]);
  });

  it('a start in mock API mode waits for the mode to end before refreshing', async () => {
    const mock = signal(true);
    await stored({ access_token: 'old', refresh_token: refreshJwt(6 * DAY), expires_at: Date.now() - HOUR });
    await restoreSession();
    await start({ paused: mock }).firstCheck;
    expect(isAuthenticated.value).toBe(true);
    expect(calls).toEqual([]);

    mock.value = false;
    await flush();
    expect(refreshCalls()).toHaveLength(1);
    expect(session.value?.tokens.access_token).toBe('access-1');
  });
});

describe('one refresh at a time', () => {
  it('concurrent callers and the 401 path share one request', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    refreshAnswer = async (call) => {
      await gate;
      return rotate(call);
    };
    // The API refuses the old access token once, then accepts the new one.
    otherAnswer = (call) => (call.authorization === 'Bearer old' ? json({ detail: 'expired' }, 401) : json({ ok: 1 }));
    await saveSession({ tokens: { access_token: 'old', refresh_token: 'r-1', expires_at: Date.now() - 1 }, profile });

    const all = Promise.all([
      refreshTokens(),
      refreshTokens(),
      apiRequest<{ ok: number }>('/users/me/'),
      apiRequest<{ ok: number }>('/current-user/'),
    ]);
    await flush();
    release();
    const [a, b, me, current] = await all;
    expect(refreshCalls()).toHaveLength(1);
    expect(a.access_token).toBe('access-1');
    expect(b).toEqual(a);
    expect(me).toEqual({ ok: 1 });
    expect(current).toEqual({ ok: 1 });

    // Once settled, the next refresh is a new request with the rotated token.
    await refreshTokens();
    expect(refreshCalls()).toHaveLength(2);
    expect(refreshCalls()[1]!.body!.refresh).toBe(a.refresh_token);
  });

  it('a 401 whose refresh gets no answer fails that request and sends nobody to the sign-in page', async () => {
    const navigated: string[] = [];
    setClientEnvironment({ navigate: (url) => navigated.push(url) });
    refreshAnswer = () => Promise.reject(new TypeError('Failed to fetch'));
    otherAnswer = () => json({ detail: 'expired' }, 401);
    await saveSession({ tokens: { access_token: 'old', refresh_token: 'r-1', expires_at: Date.now() - 1 }, profile });

    await expect(apiRequest('/users/me/')).rejects.toMatchObject({ status: 0 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(navigated).toEqual([]);
    expect(isAuthenticated.value).toBe(true);

    // A refused refresh does sign out and redirect (spec §4).
    refreshAnswer = () => json({ detail: 'Token invalide' }, 401);
    await expect(apiRequest('/users/me/')).rejects.toMatchObject({ status: 401 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(navigated).toEqual(['/login?session_expired=true']);
  });

  it('takes the pair another tab already rotated instead of presenting a used refresh token', async () => {
    await saveSession({
      tokens: { access_token: 'old', refresh_token: 'r-used', expires_at: Date.now() - 1 },
      profile,
    });
    // The other tab refreshed a minute ago and stored the new pair.
    const fresh = { access_token: 'tab-2', refresh_token: 'r-new', expires_at: Date.now() + 59 * MIN };
    await kvSet(SESSION_KEY, { tokens: { ...fresh, issued_at: Date.now() - MIN }, profile });

    const tokens = await refreshTokens();
    expect(refreshCalls()).toHaveLength(0);
    expect(tokens.access_token).toBe('tab-2');
    expect(session.value?.tokens.refresh_token).toBe('r-new');
  });
});

describe('a failed refresh', () => {
  beforeEach(async () => {
    await saveSession({
      tokens: { access_token: 'old', refresh_token: refreshJwt(6 * DAY), expires_at: Date.now() - 1 },
      profile,
    });
  });

  it.each([
    ['no answer', () => Promise.reject(new TypeError('Failed to fetch')), 0, 'network'],
    ['a 503', () => json({ detail: 'down' }, 503), 503, 'server_error'],
    ['a 500', () => json({ detail: 'boom' }, 500), 500, 'server_error'],
  ] as const)('on %s keeps the session and rejects', async (_, answer, status, reason) => {
    refreshAnswer = answer;
    const before = session.value;
    const err = await refreshTokens().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(status);
    expect(session.value).toBe(before);
    expect(isAuthenticated.value).toBe(true);
    expect(sessionExpired.value).toBe(false);
    expect((await storedSession())?.tokens.access_token).toBe('old');
    expect(posted).toEqual([]);
    expect(refreshAudits()).toEqual([
      { type: 'token_refresh', details: expect.objectContaining({ reason, status }), severity: 'warning' },
    ]);
  });

  it.each([
    ['a 401', () => json({ detail: 'Token invalide' }, 401), 'refused'],
    ['a 400', () => json({ detail: 'invalid' }, 400), 'refused'],
    ['a 403', () => json({ detail: 'forbidden' }, 403), 'refused'],
    ['an answer without tokens', () => json({ ok: true }), 'invalid_response'],
  ] as const)('on %s signs out and purges the offline data', async (_, answer, reason) => {
    refreshAnswer = answer;
    await expect(refreshTokens()).rejects.toThrow();
    expect(session.value).toBeNull();
    expect(isAuthenticated.value).toBe(false);
    expect(sessionExpired.value).toBe(true);
    expect(await storedSession()).toBeUndefined();
    expect(posted).toEqual([{ type: 'LOGOUT' }]);
    expect(refreshAudits()).toEqual([
      { type: 'token_refresh', details: expect.objectContaining({ reason }), severity: 'warning' },
    ]);
  });
});

describe('refresh ahead of expiry while the app is open', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });

  it('fires at 80 % of the access lifetime, then again at 80 % of the new one', async () => {
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(7 * DAY), expires_at: Date.now() + HOUR },
      profile,
    );
    start();
    await flush();
    await advance(47 * MIN);
    expect(refreshCalls()).toHaveLength(0);
    await advance(MIN + 1_000);
    expect(refreshCalls()).toHaveLength(1);
    expect(session.value?.tokens.access_token).toBe('access-1');
    expect(audits.at(-1)).toMatchObject({ type: 'token_refresh', details: { trigger: 'timer' }, severity: 'info' });

    await advance(47 * MIN);
    expect(refreshCalls()).toHaveLength(1);
    await advance(MIN + 1_000);
    expect(refreshCalls()).toHaveLength(2);
    expect(session.value?.tokens.access_token).toBe('access-2');
  });

  it('uses the lifetime the login answered (a 10-minute token refreshes after 8 minutes)', async () => {
    await startSession({ access_token: 'short', refresh_token: 'opaque', expires_at: Date.now() + 10 * MIN }, profile);
    start();
    await advance(7 * MIN);
    expect(refreshCalls()).toHaveLength(0);
    await advance(MIN + 1_000);
    expect(refreshCalls()).toHaveLength(1);
  });

  it('a network failure at the 80 % point keeps the session and tries again later', async () => {
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(7 * DAY), expires_at: Date.now() + HOUR },
      profile,
    );
    refreshAnswer = () => Promise.reject(new TypeError('Failed to fetch'));
    start();
    await advance(48 * MIN + 1_000);
    expect(refreshCalls()).toHaveLength(1);
    expect(isAuthenticated.value).toBe(true);
    expect(session.value?.tokens.access_token).toBe('first');

    refreshAnswer = rotate;
    await advance(2 * MIN);
    expect(refreshCalls()).toHaveLength(2);
    expect(session.value?.tokens.access_token).toBe('access-1');
  });

  it('does nothing in mock API mode, and refreshes once the mode ends', async () => {
    const mock = signal(true);
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(7 * DAY), expires_at: Date.now() + HOUR },
      profile,
    );
    start({ paused: mock });
    await advance(50 * MIN);
    expect(calls).toEqual([]);
    mock.value = false;
    await flush();
    expect(refreshCalls()).toHaveLength(1);
  });

  it('signs out when the refresh token runs out while the app is open', async () => {
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(30 * MIN), expires_at: Date.now() + HOUR },
      profile,
    );
    online = false; // nothing can be refreshed meanwhile
    start();
    await advance(59 * MIN);
    expect(isAuthenticated.value).toBe(true);
    await advance(2 * MIN);
    expect(session.value).toBeNull();
    expect(sessionExpired.value).toBe(true);
    expect(posted).toEqual([{ type: 'LOGOUT' }]);
  });
});

describe('coming back: visibility and network', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });

  it('a page becoming visible past 80 % refreshes; before 80 % it does not', async () => {
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(7 * DAY), expires_at: Date.now() + HOUR },
      profile,
    );
    online = false; // the timer at 80 % finds no network
    start();
    await advance(30 * MIN);
    visibility = 'visible';
    online = true;
    document.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(refreshCalls()).toHaveLength(0); // 50 %: not due

    online = false;
    await advance(25 * MIN); // 92 %, the timer fired offline
    expect(refreshCalls()).toHaveLength(0);
    online = true;
    visibility = 'hidden';
    document.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(refreshCalls()).toHaveLength(0); // hidden: nothing
    visibility = 'visible';
    document.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(refreshCalls()).toHaveLength(1);
    expect(audits.at(-1)).toMatchObject({ details: { trigger: 'visible' }, severity: 'info' });
  });

  it("'online' refreshes an expired access token, once", async () => {
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(7 * DAY), expires_at: Date.now() + HOUR },
      profile,
    );
    online = false;
    start();
    await advance(2 * HOUR);
    expect(refreshCalls()).toHaveLength(0);
    expect(isAuthenticated.value).toBe(true);
    online = true;
    window.dispatchEvent(new Event('online'));
    window.dispatchEvent(new Event('online'));
    document.dispatchEvent(new Event('visibilitychange'));
    await flush();
    expect(refreshCalls()).toHaveLength(1);
    expect(session.value?.tokens.access_token).toBe('access-1');
  });

  it('stop() removes the timer and the listeners', async () => {
    await startSession(
      { access_token: 'first', refresh_token: refreshJwt(7 * DAY), expires_at: Date.now() + HOUR },
      profile,
    );
    start().stop();
    await advance(2 * HOUR);
    window.dispatchEvent(new Event('online'));
    await flush();
    expect(calls).toEqual([]);
  });
});

describe('display names (spec §5)', () => {
  it('falls back from username to preferred username, name, email local part, then Utilisateur', () => {
    expect(displayName({ username: 'jdoe', name: 'John' })).toBe('jdoe');
    expect(displayName({ username: ' ', preferred_username: 'johnny' })).toBe('johnny');
    expect(displayName({ name: 'John Doe' })).toBe('John Doe');
    expect(displayName({ email: 'john.doe@example.org' })).toBe('john.doe');
    expect(displayName({})).toBe('Utilisateur');
    expect(displayName(null)).toBe('Utilisateur');
  });

  it('greets by full name when known', () => {
    expect(greetingName(profile)).toBe('Claire Dubois');
    expect(greetingName({ id: 1, username: 'ops', email: 'ops@x.fr' })).toBe('ops');
  });
});
