import { computed, signal } from '@preact/signals-react';
import type { LogoutRequest } from '../../../contract/sw-messages.ts';
import { apiRequest, ApiError, setSessionHooks, TIMEOUTS } from '../api-client.ts';
import { kvDelete, kvGet, kvSet } from '../storage.ts';
import { clearUserDataCookie, setUserDataCookie } from './user-data-cookie.ts';
import { jwtExpiresAt, jwtLifetimeMs } from './jwt.ts';
import type { TokenSet, UserProfile } from './types.ts';
import { fetchProfile } from './profile.ts';

/** The spec §3 token set as the session keeps it, with the issue time so the refresh ahead of expiry can be placed. */
export interface SessionTokens extends TokenSet {
  /** When the access token was issued (ms, this device's clock, like expires_at). Absent in older records. */
  issued_at?: number;
}

export interface Session {
  tokens: SessionTokens;
  profile: UserProfile;
  /** Tenant chosen in the switcher; sent as X-Tenant-ID. Defaults to profile.current_tenant. */
  tenantId?: string | undefined;
}

/** The IndexedDB record the service worker reads to know who is signed in. */
export const SESSION_KEY = 'session';

/** spec §9: default token lifetime on login and refresh; 30 min after a refresh in the 401 path. */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;
export const RETRY_PATH_TOKEN_LIFETIME_S = 1800;

/** The access token is refreshed once this share of its lifetime has passed. */
export const REFRESH_AHEAD_RATIO = 0.8;

/**
 * Whether a refresh token may still be presented: a JWT (our server's) until its `exp`; an opaque token (another
 * backend's) until the server refuses it.
 */
export function refreshTokenUsable(token: unknown, now = Date.now()): boolean {
  if (typeof token !== 'string' || token.trim() === '') return false;
  return (jwtExpiresAt(token) ?? Infinity) > now;
}

/** A session lasts while its access token is valid or its refresh token can get a new one. */
export function tokensUsable(tokens: SessionTokens, now = Date.now()): boolean {
  return tokens.expires_at > now || refreshTokenUsable(tokens.refresh_token, now);
}

/** When the access token was issued: recorded, else from the JWT's iat/exp, else the spec §9 default lifetime. */
export function issuedAt(tokens: SessionTokens): number {
  if (typeof tokens.issued_at === 'number' && tokens.issued_at <= tokens.expires_at) return tokens.issued_at;
  return tokens.expires_at - (jwtLifetimeMs(tokens.access_token) ?? DEFAULT_TOKEN_LIFETIME_S * 1000);
}

/** The moment the access token is due for a refresh: 80 % of its lifetime. */
export function refreshDueAt(tokens: SessionTokens): number {
  const issued = issuedAt(tokens);
  return issued + REFRESH_AHEAD_RATIO * Math.max(0, tokens.expires_at - issued);
}

/** null = signed out; undefined = not restored from IndexedDB yet. */
export const session = signal<Session | null | undefined>(undefined);
/**
 * Signed in while a session exists that still works: its access token is valid, or its refresh token can get a
 * new one (the next morning, or offline: the app keeps its screens and refreshes when it can).
 */
export const isAuthenticated = computed(() => !!session.value && tokensUsable(session.value.tokens));
export const lastActivity = signal(Date.now());
/** True once a session was lost (refresh failed, 401 persisted) rather than ended by the user. */
export const sessionExpired = signal(false);

type AuthListener = (authenticated: boolean) => void;
const listeners = new Set<AuthListener>();

