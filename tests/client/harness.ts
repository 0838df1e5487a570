import type { FastifyInstance } from 'fastify';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { closeStorage } from '../../src/lib/storage.ts';
import { session } from '../../src/lib/auth/session.ts';
import type { TestApp } from '../server/helpers.ts';
import { useTestApp, type TestAppOptions } from '../server/support/app.ts';

/** Everything the client did that leaves the module: navigations and requests seen on the wire. */
export interface Observed {
  navigations: string[];
  requests: { method: string; path: string; headers: Record<string, string> }[];
  noResponse: number;
}

/**
 * Points the real client modules at a server listening on loopback, with a fetch wrapper that records
 * requests (the real fetch still does the HTTP).
 */
export function useClient(
  baseUrl: string,
  pathname = '/dashboard',
  observed: Observed = { navigations: [], requests: [], noResponse: 0 },
): Observed {
  observed.navigations = [];
  observed.requests = [];
  observed.noResponse = 0;
  const location = { pathname };
  setClientEnvironment({
    baseUrl: () => baseUrl,
    pathname: () => location.pathname,
    navigate: (url) => observed.navigations.push(url),
    csrfToken: () => undefined,
    onNoResponse: () => observed.noResponse++,
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      observed.requests.push({
        method: req.method,
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers.entries()),
      });
      return globalThis.fetch(req);
    },
  });
  return observed;
}

export async function resetClientState(): Promise<void> {
  resetApiClient();
  session.value = undefined;
  await closeStorage();
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase('vigie');
    req.onsuccess = req.onerror = req.onblocked = () => resolve();
  });
}

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

export interface VigieClient {
  readonly t: TestApp;
  /** What the client did in the current test (emptied whenever the client is pointed somewhere). */
  readonly seen: Observed;
  /** Points the client again, at the suite's server unless told otherwise, starting `seen` afresh. */
  pointClient: (to?: { baseUrl?: string; pathname?: string }) => void;
}

/**
 * The suite's Vigie server, listening on loopback from its beforeAll to its afterAll, and around each test the
 * client pointed at it (at `pathname`) with fresh state. `seen` is what the client did in the current test.
 * Register it first: the suite's own afterEach hooks then run before the client state is reset.
 */
export function useVigieClient(pathname?: string, appOptions: TestAppOptions = {}): VigieClient {
  const t = useTestApp(appOptions);
  const seen: Observed = { navigations: [], requests: [], noResponse: 0 };
  let base: string;
  const pointClient = (to: { baseUrl?: string; pathname?: string } = {}) => {
    useClient(to.baseUrl ?? base, to.pathname ?? pathname, seen);
  };
  beforeAll(async () => {
    base = await listen(t.app);
  });
  beforeEach(async () => {
    await resetClientState();
    pointClient();
  });
  afterEach(async () => resetClientState());
  return { t, seen, pointClient };
}
