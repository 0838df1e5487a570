import { ofetch, FetchError, type FetchOptions } from 'ofetch';

export const API_BASE = '/api';

/** Removes doubled slashes and a doubled /api prefix, and puts the path under /api. */
export function normalizeApiPath(path: string): string {
  let p = ('/' + path).replace(/\/{2,}/g, '/');
  while (p.startsWith(`${API_BASE}${API_BASE}/`) || p === `${API_BASE}${API_BASE}`) p = p.slice(API_BASE.length);
  if (p !== API_BASE && !p.startsWith(`${API_BASE}/`)) p = API_BASE + p;
  return p;
}

/** What components receive instead of raw exceptions: a status (0 = no answer) and a French message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let accessTokenProvider: () => string | undefined = () => undefined;

/** The session module tells the client where to read the current access token. */
export function setAccessTokenProvider(provider: () => string | undefined): void {
  accessTokenProvider = provider;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: Record<string, unknown> | unknown[];
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
  /** Skip the Authorization header (sign-in calls). */
  anonymous?: boolean;
  /** Use this access token instead of the session's (right after sign-in). */
  token?: string;
}

/** The one place the app talks HTTP to the backend; features never call fetch themselves. */
export async function apiRequest<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { 'X-Requested-With': 'XMLHttpRequest', Accept: 'application/json' };
  const token = opts.token ?? (opts.anonymous ? undefined : accessTokenProvider());
  if (token) headers.Authorization = `Bearer ${token}`;
  const fetchOptions: FetchOptions<'json'> = {
    method: opts.method ?? 'GET',
    headers,
    credentials: 'include',
    timeout: opts.timeoutMs ?? 30_000,
    retry: 0,
  };
  if (opts.body !== undefined) fetchOptions.body = opts.body;
  if (opts.query !== undefined) fetchOptions.query = opts.query;
  try {
    return await ofetch<T>(normalizeApiPath(path), fetchOptions);
  } catch (err) {
    if (err instanceof FetchError && err.response) {
      const data: unknown = err.data;
      const detail =
        data && typeof data === 'object' && 'detail' in data && typeof data.detail === 'string'
          ? data.detail
          : undefined;
      throw new ApiError(err.response.status, detail ?? `Erreur de serveur inattendue : ${err.response.status}`, data);
    }
    throw new ApiError(0, 'La requête a expiré. Vérifiez votre connexion internet.');
  }
}
