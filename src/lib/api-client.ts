import { createFetch, ofetch, type FetchOptions } from 'ofetch';
import { fieldsOf } from '../../contract/api-error.ts';
import { QUEUEABLE_HEADER, SOURCE_HEADER, STORED_AT_HEADER, type DataSource } from '../../contract/sw-messages.ts';
import { isMaintenanceAnswer, maintenanceNotice } from './maintenance.ts';
import { isGatedPath, isTwoFactorSetupAnswer, twoFactorSetupNotice } from './two-factor-gate.ts';

export const API_BASE = '/api';

/** spec §9 timeouts, in ms. */
export const TIMEOUTS = {
  default: 30_000,
  auth: 10_000,
  logout: 5_000,
  project: 5_000,
  health: 3_000,
} as const;

/** Removes doubled slashes and a doubled /api prefix; bare spec paths go under /api unless `raw`. */
export function normalizeApiPath(path: string, raw = false): string {
  let p = ('/' + path).replace(/\/{2,}/g, '/');
  while (p.startsWith(`${API_BASE}${API_BASE}/`) || p === `${API_BASE}${API_BASE}`) p = p.slice(API_BASE.length);
  if (!raw && p !== API_BASE && !p.startsWith(`${API_BASE}/`)) p = API_BASE + p;
  return p;
}

export type ApiErrorKind = 'http' | 'timeout' | 'network';

/** What components receive instead of raw exceptions: a status (0 = no answer) and a French message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data?: unknown,
    readonly kind: ApiErrorKind = 'http',
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The server's `fields` map ({field: [messages]}) when it sent one. */
  get fields(): Record<string, string[]> {
    return fieldsOf(this.data);
  }
}

export const MESSAGES = {
  timeout: 'La requête a expiré. Vérifiez votre connexion internet.',
  backendDown: 'Backend connection failed',
  accessDenied: 'Accès refusé à la ressource',
  tokenExpired: 'Token expiré ou invalide',
  notFound: 'Ressource introuvable.',
} as const;

/** The session side of the client, supplied by the auth feature (lib never imports features). */
export interface SessionHooks {
  accessToken(): string | undefined;
  hasRefreshToken(): boolean;
  tenantId(): string | undefined;
  /** Exchanges the refresh token; rejects when it fails (the hook logs the user out then). */
  refresh(): Promise<void>;
  reloadCurrentUser(): Promise<void>;
  /** A 401 that survived a refresh, or no refresh token: sign out locally. */
  expireSession(): Promise<void>;
  /** 403 on /dashboard, /tenants, /organizations: refresh the last-activity time and re-read the tokens. */
  touchActivity(): Promise<void>;
  recordAudit(eventType: string, details: Record<string, unknown>, severity: 'info' | 'warning' | 'error'): void;
}

/**
 * spec §7: "Authorization uses a Bearer style or a Token style". Bearer is the default (our server, SimpleJWT); the
 * logout calls use the Token style, as spec §7 names it there; a backend that challenges with `Token` (DRF's
 * TokenAuthentication) gets the Token style from then on (see `schemeChallenged`).
 */
export type AuthScheme = 'Bearer' | 'Token';

export interface ClientEnvironment {
  /** Backend base URLs, same origin ('') first; the availability check picks the one in use. */
  baseUrl(): string;
  authScheme(): AuthScheme;
  pathname(): string;
  navigate(url: string): void;
  csrfToken(): string | undefined;
  /** Called when a request got no answer at all, so the app can test the backend connection and record it. */
  onNoResponse(request?: UnansweredRequest): void;
  /** A 403 `two_factor_setup_required`: the app takes the user to the two-factor setup (no sign-out, no loop). */
  onTwoFactorSetupRequired(): void;
  /**
   * A live answer that no service worker saw (the page was not controlled yet: the first seconds of a first
   * visit): the app keeps a copy where the service worker looks offline, so that visit is not lost.
   */
  keepCopy?(copy: LiveCopy): void;
  fetch?: typeof globalThis.fetch;
}

/** The request that got no answer (spec §8), as the error is recorded: its API path (no query string) and method. */
export interface UnansweredRequest {
  url: string;
  method: string;
  kind: 'timeout' | 'network';
}

