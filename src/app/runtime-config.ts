import { kvDelete, kvGet, kvSet } from '../lib/storage.ts';

// spec §9's run-time backends (row 9.19): a chunk of its own, loaded only when the build names the file
// (VITE_RUNTIME_CONFIG_URL), so a deployment without one carries none of it before the first paint.

/** The last run-time configuration read, kept for starts without the network (IndexedDB, like the other modes). */
export const RUNTIME_CONFIG_KEY = 'runtime-config';
export const RUNTIME_CONFIG_TIMEOUT_MS = 2_000;

/** What the run-time file may hold: `{"backendUrls": ["https://api2.example.fr", …]}` (or one comma-separated string). */
export interface RuntimeConfig {
  backendUrls?: string[];
}

/** The known settings of a run-time file's body; anything else is ignored. */
export function parseRuntimeConfig(body: unknown): RuntimeConfig {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  const urls = (body as { backendUrls?: unknown }).backendUrls;
  if (typeof urls === 'string') return { backendUrls: urls.split(',').map((u) => u.trim()) };
  if (Array.isArray(urls)) return { backendUrls: urls.filter((u): u is string => typeof u === 'string') };
  return {};
}

/**
 * Reads the run-time file (none named: no configuration, nothing asked). An answer decides: a JSON object is the
 * configuration (kept), anything else (404, the index page of a host that answers every path) means none (the kept
 * one is forgotten). No answer (offline, timeout): the configuration kept from the last read.
 */
export async function loadRuntimeConfig(
  fetchFn: typeof globalThis.fetch,
  url: string | undefined,
): Promise<RuntimeConfig> {
  if (!url) return {};
  let response: Response;
  try {
    response = await fetchFn(url, {
      cache: 'no-store',
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
      signal: AbortSignal.timeout(RUNTIME_CONFIG_TIMEOUT_MS),
    });
  } catch {
    return parseRuntimeConfig(await kvGet<unknown>(RUNTIME_CONFIG_KEY).catch(() => undefined));
  }
  let body: unknown;
  try {
    body = response.ok && /json/i.test(response.headers.get('content-type') ?? '') ? await response.json() : undefined;
  } catch {
    body = undefined;
  }
  const config = parseRuntimeConfig(body);
  await (body && typeof body === 'object' ? kvSet(RUNTIME_CONFIG_KEY, config) : kvDelete(RUNTIME_CONFIG_KEY)).catch(
    () => undefined,
  );
  return config;
}
