import {
  ApiError,
  currentAuthScheme,
  MESSAGES,
  normalizeApiPath,
  originOf,
  TIMEOUTS,
  type DataOrigin,
} from './api-client.ts';
import { SOURCE_HEADER, STORED_AT_HEADER } from '../../contract/sw-messages.ts';

/**
 * File uploads with progress. fetch() cannot report upload progress, so this one helper uses XMLHttpRequest and
 * reproduces the headers of api-client (X-Requested-With, Accept, X-CSRFToken from the csrftoken cookie,
 * Authorization, X-Tenant-ID). The session lives in a feature, which lib may not import: the caller passes it
 * through `auth` (read at each attempt) and `refresh` (one retry after a 401).
 */

/** The server's limit for scanner reports (§ api-vulnerabilities: file ≤ 50 MB). */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export const UPLOAD_MESSAGES = {
  tooLarge: 'Le fichier dépasse la taille maximale (50 Mo).',
  empty: 'Le fichier est vide.',
  aborted: 'Envoi annulé.',
  noFile: 'Choisissez un fichier.',
} as const;

export interface UploadProgress {
  loaded: number;
  total: number;
  /** 0–100, or null when the browser cannot tell the total size. */
  percent: number | null;
}

export interface UploadAuth {
  token?: string | undefined;
  tenantId?: string | undefined;
}

export interface UploadOptions {
  method?: 'POST' | 'PUT' | 'PATCH';
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Read before each attempt, so a retry after a refresh carries the new token. */
  auth?: () => UploadAuth;
  /** Called once on a 401; when it resolves the upload is sent again, when it rejects the 401 stands. */
  refresh?: () => Promise<unknown>;
  /** Backend base URL ('' = same origin, the default). */
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Size limit used for the 413 message (default 50 MB). */
  maxBytes?: number;
}

/** Thrown when the caller aborted the upload (signal); `status` 0. */
export class UploadAbortedError extends ApiError {
  constructor() {
    super(0, UPLOAD_MESSAGES.aborted, undefined, 'network');
    this.name = 'UploadAbortedError';
  }
}

function csrfToken(): string | undefined {
  if (typeof document === 'undefined') return undefined;
  return document.cookie
    .split('; ')
    .find((c) => c.startsWith('csrftoken='))
    ?.slice('csrftoken='.length);
}

/** The headers api-client sends, for the given session. */
export function uploadHeaders(auth: UploadAuth = {}, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Requested-With': 'XMLHttpRequest',
    Accept: 'application/json',
    ...extra,
  };
  const csrf = csrfToken();
  if (csrf) headers['X-CSRFToken'] = csrf;
  // The style the backend asked for (spec §7: Bearer or Token), as every other call sends it.
  if (auth.token) headers.Authorization = `${currentAuthScheme()} ${auth.token}`;
  if (auth.tenantId) headers['X-Tenant-ID'] = auth.tenantId;
  return headers;
}

function formatMegabytes(bytes: number): string {
  return new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 }).format(bytes / (1024 * 1024));
}

/**
 * Client-side check before sending: size (≤ maxBytes), not empty, and one of the extensions (lower case, with
 * the dot, e.g. ['.json', '.xml']). Returns a French message, or null when the file may be sent.
 */
export function checkUploadFile(
  file: { name: string; size: number } | null | undefined,
  opts: { maxBytes?: number; extensions?: readonly string[] } = {},
): string | null {
  if (!file) return UPLOAD_MESSAGES.noFile;
  const max = opts.maxBytes ?? MAX_UPLOAD_BYTES;
  if (file.size > max) return `Le fichier dépasse la taille maximale (${formatMegabytes(max)} Mo).`;
  if (file.size === 0) return UPLOAD_MESSAGES.empty;
  const extensions = opts.extensions;
  if (extensions && extensions.length > 0) {
    const lower = file.name.toLowerCase();
    if (!extensions.some((ext) => lower.endsWith(ext))) {
      return `Format de fichier non accepté : ${extensions.join(', ')} attendu.`;
    }
  }
  return null;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function detailOf(data: unknown): string | undefined {
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    for (const key of ['detail', 'message', 'error']) if (typeof d[key] === 'string' && d[key] !== '') return d[key];
  }
  return undefined;
}