/** What `keepCopy` receives: the request's absolute URL and tenant, and the answer as read. */
export interface LiveCopy {
  url: string;
  tenantId: string | undefined;
  status: number;
  contentType: string | null;
  cacheControl: string | null;
  data: unknown;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: Record<string, unknown> | unknown[] | FormData;
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
  /** No Authorization header and no 401 handling (sign-in, refresh, logout, register, reset). */
  anonymous?: boolean;
  /** Use this access token instead of the session's (right after sign-in). */
  token?: string;
  /** This request's authorization style, whatever the backend's (spec §7: the logout calls use the Token style). */
  authScheme?: AuthScheme;
  /** Do not put the path under /api (the login chain's /auth/token/ and /token/). */
  raw?: boolean;
  /** A 403 is an expected answer here (its French message is shown): no redirect. */
  allowForbidden?: boolean;
  /** A write that may wait for the network: the service worker queues it offline and replays it once. */
  queueable?: boolean;
  /** Act in this tenant instead of the current one (a superuser administering another tenant). */
  tenantId?: string;
  headers?: Record<string, string>;
  /** 'stream' hands the body over unread (a ReadableStream) for downloads with progress. */
  responseType?: 'json' | 'blob' | 'text' | 'stream';
  /** Cancels the request (and a streamed body); the caller gets the AbortError back, not a French message. */
  signal?: AbortSignal;
  /**
   * A paired wall screen's own credential (docs/displays.md) instead of the session's: `Authorization: Display
   * <token>` and one of its tenants, no cookies. Its 401 and 403 are the caller's (no refresh, sign-out, redirect or
   * audit line) and no copy of its answers goes to the person's offline partition.
   */
  device?: DeviceCredentials;
}

/** What a device-mode request sends (RequestOptions.device). */
export interface DeviceCredentials {
  token: string;
  tenantId?: string | undefined;
}

const PROTECTED_AREAS = /^\/(dashboard|tenants|organizations)(\/|$)/;

/**
 * 403 codes that refuse the session itself rather than one action (our server's and DRF's): they follow the spec §4
 * redirect even where a screen expects 403s (`allowForbidden`), since no screen can go on without its session.
 */
const SESSION_REFUSED = new Set([
  'tenant_forbidden',
  'no_tenant',
  'csrf_failed',
  'not_authenticated',
  'authentication_failed',
  'token_not_valid',
]);

function sessionRefused(data: unknown): boolean {
  const code = data && typeof data === 'object' ? (data as { code?: unknown }).code : undefined;
  return typeof code === 'string' && SESSION_REFUSED.has(code);
}

function browserEnvironment(): ClientEnvironment {
  return {
    baseUrl: () => '',
    authScheme: () => 'Bearer',
    pathname: () => (typeof location === 'undefined' ? '/' : location.pathname),
    navigate: (url) => location.assign(url),
    csrfToken: () =>
      typeof document === 'undefined'
        ? undefined
        : document.cookie
            .split('; ')
            .find((c) => c.startsWith('csrftoken='))
            ?.slice('csrftoken='.length),
    onNoResponse: () => {},
    onTwoFactorSetupRequired: () => {},
  };
}

const signedOutHooks: SessionHooks = {
  accessToken: () => undefined,
  hasRefreshToken: () => false,
  tenantId: () => undefined,
  refresh: () => Promise.reject(new Error('no session')),
  reloadCurrentUser: () => Promise.resolve(),
  expireSession: () => Promise.resolve(),
  touchActivity: () => Promise.resolve(),
  recordAudit: () => {},
};

let hooks: SessionHooks = signedOutHooks;
let env: ClientEnvironment = browserEnvironment();
let refreshing: Promise<void> | undefined;
let redirectTimer: ReturnType<typeof setTimeout> | undefined;
/** The style a backend asked for in a 401 challenge, by base URL; it wins over the environment's default. */
const challengedSchemes = new Map<string, AuthScheme>();

/** The authorization style requests to the backend in use carry now (uploads build their header with it). */
export function currentAuthScheme(): AuthScheme {
  return challengedSchemes.get(env.baseUrl()) ?? env.authScheme();
}

/**
 * The style a 401's `WWW-Authenticate` challenge names, when it is one of spec §7's two and not the one sent:
 * DRF's TokenAuthentication answers a Bearer header with `WWW-Authenticate: Token`, SimpleJWT a Token header with
 * `Bearer realm="api"`. Our server sends no challenge, so its clients keep Bearer.
 */
export function schemeChallenged(challenge: string | null, sent: AuthScheme): AuthScheme | undefined {
  const scheme = /^\s*(bearer|token)\b/i.exec(challenge ?? '')?.[1]?.toLowerCase();
  const asked: AuthScheme | undefined = scheme === 'bearer' ? 'Bearer' : scheme === 'token' ? 'Token' : undefined;
  return asked && asked !== sent ? asked : undefined;
}

export function setSessionHooks(next: SessionHooks): void {
  hooks = next;
}

export function setClientEnvironment(next: Partial<ClientEnvironment>): void {
  env = { ...env, ...next };
}

