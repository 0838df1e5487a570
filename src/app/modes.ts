import { signal } from '@preact/signals-react';
import { apiRequest, ApiError, setClientEnvironment, TIMEOUTS, type UnansweredRequest } from '../lib/api-client.ts';
import { kvGet, kvSet } from '../lib/storage.ts';
import { pathOnly, recordAuditEvent } from '../lib/audit-log.ts';
import type { RuntimeConfig } from './runtime-config.ts';
import { session } from '../lib/auth/session.ts';

/** spec §1: on when the backend availability check failed; the app then works from cached and sample data. */
export const localDataMode = signal(false);
/** spec §1: mock API mode; the service worker answers the sample areas from sample-data/ when enabled. */
export const mockApiMode = signal(false);
/** The base URL of the backend in use ('' = same origin). */
export const activeBackend = signal('');

export const MOCK_MODE_KEY = 'mock-api-mode';
export const AVAILABILITY_DELAY_MS = 2_000;
export const HEALTH_COOLDOWN_MS = 60_000;
export const HEALTH_MAX_FAILURES = 3;
export const MAX_BACKENDS = 6;

/**
 * spec §9 "fallback backend URL list: six entries": the same origin first, then up to five more, in the order given.
 * They come from the deployment's run-time file (VITE_RUNTIME_CONFIG_URL, e.g. /config.json) when it lists some,
 * else from VITE_BACKEND_URLS (build time); see `startBackends`. An entry is an absolute http(s) URL or a path of this origin (`/backend-2`, behind
 * the same reverse proxy); anything else is dropped, and so is a trailing slash.
 */