/** Maps an HTTP answer to ApiError the way api-client does, with the server's French `detail` first. */
export function uploadError(status: number, data: unknown, maxBytes = MAX_UPLOAD_BYTES): ApiError {
  const detail = detailOf(data);
  if (status === 413)
    return new ApiError(
      413,
      detail ?? `Le fichier dépasse la taille maximale (${formatMegabytes(maxBytes)} Mo).`,
      data,
    );
  if (status === 401) return new ApiError(401, MESSAGES.tokenExpired, data);
  if (status === 403) return new ApiError(403, detail ?? MESSAGES.accessDenied, data);
  if (status === 404) return new ApiError(404, detail ?? MESSAGES.notFound, data);
  if (status === 500 || status === 503) return new ApiError(status, MESSAGES.backendDown, data);
  return new ApiError(status, detail ?? `Erreur de serveur inattendue : ${status}`, data);
}

interface RawAnswer {
  status: number;
  data: unknown;
  origin: DataOrigin;
}

function sendOnce(url: string, body: FormData, opts: UploadOptions): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new UploadAbortedError());
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open(opts.method ?? 'POST', url, true);
    xhr.withCredentials = true;
    xhr.timeout = opts.timeoutMs ?? TIMEOUTS.default;
    for (const [name, value] of Object.entries(uploadHeaders(opts.auth?.(), opts.headers))) {
      xhr.setRequestHeader(name, value);
    }
    const onAbort = () => xhr.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => opts.signal?.removeEventListener('abort', onAbort);

    if (opts.onProgress && xhr.upload) {
      const report = opts.onProgress;
      xhr.upload.addEventListener('progress', (e: ProgressEvent) => {
        const percent =
          e.lengthComputable && e.total > 0 ? Math.min(100, Math.round((e.loaded / e.total) * 100)) : null;
        report({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0, percent });
      });
    }
    xhr.addEventListener('load', () => {
      done();
      const headers = new Headers();
      for (const name of [SOURCE_HEADER, STORED_AT_HEADER]) {
        const value = xhr.getResponseHeader(name);
        if (value !== null) headers.set(name, value);
      }
      resolve({ status: xhr.status, data: parseBody(xhr.responseText), origin: originOf(headers) });
    });
    xhr.addEventListener('error', () => {
      done();
      reject(new ApiError(0, MESSAGES.backendDown, undefined, 'network'));
    });
    xhr.addEventListener('timeout', () => {
      done();
      reject(new ApiError(0, MESSAGES.timeout, undefined, 'timeout'));
    });
    xhr.addEventListener('abort', () => {
      done();
      reject(new UploadAbortedError());
    });
    xhr.send(body);
  });
}

/**
 * Sends `body` (multipart) to an API path, reporting upload progress. Resolves with the parsed JSON answer and
 * where it came from; rejects with an ApiError carrying the server's French detail, an UploadAbortedError when
 * `signal` aborts, or a network/timeout ApiError (status 0).
 */
export async function uploadForm<T>(
  path: string,
  body: FormData,
  opts: UploadOptions = {},
): Promise<{ data: T; origin: DataOrigin }> {
  const url = (opts.baseUrl ?? '').replace(/\/+$/, '') + normalizeApiPath(path);
  let answer = await sendOnce(url, body, opts);
  if (answer.status === 401 && opts.refresh) {
    try {
      await opts.refresh();
    } catch {
      throw uploadError(401, answer.data, opts.maxBytes);
    }
    answer = await sendOnce(url, body, opts);
  }
  if (answer.status >= 200 && answer.status < 300) return { data: answer.data as T, origin: answer.origin };
  throw uploadError(answer.status, answer.data, opts.maxBytes);
}