/** Tests: back to the browser environment with no refresh or redirect pending (session hooks stay). */
export function resetApiClient(): void {
  env = browserEnvironment();
  challengedSchemes.clear();
  refreshing = undefined;
  if (redirectTimer) clearTimeout(redirectTimer);
  redirectTimer = undefined;
}

function detailOf(data: unknown): string | undefined {
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    for (const key of ['detail', 'message', 'error']) if (typeof d[key] === 'string' && d[key] !== '') return d[key];
  }
  return undefined;
}

/** spec §4: the redirect to the sign-in page happens 100 ms later, unless the user is already there. */
function redirectToLogin(): void {
  if (env.pathname().startsWith('/login') || redirectTimer) return;
  redirectTimer = setTimeout(() => {
    redirectTimer = undefined;
    env.navigate('/login?session_expired=true');
  }, 100);
}

/** Concurrent 401s share one refresh. */
function sharedRefresh(): Promise<void> {
  refreshing ??= hooks.refresh().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** Where an answer came from, as the service worker marked it (no mark: straight from the network). */
export interface DataOrigin {
  source: DataSource;
  /** When the cached copy was stored (ms), for cache answers. */
  storedAt?: number;
}

export function originOf(headers: Headers): DataOrigin {
  const source = headers.get(SOURCE_HEADER);
  const storedAt = Number(headers.get(STORED_AT_HEADER));
  if (source === 'sample') return { source: 'sample' };
  if (source === 'queued') return { source: 'queued' };
  if (source === 'cache')
    return Number.isFinite(storedAt) && storedAt > 0 ? { source: 'cache', storedAt } : { source: 'cache' };
  return { source: 'network' };
}

/** The one place the app talks HTTP to the backend; features never call fetch themselves. */
export async function apiRequest<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  return (await apiRequestWithOrigin<T>(path, opts)).data;
}

/** Like apiRequest, with where the data came from, so screens can mark sample or cached data. */
export async function apiRequestWithOrigin<T>(
  path: string,
  opts: RequestOptions = {},
  retried = false,
): Promise<{ data: T; origin: DataOrigin }> {
  return send<T>(path, opts, retried, false);
}