/** spec §4: listeners are told true on sign-in and false on every way out. */
export function onAuthChange(listener: AuthListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notify(authenticated: boolean): void {
  for (const l of listeners) {
    try {
      l(authenticated);
    } catch {
      /* a listener's failure must not block the transition */
    }
  }
}

export function currentTenantId(): string | undefined {
  const s = session.value;
  return s ? (s.tenantId ?? s.profile.current_tenant?.id ?? undefined) : undefined;
}

function isStoredSession(value: unknown): value is Session {
  const s = value as Partial<Session> | undefined;
  return !!s?.profile && !!s.tokens && typeof s.tokens.expires_at === 'number';
}

/**
 * Reads the session a reload left in IndexedDB. An expired access token is no reason to leave: while the refresh
 * token is usable the session stays (the token refresh scheduler renews it, or waits for the network). Only when
 * both are spent is the session lost, and then purged like any lost session. Never touches the network.
 */
export async function restoreSession(): Promise<void> {
  const stored = await kvGet<unknown>(SESSION_KEY).catch(() => undefined);
  if (!isStoredSession(stored)) {
    session.value = null;
    return;
  }
  if (tokensUsable(stored.tokens)) {
    session.value = stored;
    return;
  }
  session.value = null;
  await loseSession({ reason: 'refresh_token_expired', trigger: 'start' });
}

async function persist(next: Session): Promise<void> {
  await kvSet(SESSION_KEY, next);
  session.value = next;
  setUserDataCookie(next.profile);
}

/** Sign-in completed: store tokens and profile, then tell listeners. */
export async function startSession(tokens: SessionTokens, profile: UserProfile): Promise<void> {
  const wasIn = isAuthenticated.value;
  const lifetime = jwtLifetimeMs(tokens.access_token);
  // The login answer was read a moment ago: without a JWT to tell, the lifetime starts now.
  const issued =
    tokens.issued_at ?? (lifetime ? tokens.expires_at - lifetime : Math.min(Date.now(), tokens.expires_at));
  await persist({ tokens: { ...tokens, issued_at: issued }, profile });
  sessionExpired.value = false;
  lastActivity.value = Date.now();
  if (!wasIn) notify(true);
}

export async function saveSession(next: Session): Promise<void> {
  await persist(next);
}

export async function updateProfile(profile: UserProfile): Promise<void> {
  const s = session.value;
  if (s) await persist({ ...s, profile });
}

/**
 * The rights follow at once (screens read the membership's role through tenantRoleOf); the profile is then read
 * again as seen in the new tenant (its role and current tenant), best effort: offline the kept one stays.
 */
export async function switchTenant(tenantId: string): Promise<void> {
  const s = session.value;
  if (!s) return;
  await persist({ ...s, tenantId });
  await reloadProfile(tenantId).catch(() => undefined);
}

/** Forgets tokens and profile locally (IndexedDB, cookie, memory). */
export async function clearSession(): Promise<void> {
  const wasIn = !!session.value;
  session.value = null;
  clearUserDataCookie();
  await kvDelete(SESSION_KEY);
  if (wasIn) notify(false);
}

/** Re-reads the tokens another tab may have refreshed. */
export async function syncTokens(): Promise<void> {
  const stored = await kvGet<Session>(SESSION_KEY).catch(() => undefined);
  if (stored && session.value && stored.tokens.access_token !== session.value.tokens.access_token)
    session.value = stored;
}

export const REFRESH_MESSAGES = {
  missing: 'No refresh token available',
  format: 'Invalid refresh token format',
  structure: 'Invalid token refresh response structure',
} as const;

/** spec §7: the four refresh answer shapes. */
export function readRefreshAnswer(data: unknown): { access: string; refresh?: string; expiresIn?: number } | null {
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const num = (v: unknown) => (typeof v === 'number' && v > 0 ? v : undefined);
  const nested = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);
  const tokens = nested(d.tokens);
  const token = nested(d.token);
  const access = str(d.access) ?? str(tokens?.access_token) ?? str(d.access_token) ?? str(token?.access);
  if (!access) return null;
  const refresh = str(d.refresh) ?? str(tokens?.refresh_token) ?? str(d.refresh_token) ?? str(token?.refresh);
  const expiresIn = num(d.expires_in) ?? num(tokens?.expires_in) ?? num(token?.expires_in);
  return { access, ...(refresh ? { refresh } : {}), ...(expiresIn ? { expiresIn } : {}) };
}

