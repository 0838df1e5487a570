import { apiRequestWithOrigin, type RequestOptions } from './api-client.ts';
import { UserMessageError } from './error-message.ts';

/**
 * Streamed file downloads (exports) through the API client — same headers (Authorization, X-Tenant-ID, CSRF,
 * X-Requested-With), same 401 refresh-and-retry — reading the body chunk by chunk to report progress, then saving
 * the file through a Blob, an object URL and <a download>. Cancellable with an AbortSignal.
 */

export interface DownloadProgress {
  /** Bytes received so far. */
  bytes: number;
  /** Data rows received so far (CSV lines after the header, or objects of a top-level JSON array). */
  rows: number;
  /** Rows expected, when the caller knows (e.g. the list's count): lets a progress bar be determinate. */
  expectedRows?: number;
}

export type RowCounting = 'csv' | 'json-array' | 'none';

export interface StreamDownloadOptions {
  /** API path, e.g. '/vulnerabilities/export/'. */
  path: string;
  query?: RequestOptions['query'];
  /** Name of the saved file. */
  filename: string;
  /** Type of the saved Blob. */
  mimeType: string;
  rowCounting?: RowCounting;
  expectedRows?: number;
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  /** The French message of the error thrown on any failure. */
  errorMessage?: string;
  /** Until the answer starts (the body itself may take longer). Default 30 s (spec §9). */
  timeoutMs?: number;
  /** Tests and special cases; default: saveBlob. */
  save?: (blob: Blob, filename: string) => void;
}

export interface DownloadResult {
  bytes: number;
  rows: number;
  blob: Blob;
}

export const DEFAULT_DOWNLOAD_ERROR = 'Impossible de télécharger le fichier.';
export const DOWNLOAD_CANCELLED = 'Téléchargement annulé.';

/** A failed or cancelled download, its message in French for the user. */
export class DownloadError extends UserMessageError {
  constructor(
    message: string,
    readonly aborted = false,
    readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

/** Saves a Blob as a file: object URL + a temporary <a download>, the URL revoked afterwards. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.hidden = true;
  document.body.append(a);
  try {
    a.click();
  } finally {
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

/** Counts data rows in a text stream fed chunk by chunk. */
export function rowCounter(mode: RowCounting): { feed(text: string): void; rows(): number } {
  if (mode === 'csv') {
    // Lines outside quoted fields; the first is the header; a last line without newline counts at the end.
    let newlines = 0;
    let inQuotes = false;
    let pendingContent = false;
    return {
      feed(text) {
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          if (c === 34 /* " */) inQuotes = !inQuotes;
          if (c === 10 /* \n */ && !inQuotes) {
            newlines++;
            pendingContent = false;
          } else if (c !== 13) pendingContent = true;
        }
      },
      rows: () => Math.max(0, newlines + (pendingContent ? 1 : 0) - 1),
    };
  }
  if (mode === 'json-array') {
    // Objects opened at depth 1 of a top-level array, strings skipped.
    let depth = 0;
    let inString = false;
    let escaped = false;
    let count = 0;
    return {
      feed(text) {
        for (let i = 0; i < text.length; i++) {
          const c = text[i];
          if (inString) {
            if (escaped) escaped = false;
            else if (c === '\\') escaped = true;
            else if (c === '"') inString = false;
            continue;
          }
          if (c === '"') inString = true;
          else if (c === '[' || c === '{') {
            if (c === '{' && depth === 1) count++;
            depth++;
          } else if (c === ']' || c === '}') depth--;
        }
      },
      rows: () => count,
    };
  }
  return { feed() {}, rows: () => 0 };
}

function abortError(): DownloadError {
  return new DownloadError(DOWNLOAD_CANCELLED, true);
}

/** Rejects as soon as `signal` aborts, whatever `promise` does. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

function isStream(x: unknown): x is ReadableStream<Uint8Array<ArrayBuffer>> {
  return !!x && typeof (x as ReadableStream<unknown>).getReader === 'function';
}

export async function streamDownload(opts: StreamDownloadOptions): Promise<DownloadResult> {
  const { signal, onProgress, expectedRows } = opts;
  const counter = rowCounter(opts.rowCounting ?? 'none');
  const report = (bytes: number) =>
    onProgress?.(
      expectedRows === undefined ? { bytes, rows: counter.rows() } : { bytes, rows: counter.rows(), expectedRows },
    );

  let body: unknown;
  try {
    const request = apiRequestWithOrigin<unknown>(opts.path, {
      query: opts.query,
      responseType: 'stream',
      headers: { Accept: `${opts.mimeType}, */*;q=0.5` },
      // The timeout covers the whole streamed body, so it is generous; the user can cancel any time.
      timeoutMs: opts.timeoutMs ?? 600_000,
      ...(signal ? { signal } : {}),
      allowForbidden: true,
    });
    // An answer arriving after a cancel is dropped unread.
    request.then(
      (r) => {
        if (signal?.aborted && isStream(r.data)) void r.data.cancel().catch(() => {});
      },
      () => {},
    );
    body = (await raceAbort(request, signal)).data;
  } catch (err) {
    if (err instanceof DownloadError) throw err;
    throw new DownloadError(opts.errorMessage ?? DEFAULT_DOWNLOAD_ERROR, false, err);
  }

  const parts: BlobPart[] = [];
  let bytes = 0;
  report(0);
  try {
    if (isStream(body)) {
      const reader = body.getReader();
      const decoder = new TextDecoder();
      const onAbort = () => void reader.cancel().catch(() => {});
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (signal?.aborted) throw abortError();
          if (done) break;
          parts.push(value);
          bytes += value.byteLength;
          counter.feed(decoder.decode(value, { stream: true }));
          report(bytes);
        }
        counter.feed(decoder.decode());
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    } else if (body instanceof Blob) {
      parts.push(body);
      bytes = body.size;
      counter.feed(await body.text());
    } else if (typeof body === 'string') {
      parts.push(body);
      bytes = new TextEncoder().encode(body).byteLength;
      counter.feed(body);
    } else if (body !== undefined && body !== null) {
      const text = JSON.stringify(body);
      parts.push(text);
      bytes = text.length;
      counter.feed(text);
    }
  } catch (err) {
    if (err instanceof DownloadError) throw err;
    if (signal?.aborted) throw abortError();
    throw new DownloadError(opts.errorMessage ?? DEFAULT_DOWNLOAD_ERROR, false, err);
  }
  if (signal?.aborted) throw abortError();
  report(bytes);

  const blob = new Blob(parts, { type: opts.mimeType });
  try {
    (opts.save ?? saveBlob)(blob, opts.filename);
  } catch (err) {
    throw new DownloadError(opts.errorMessage ?? DEFAULT_DOWNLOAD_ERROR, false, err);
  }
  return { bytes, rows: counter.rows(), blob };
}