async function send<T>(
  path: string,
  opts: RequestOptions,
  retried: boolean,
  schemeSwitched: boolean,
): Promise<{ data: T; origin: DataOrigin }> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = {
    'X-Requested-With': 'XMLHttpRequest',
    Accept: 'application/json',
    ...opts.headers,
  };
  const device = opts.device;
  // The session's path: a device-mode request carries none of the person's token, tenant or CSRF cookie.
  const signedIn = !opts.anonymous && !device;
  const csrf = device ? undefined : env.csrfToken();
  if (csrf) headers['X-CSRFToken'] = csrf;
  const token = device ? undefined : (opts.token ?? (opts.anonymous ? undefined : hooks.accessToken()));
  const scheme = opts.authScheme ?? currentAuthScheme();
  if (token) headers.Authorization = `${scheme} ${token}`;
  const tenant = device ? device.tenantId : (opts.tenantId ?? hooks.tenantId());
  if (tenant && !opts.anonymous) headers['X-Tenant-ID'] = tenant;
  if (device) headers.Authorization = `Display ${device.token}`;
  if (opts.queueable && method !== 'GET') {
    headers[QUEUEABLE_HEADER] = '1';
    // One key per logical write, kept across the retry below, so the server applies it once.
    headers['Idempotency-Key'] ??= crypto.randomUUID();
    opts = { ...opts, headers: { ...opts.headers, 'Idempotency-Key': headers['Idempotency-Key'] } };
  }

  const base = env.baseUrl();
  const url = base.replace(/\/+$/, '') + normalizeApiPath(path, opts.raw);
  const timeoutMs = opts.timeoutMs ?? TIMEOUTS.default;
  const fetchOptions: FetchOptions<'json'> = {
    method,
    headers,
    credentials: device ? 'omit' : 'include',
    // ofetch applies its own timeout only without a signal: combine both when the caller can cancel.
    ...(opts.signal
      ? { signal: AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]) }
      : { timeout: timeoutMs }),
    retry: 0,
    ignoreResponseError: true,
    responseType: (opts.responseType ?? 'json') as 'json',
  };
  if (opts.body !== undefined) fetchOptions.body = opts.body;
  if (opts.query !== undefined) fetchOptions.query = opts.query;

  let response;
  try {
    response = await (env.fetch ? createFetch({ fetch: env.fetch }) : ofetch).raw<T>(url, fetchOptions);
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    const timedOut = err instanceof Error && /aborted|timeout/i.test(`${err.name} ${err.message} ${String(err.cause)}`);
    env.onNoResponse({ url: normalizeApiPath(path, opts.raw), method, kind: timedOut ? 'timeout' : 'network' });
    throw timedOut
      ? new ApiError(0, MESSAGES.timeout, undefined, 'timeout')
      : new ApiError(0, MESSAGES.backendDown, undefined, 'network');
  }
  const status = response.status;
  const data = response._data;
  const origin = originOf(response.headers);
  if (
    env.keepCopy &&
    method === 'GET' &&
    signedIn &&
    (opts.responseType ?? 'json') === 'json' &&
    response.headers.get(SOURCE_HEADER) === null
  )
    env.keepCopy({
      // The answer's own URL carries the query string, as the worker's cache key does.
      url: response.url || new URL(url, typeof location === 'undefined' ? 'http://localhost' : location.href).href,
      tenantId: tenant,
      status,
      contentType: response.headers.get('content-type'),
      cacheControl: response.headers.get('cache-control'),
      data,
    });
  if (status >= 200 && status < 300) {
    if (origin.source === 'network' && maintenanceNotice.value !== null) maintenanceNotice.value = null;
    if (
      origin.source === 'network' &&
      twoFactorSetupNotice.value !== null &&
      isGatedPath(normalizeApiPath(path, opts.raw))
    )
      twoFactorSetupNotice.value = null;
    return { data: data as T, origin };
  }
  // Mock API mode's refusals and « introuvable » are made on the device: their French detail says it all.
  if (origin.source === 'sample') throw new ApiError(status, detailOf(data) ?? MESSAGES.backendDown, data);

  if (device && (status === 401 || status === 403))
    throw new ApiError(
      status,
      detailOf(data) ?? (status === 401 ? MESSAGES.tokenExpired : MESSAGES.accessDenied),
      data,
    );
  // A token was sent and the backend refused its style, not the token (spec §7: Bearer or Token): once more in the
  // style its challenge names, before any refresh; the profile chain right after sign-in (anonymous + token) too.
  const asked =
    status === 401 && token && !opts.authScheme && !schemeSwitched
      ? schemeChallenged(response.headers.get('www-authenticate'), scheme)
      : undefined;
  if (asked) {
    challengedSchemes.set(base, asked);
    return send<T>(path, opts, retried, true);
  }
  if (status === 401 && signedIn) {
    if (!retried && hooks.hasRefreshToken()) {
      try {
        await sharedRefresh();
      } catch (err) {
        // A refresh that got no answer (offline, 5xx) keeps the session: this request fails, nobody is signed out.
        if (hooks.hasRefreshToken() && err instanceof ApiError && (err.status === 0 || err.status >= 500)) throw err;
        redirectToLogin();
        throw new ApiError(401, MESSAGES.tokenExpired, data);
      }
      const answer = await send<T>(path, opts, true, schemeSwitched);
      void hooks.reloadCurrentUser().catch(() => {});
      return answer;
    }
    hooks.recordAudit('token_expired', { url: normalizeApiPath(path, opts.raw), method }, 'warning');
    await hooks.expireSession();
    redirectToLogin();
    throw new ApiError(401, MESSAGES.tokenExpired, data);
  }

  if (status === 403) {
    hooks.recordAudit(
      'access_denied',
      { url: normalizeApiPath(path, opts.raw), method, message: MESSAGES.accessDenied },
      'warning',
    );
    if (!opts.anonymous && isTwoFactorSetupAnswer(status, data)) {
      // The session is fine, the account only lacks 2FA: signing out or redirecting to sign-in would loop.
      twoFactorSetupNotice.value = data.detail;
      env.onTwoFactorSetupRequired();
      throw new ApiError(403, data.detail, data);
    }
    // The rule (docs/ARCHITECTURE.md): a refused action stays on its screen with its message where the screen
    // expects it; a refused session (or a screen that expects no refusal) follows the spec §4 redirect.
    if ((!opts.allowForbidden || sessionRefused(data)) && !opts.anonymous) {
      if (PROTECTED_AREAS.test(env.pathname())) await hooks.touchActivity();
      else redirectToLogin();
    }
    throw new ApiError(403, detailOf(data) ?? MESSAGES.accessDenied, data);
  }

  if (isMaintenanceAnswer(status, data)) {
    // Not a broken backend: the administrators closed it for a while; say so in their words.
    maintenanceNotice.value = data.detail;
    throw new ApiError(503, data.detail, data);
  }
  if (status >= 500) hooks.recordAudit('api_error', { url: normalizeApiPath(path, opts.raw), method, status }, 'error');
  if (status === 500 || status === 503) throw new ApiError(status, MESSAGES.backendDown, data);
  if (status === 404) throw new ApiError(404, detailOf(data) ?? MESSAGES.notFound, data);
  throw new ApiError(status, detailOf(data) ?? `Erreur de serveur inattendue : ${status}`, data);
}