/** What started a refresh, for the audit trail. */
export type RefreshTrigger = 'start' | 'timer' | 'visible' | 'online' | '401' | 'call';

/** A refresh the server refused, or one that cannot be asked for: the session is over. */
class RefreshRefused extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RefreshRefused';
  }
}

function failureOf(err: unknown): { refused: boolean; reason: string; status?: number } {
  if (err instanceof RefreshRefused)
    return { refused: true, reason: err.reason, ...(err.status ? { status: err.status } : {}) };
  if (err instanceof ApiError) {
    if (err.status === 400 || err.status === 401 || err.status === 403)
      return { refused: true, reason: 'refused', status: err.status };
    if (err.status === 0) return { refused: false, reason: err.kind === 'timeout' ? 'timeout' : 'network', status: 0 };
    if (err.status >= 500) return { refused: false, reason: 'server_error', status: err.status };
    return { refused: false, reason: 'http_error', status: err.status };
  }
  return { refused: false, reason: 'unexpected' };
}

/** Another tab may hold a newer pair: tabs take turns (Web Locks), so a rotated refresh token is never presented twice. */
function exclusively<T>(fn: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
  // The lock is held until fn's promise settles; request() resolves with what that promise resolves with.
  return locks ? (locks.request('vigie-token-refresh', fn) as unknown as Promise<T>) : fn();
}

let inFlight: Promise<SessionTokens> | undefined;

/**
 * Exchanges the refresh token. Every caller (the start, the scheduler, the API client's 401 path, uploads) shares
 * the one request in flight: refresh tokens rotate, and our server revokes the whole family when one is reused.
 *
 * Only a refusal signs the user out (400, 401 or 403 from the endpoint, an answer without tokens, a missing or
 * expired refresh token) and purges the offline data; it rethrows with one of the three spec §8 messages or the
 * server's. spec §8 says any failure forces logout; issue 15 overrides that for a network failure, a timeout or a 5xx:
 * the session stays (offline is not signed out) and the caller's request fails with the ApiError.
 */
export function refreshTokens(opts: { retryPath?: boolean; trigger?: RefreshTrigger } = {}): Promise<SessionTokens> {
  inFlight ??= runRefresh(opts).finally(() => {
    inFlight = undefined;
  });
  return inFlight;
}