export function backendList(configured: string | readonly string[] | undefined): string[] {
  const given = typeof configured === 'string' ? configured.split(',') : (configured ?? []);
  const here = typeof location === 'undefined' ? undefined : location.origin;
  const extra = given
    .map((u) => (typeof u === 'string' ? u.trim().replace(/\/+$/, '') : ''))
    .filter((u) => /^(https?:\/\/[^\s/?#]+|(?=\/[^/\\]))(\/[^\s?#]*)?$/i.test(u) && u !== here);
  return ['', ...extra.filter((u, i) => extra.indexOf(u) === i)].slice(0, MAX_BACKENDS);
}

/*
 * The run-time file: the running app reads the deployment's own settings, changeable without a rebuild, from a JSON
 * file such as `/config.json` next to index.html. The build names it (VITE_RUNTIME_CONFIG_URL, read in start.tsx);
 * unnamed, nothing is asked, so a deployment without the file shows no 404 in the console at every start.
 */

/**
 * The backend list the app starts with: the run-time file's `backendUrls` when it lists any (run time wins: the
 * deployment knows its backends), else the build's VITE_BACKEND_URLS.
 */
export async function startBackends(
  buildTime: string | undefined,
  load: () => Promise<RuntimeConfig>,
): Promise<string[]> {
  const runtime = (await load().catch((): RuntimeConfig => ({}))).backendUrls;
  return backendList(runtime && runtime.length > 0 ? runtime : buildTime);
}

/**
 * spec §7 probe: GET /current-user/ in 3 s; 200, 401 and 403 all prove a backend is there. It carries the session's
 * access token, so a signed-in start gets its 200; a signed-out visitor has no user to ask about, so the anonymous
 * health endpoint answers instead (a 401 on the sign-in page would be a console error for nothing).
 */
export async function probeBackend(
  base: string,
  token: string | undefined = session.value?.tokens.access_token,
): Promise<boolean> {
  setClientEnvironment({ baseUrl: () => base });
  try {
    if (token)
      await apiRequest('/current-user/', { timeoutMs: TIMEOUTS.health, anonymous: true, token, allowForbidden: true });
    else await apiRequest('/health/', { timeoutMs: TIMEOUTS.health, anonymous: true });
    return true;
  } catch (err) {
    if (!(err instanceof ApiError)) return false;
    // A backend without the health endpoint (404) still answered; a 5xx is a gateway in front of nothing.
    return token ? err.status === 401 || err.status === 403 : err.status > 0 && err.status < 500;
  }
}

/**
 * spec §1 availability check: the first reachable backend of the list serves the session; when none answers,
 * local-data mode switches on. An authentication answer (401/403) counts as reachable, so it never does.
 */
export async function checkAvailability(
  backends: string[],
  probe: (base: string) => Promise<boolean> = probeBackend,
): Promise<boolean> {
  for (const base of backends) {
    if (await probe(base)) {
      activeBackend.value = base;
      setClientEnvironment({ baseUrl: () => base });
      localDataMode.value = false;
      return true;
    }
  }
  setClientEnvironment({ baseUrl: () => backends[0] ?? '' });
  localDataMode.value = true;
  return false;
}

/**
 * Schedules the availability check 2 s after start (later only if the list, read meanwhile, is not known yet).
 * Returns a cancel function.
 */
export function scheduleAvailabilityCheck(
  backends: string[] | Promise<string[]>,
  delayMs = AVAILABILITY_DELAY_MS,
): () => void {
  let cancelled = false;
  const timer = setTimeout(
    () =>
      void Promise.resolve(backends)
        .catch(() => [''])
        .then((list) => (cancelled ? undefined : checkAvailability(list))),
    delayMs,
  );
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}

/**
 * spec §9 health check: at most one real check per 60 s (the last answer is reused in between); after three
 * consecutive failures the check is bypassed and reports healthy, so a flaky health endpoint cannot lock
 * the app in a degraded state.
 */
export class HealthMonitor {
  #lastAt = -Infinity;
  #last = true;
  #failures = 0;
  constructor(
    private readonly check: () => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {}

  get consecutiveFailures(): number {
    return this.#failures;
  }

  async healthy(): Promise<boolean> {
    if (this.#failures >= HEALTH_MAX_FAILURES) return true;
    if (this.now() - this.#lastAt < HEALTH_COOLDOWN_MS) return this.#last;
    this.#lastAt = this.now();
    let ok = false;
    try {
      ok = await this.check();
    } catch {
      ok = false;
    }
    this.#failures = ok ? 0 : this.#failures + 1;
    this.#last = ok;
    return ok;
  }
}

export async function healthCheck(): Promise<boolean> {
  try {
    const answer = await apiRequest<{ status?: string }>('/health/', { timeoutMs: TIMEOUTS.health, anonymous: true });
    return answer?.status === 'ok';
  } catch {
    return false;
  }
}

export const health = new HealthMonitor(healthCheck);

/** What the connection test said after a request got no answer. */
export type ConnectionTestOutcome = 'backend_reachable' | 'backend_unreachable' | 'check_bypassed';

/**
 * spec §8 "no response": the backend connection is tested (the spec §9 health check), then the error is recorded as an
 * `api_error` event (error) carrying the test's outcome and the first request left unanswered (path and method); when
 * the backend is down, local-data mode switches on.
 * `onNoResponse` is told at once, before the test. Requests that get no answer while a test runs (the health
 * request itself among them) share that test and its one event, which counts them.
 */
export function watchConnection(
  onNoResponse: () => void = () => {},
  monitor: Pick<HealthMonitor, 'healthy' | 'consecutiveFailures'> = health,
): void {
  let unanswered = 0;
  let first: UnansweredRequest | undefined;
  let testing = false;
  const test = async () => {
    // spec §9: after three failures in a row the check is bypassed and says "healthy" without asking anyone.
    const bypassed = monitor.consecutiveFailures >= HEALTH_MAX_FAILURES;
    const ok = await monitor.healthy().catch(() => false);
    if (!ok) localDataMode.value = true;
    const outcome: ConnectionTestOutcome = bypassed
      ? 'check_bypassed'
      : ok
        ? 'backend_reachable'
        : 'backend_unreachable';
    const count = unanswered;
    const request = first;
    unanswered = 0;
    first = undefined;
    testing = false;
    recordAuditEvent(
      'api_error',
      {
        error: 'no_response',
        // The first request left unanswered (its path only: a query string may carry secrets).
        ...(request ? { url: pathOnly(request.url), method: request.method, failure: request.kind } : {}),
        connection_test: outcome,
        backend_reachable: bypassed ? null : ok,
        unanswered_requests: count,
        local_data_mode: localDataMode.value,
      },
      'error',
    );
  };
  setClientEnvironment({
    onNoResponse: (request) => {
      onNoResponse();
      unanswered++;
      first ??= request;
      if (testing) return;
      testing = true;
      void test();
    },
  });
}

export async function restoreMockMode(): Promise<void> {
  mockApiMode.value = (await kvGet<boolean>(MOCK_MODE_KEY).catch(() => false)) === true;
}

/** Stored where the service worker reads it; the caller shows the returned alert message. */
export async function setMockMode(enabled: boolean): Promise<string> {
  // The switch follows the click at once; the service worker reads the stored value on its next request.
  mockApiMode.value = enabled;
  await kvSet(MOCK_MODE_KEY, enabled);
  return enabled
    ? 'Mode API simulée activé : les données affichées sont des données d’exemple.'
    : 'Mode API simulée désactivé : retour aux données du serveur.';
}
