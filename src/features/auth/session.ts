import { computed, signal } from '@preact/signals-react';
import { apiRequest, ApiError, setSessionHooks, TIMEOUTS } from '../../lib/api-client.ts';
import { kvDelete, kvGet, kvSet } from '../../lib/storage.ts';
import { clearUserDataCookie, setUserDataCookie } from './user-data-cookie.ts';
import type { TokenSet, UserProfile } from './types.ts';

export interface Session {
  tokens: TokenSet;
  profile: UserProfile;
  /** Tenant chosen in the switcher; sent as X-Tenant-ID. Defaults to profile.current_tenant. */
  tenantId?: string | undefined;
}

/** The IndexedDB record the service worker reads to know who is signed in. */
export const SESSION_KEY = 'session';

/** §9: default token lifetime on login and refresh; 30 min after a refresh in the 401 path. */
export const DEFAULT_TOKEN_LIFETIME_S = 3600;
export const RETRY_PATH_TOKEN_LIFETIME_S = 1800;

/** null = signed out; undefined = not restored from IndexedDB yet. */
export const session = signal<Session | null | undefined>(undefined);
export const isAuthenticated = computed(() => !!session.value && session.value.tokens.expires_at > Date.now());
export const lastActivity = signal(Date.now());
/** True once a session was lost (refresh failed, 401 persisted) rather than ended by the user. */
export const sessionExpired = signal(false);

type AuthListener = (authenticated: boolean) => void;
const listeners = new Set<AuthListener>();

/** §4: listeners are told true on sign-in and false on every way out. */
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

export async function restoreSession(): Promise<void> {
  const stored = await kvGet<Session>(SESSION_KEY).catch(() => undefined);
  session.value = stored && stored.tokens.expires_at > Date.now() ? stored : null;
}

async function persist(next: Session): Promise<void> {
  await kvSet(SESSION_KEY, next);
  session.value = next;
  setUserDataCookie(next.profile);
}

/** Sign-in completed: store tokens and profile, then tell listeners. */
export async function startSession(tokens: TokenSet, profile: UserProfile): Promise<void> {
  const wasIn = isAuthenticated.value;
  await persist({ tokens, profile });
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

export async function switchTenant(tenantId: string): Promise<void> {
  const s = session.value;
  if (s) await persist({ ...s, tenantId });
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

/** §7: the four refresh answer shapes. */
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

/**
 * Exchanges the refresh token. Any failure signs the user out (§4) and rethrows with one of the
 * three §8 messages or the server's.
 */
export async function refreshTokens(opts: { retryPath?: boolean } = {}): Promise<TokenSet> {
  const s = session.value;
  try {
    const current = s?.tokens.refresh_token;
    if (!current) throw new Error(REFRESH_MESSAGES.missing);
    if (typeof current !== 'string' || current.trim() === '') throw new Error(REFRESH_MESSAGES.format);
    const data = await apiRequest<unknown>('/token/refresh/', {
      method: 'POST',
      body: { refresh: current, refresh_token: current },
      anonymous: true,
      timeoutMs: TIMEOUTS.auth,
    });
    const answer = readRefreshAnswer(data);
    if (!answer) throw new Error(REFRESH_MESSAGES.structure);
    const lifetime = answer.expiresIn ?? (opts.retryPath ? RETRY_PATH_TOKEN_LIFETIME_S : DEFAULT_TOKEN_LIFETIME_S);
    const tokens: TokenSet = {
      access_token: answer.access,
      refresh_token: answer.refresh ?? current,
      expires_at: Date.now() + lifetime * 1000,
    };
    const latest = session.value;
    if (latest) await persist({ ...latest, tokens });
    return tokens;
  } catch (err) {
    sessionExpired.value = true;
    await clearSession();
    browserEffects.purgeOfflineData();
    throw err instanceof ApiError || err instanceof Error ? err : new Error(REFRESH_MESSAGES.structure);
  }
}

/** §7: every logout endpoint, in parallel, best effort, 5 s each; errors ignored. */
export const LOGOUT_ENDPOINTS = ['/api/token/logout/', '/api/auth/logout/', '/api/logout/'] as const;

export async function notifyServerLogout(tokens: TokenSet | undefined): Promise<void> {
  if (!tokens) return;
  await Promise.allSettled(
    LOGOUT_ENDPOINTS.map((url) =>
      apiRequest(url, {
        method: 'POST',
        anonymous: true,
        token: tokens.access_token,
        timeoutMs: TIMEOUTS.logout,
        body: { refresh: tokens.refresh_token, logout_token: tokens.refresh_token },
        headers: { 'logout-token': tokens.refresh_token },
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
    typeof navigator === 'undefined' ? undefined : navigator.serviceWorker?.controller?.postMessage({ type: 'LOGOUT' }),
  navigate: (url) => location.assign(url),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
};

/**
 * §4 logout: ask the server (best effort), clear tokens, check again after 200 ms and clean a second time if
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
    await refreshTokens({ retryPath: true });
  },
  reloadCurrentUser: async () => {
    const { reloadProfile } = await import('./api/profile.ts');
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
let auditSink: AuditSink = () => {};
/** The app connects the client audit buffer here (features do not import each other). */
export function setAuditSink(sink: AuditSink): void {
  auditSink = sink;
}

/** §5 display-name fallback: username, preferred username, name, email local part, then 'Utilisateur'. */
export function displayName(profile: Partial<UserProfile> | null | undefined): string {
  if (!profile) return 'Utilisateur';
  const candidates = [profile.username, profile.preferred_username, profile.name, profile.email?.split('@')[0]];
  return candidates.find((c) => typeof c === 'string' && c.trim() !== '')?.trim() ?? 'Utilisateur';
}

/** How the app greets someone: their full name when known, else the §5 display name. */
export function greetingName(profile: UserProfile): string {
  const full = [profile.first_name, profile.last_name].filter(Boolean).join(' ').trim();
  return full || displayName(profile);
}