async function runRefresh(opts: { retryPath?: boolean; trigger?: RefreshTrigger }): Promise<SessionTokens> {
  const trigger = opts.trigger ?? (opts.retryPath ? '401' : 'call');
  const s = session.value;
  let presented: string | undefined;
  try {
    const current: unknown = s?.tokens.refresh_token;
    if (!s || !current) throw new RefreshRefused(REFRESH_MESSAGES.missing, 'missing_refresh_token');
    if (typeof current !== 'string' || current.trim() === '')
      throw new RefreshRefused(REFRESH_MESSAGES.format, 'invalid_refresh_token_format');
    presented = current;
    return await exclusively(async () => {
      let base = session.value ?? s;
      // Another tab refreshed first (same account, a newer pair in IndexedDB): take its pair.
      const stored = await kvGet<unknown>(SESSION_KEY).catch(() => undefined);
      if (
        isStoredSession(stored) &&
        String(stored.profile.id) === String(base.profile.id) &&
        stored.tokens.refresh_token !== presented &&
        issuedAt(stored.tokens) > issuedAt(base.tokens) &&
        tokensUsable(stored.tokens)
      ) {
        base = { ...base, tokens: stored.tokens };
        session.value = base;
        presented = stored.tokens.refresh_token;
        if (Date.now() < refreshDueAt(stored.tokens)) return stored.tokens;
      }
      const refresh = base.tokens.refresh_token;
      if (!refreshTokenUsable(refresh)) throw new RefreshRefused(REFRESH_MESSAGES.missing, 'refresh_token_expired');
      const data = await apiRequest<unknown>('/token/refresh/', {
        method: 'POST',
        body: { refresh, refresh_token: refresh },
        anonymous: true,
        timeoutMs: TIMEOUTS.auth,
      });
      const answer = readRefreshAnswer(data);
      if (!answer) throw new RefreshRefused(REFRESH_MESSAGES.structure, 'invalid_response');
      const issued = Date.now();
      const lifetime = answer.expiresIn ?? (opts.retryPath ? RETRY_PATH_TOKEN_LIFETIME_S : DEFAULT_TOKEN_LIFETIME_S);
      const tokens: SessionTokens = {
        access_token: answer.access,
        refresh_token: answer.refresh ?? refresh,
        expires_at: issued + lifetime * 1000,
        issued_at: issued,
      };
      const latest = session.value;
      // Signed out (or someone else signed in) meanwhile: nothing to bring back.
      if (latest && latest.tokens.refresh_token === refresh) {
        const next = { ...latest, tokens };
        // Stored before the lock is released, so the next tab reads the rotated pair; kept in memory at least.
        await persist(next).catch(() => {
          session.value = next;
        });
      }
      auditSink('token_refresh', { trigger, expires_in: lifetime }, 'info');
      return tokens;
    });
  } catch (err) {
    const failure = failureOf(err);
    auditSink(
      'token_refresh',
      { trigger, reason: failure.reason, ...(failure.status !== undefined ? { status: failure.status } : {}) },
      'warning',
    );
    // The refusal concerns the session that presented this token; a newer one (signed in again) stays.
    const current = session.value;
    if (failure.refused && current && (presented === undefined || current.tokens.refresh_token === presented)) {
      await endLostSession();
    }
    throw err instanceof ApiError || err instanceof Error ? err : new Error(REFRESH_MESSAGES.structure);
  }
}

/** A lost session (refused refresh, spent refresh token): signed out, offline data purged, sign-in says why. */
async function endLostSession(): Promise<void> {
  sessionExpired.value = true;
  await clearSession();
  browserEffects.purgeOfflineData();
}

/** The refresh token ran out (with the access token): the session is lost; recorded as a failed refresh. */
export async function loseSession(details: { reason: string; trigger: RefreshTrigger }): Promise<void> {
  auditSink('token_refresh', details, 'warning');
  await endLostSession();
}

/** spec §7: every logout endpoint, in parallel, best effort, 5 s each; errors ignored. */
export const LOGOUT_ENDPOINTS = ['/api/token/logout/', '/api/auth/logout/', '/api/logout/'] as const;
/** spec §7: the header that names the refresh token to revoke, next to the Token-style Authorization. */
export const LOGOUT_TOKEN_HEADER = 'logout-token';

/**
 * spec §7 logout call: `Authorization: Token <access>` (the Token style, whatever the other calls use) plus the
 * logout-token header, and the refresh token as `refresh` and `logout_token` in the body, to all three endpoints.
 */
export async function notifyServerLogout(tokens: TokenSet | undefined): Promise<void> {
  if (!tokens) return;
  await Promise.allSettled(
    LOGOUT_ENDPOINTS.map((url) =>
      apiRequest(url, {
        method: 'POST',
        anonymous: true,
        token: tokens.access_token,
        authScheme: 'Token',
        timeoutMs: TIMEOUTS.logout,
        body: { refresh: tokens.refresh_token, logout_token: tokens.refresh_token },
        headers: { [LOGOUT_TOKEN_HEADER]: tokens.refresh_token },
      }),
    ),
  );
}

const beforeLogout = new Set<() => Promise<void>>();
/** Work to finish while the session still exists, just before logout clears it. */
export function onBeforeLogout(fn: () => Promise<void>): () => void {
  beforeLogout.add(fn);
  return () => beforeLogout.delete(fn);
}

/** What logout does outside this module: tell the service worker to purge, navigate. */
export interface LogoutEffects {
  purgeOfflineData(): void;
  navigate(url: string): void;
  setTimeout(fn: () => void, ms: number): unknown;
}

