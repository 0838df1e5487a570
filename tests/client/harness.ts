import type { FastifyInstance } from 'fastify';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { closeStorage } from '../../src/lib/storage.ts';
import { session } from '../../src/lib/auth/session.ts';

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
export function useClient(baseUrl: string, pathname = '/dashboard'): Observed {
  const observed: Observed = { navigations: [], requests: [], noResponse: 0 };
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