const browserEffects: LogoutEffects = {
  // A lost session purges like a logout: cached API answers and queued writes go.
  purgeOfflineData: () =>
    typeof navigator === 'undefined'
      ? undefined
      : navigator.serviceWorker?.controller?.postMessage({ type: 'LOGOUT' } satisfies LogoutRequest),
  navigate: (url) => location.assign(url),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
};

/**
 * spec §4 logout: ask the server (best effort), clear tokens, check again after 200 ms and clean a second time if
 * anything came back, then go to /?logout=<timestamp> after 500 ms. A failure goes to /login?logout_error
 * after 300 ms.
 */
export async function logout(effects: LogoutEffects = browserEffects): Promise<void> {
  const tokens = session.value?.tokens;
  try {
    // Last words while still signed in (the audit buffer sends what it holds), bounded so logout never hangs.
    await Promise.race([
      Promise.allSettled([...beforeLogout].map((fn) => fn())),
      new Promise((resolve) => setTimeout(resolve, 1_000)),
    ]);
    await notifyServerLogout(tokens);
    await clearSession();
    effects.purgeOfflineData();
    effects.setTimeout(() => {
      void kvGet(SESSION_KEY).then((left) => (left || session.value ? clearSession() : undefined));
    }, 200);
    effects.setTimeout(() => effects.navigate(`/?logout=${Date.now()}`), 500);
  } catch {
    effects.setTimeout(() => effects.navigate('/login?logout_error=true'), 300);
  }
}

setSessionHooks({
  accessToken: () => session.value?.tokens.access_token,
  hasRefreshToken: () => !!session.value?.tokens.refresh_token,
  tenantId: currentTenantId,
  refresh: async () => {
    await refreshTokens({ retryPath: true, trigger: '401' });
  },
  reloadCurrentUser: async () => {
    await reloadProfile();
  },
  expireSession: async () => {
    const tokens = session.value?.tokens;
    sessionExpired.value = true;
    await clearSession();
    browserEffects.purgeOfflineData();
    void notifyServerLogout(tokens);
  },
  touchActivity: async () => {
    lastActivity.value = Date.now();
    await syncTokens();
  },
  recordAudit: (eventType, details, severity) => {
    auditSink(eventType, details, severity);
  },
});

type AuditSink = (eventType: string, details: Record<string, unknown>, severity: 'info' | 'warning' | 'error') => void;
// Events from before the app connected the buffer (the refresh at start happens before the first render).
const early: Parameters<AuditSink>[] = [];
const EARLY_MAX = 20;
let auditSink: AuditSink = (...event) => {
  if (early.length < EARLY_MAX) early.push(event);
};
/** The app connects the client audit buffer here (features do not import each other). */
export function setAuditSink(sink: AuditSink): void {
  auditSink = sink;
  for (const event of early.splice(0)) sink(...event);
}

/** spec §5 display-name fallback: username, preferred username, name, email local part, then 'Utilisateur'. */
export function displayName(profile: Partial<UserProfile> | null | undefined): string {
  if (!profile) return 'Utilisateur';
  const candidates = [profile.username, profile.preferred_username, profile.name, profile.email?.split('@')[0]];
  return candidates.find((c) => typeof c === 'string' && c.trim() !== '')?.trim() ?? 'Utilisateur';
}

/** How the app greets someone: their full name when known, else the spec §5 display name. */
export function greetingName(profile: UserProfile): string {
  const full = [profile.first_name, profile.last_name].filter(Boolean).join(' ').trim();
  return full || displayName(profile);
}

/**
 * spec §4: after a 401 retry the current user is reloaded; after a tenant switch too, as seen in the new tenant (its
 * role and current tenant). A profile only the server can give: offline, the one kept stays (no token rebuild).
 */
export async function reloadProfile(tenantId?: string): Promise<void> {
  const token = session.value?.tokens.access_token;
  if (!token) return;
  await updateProfile(await fetchProfile(token, { ...(tenantId ? { tenantId } : {}), rebuildFromToken: false }));
}
