import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import {
  checkUploadFile,
  MAX_UPLOAD_BYTES,
  uploadForm,
  UploadAbortedError,
  uploadHeaders,
} from '../../src/lib/upload.ts';

/** A scripted XMLHttpRequest: records what is sent, answers when the test says so. */
class FakeXhr {
  static instances: FakeXhr[] = [];
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: unknown;
  status = 0;
  responseText = '';
  timeout = 0;
  withCredentials = false;
  responseHeaders: Record<string, string> = {};
  private listeners: Record<string, ((e: unknown) => void)[]> = {};
  private uploadListeners: ((e: unknown) => void)[] = [];
  upload = {
    addEventListener: (_type: string, fn: (e: unknown) => void) => this.uploadListeners.push(fn),
  };
  constructor() {
    FakeXhr.instances.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  addEventListener(type: string, fn: (e: unknown) => void) {
    (this.listeners[type] ??= []).push(fn);
  }
  getResponseHeader(name: string) {
    return this.responseHeaders[name.toLowerCase()] ?? null;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.emit('abort');
  }
  progress(loaded: number, total: number) {
    for (const fn of this.uploadListeners) fn({ loaded, total, lengthComputable: true });
  }
  respond(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.responseText = body === undefined ? '' : JSON.stringify(body);
    this.responseHeaders = headers;
    this.emit('load');
  }
  emit(type: string) {
    for (const fn of this.listeners[type] ?? []) fn({});
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  FakeXhr.instances = [];
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});
afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

function form() {
  const f = new FormData();
  f.append('file', new File(['{}'], 'trivy.json', { type: 'application/json' }));
  return f;
}

describe('uploadForm', () => {
  it('sends the api-client headers, reports progress and resolves with the JSON answer', async () => {
    document.cookie = 'csrftoken=abc123';
    const progress: (number | null)[] = [];
    const answer = uploadForm<{ id: number }>('/vulnerabilities/scans/import/', form(), {
      auth: () => ({ token: 'tok', tenantId: 't-1' }),
      onProgress: (p) => progress.push(p.percent),
    });
    const xhr = FakeXhr.instances[0]!;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/vulnerabilities/scans/import/');
    expect(xhr.withCredentials).toBe(true);
    expect(xhr.headers).toMatchObject({
      'X-Requested-With': 'XMLHttpRequest',
      Accept: 'application/json',
      Authorization: 'Bearer tok',
      'X-Tenant-ID': 't-1',
      'X-CSRFToken': 'abc123',
    });
    expect(xhr.body).toBeInstanceOf(FormData);
    xhr.progress(25, 100);
    xhr.progress(50, 100);
    xhr.progress(100, 100);
    xhr.respond(201, { id: 7 });
    await expect(answer).resolves.toEqual({ data: { id: 7 }, origin: { source: 'network' } });
    expect(progress).toEqual([25, 50, 100]);
  });

  it('rejects with the server’s French detail on 400', async () => {
    const answer = uploadForm('/vulnerabilities/scans/import/', form());
    FakeXhr.instances[0]!.respond(400, {
      detail: 'Rapport refusé : les DTD et entités XML ne sont pas acceptées.',
      code: 'report_rejected',
    });
    const err = await answer.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect((err as ApiError).message).toBe('Rapport refusé : les DTD et entités XML ne sont pas acceptées.');
  });

  it('says the file is too large on a 413 without detail', async () => {
    const answer = uploadForm('/x/', form());
    FakeXhr.instances[0]!.respond(413, undefined);
    await expect(answer).rejects.toMatchObject({
      status: 413,
      message: 'Le fichier dépasse la taille maximale (50 Mo).',
    });
  });

  it('is abortable', async () => {
    const controller = new AbortController();
    const answer = uploadForm('/x/', form(), { signal: controller.signal });
    controller.abort();
    await expect(answer).rejects.toBeInstanceOf(UploadAbortedError);
  });

  it('maps a network error to the backend-down message', async () => {
    const answer = uploadForm('/x/', form());
    FakeXhr.instances[0]!.emit('error');
    await expect(answer).rejects.toMatchObject({ status: 0, kind: 'network', message: 'Backend connection failed' });
  });

  it('refreshes once after a 401 and sends again with the new token', async () => {
    let token = 'old';
    const refresh = vi.fn(async () => {
      token = 'new';
    });
    const answer = uploadForm('/x/', form(), { auth: () => ({ token }), refresh });
    FakeXhr.instances[0]!.respond(401, { detail: 'expired' });
    await flush();
    expect(refresh).toHaveBeenCalledTimes(1);
    const second = FakeXhr.instances[1]!;
    expect(second.headers.Authorization).toBe('Bearer new');
    second.respond(201, { ok: true }, { 'x-vigie-source': 'queued' });
    await expect(answer).resolves.toEqual({ data: { ok: true }, origin: { source: 'queued' } });
  });
});

describe('checkUploadFile', () => {
  it('refuses files over 50 MB, empty files and other extensions', () => {
    expect(checkUploadFile({ name: 'a.json', size: MAX_UPLOAD_BYTES + 1 })).toBe(
      'Le fichier dépasse la taille maximale (50 Mo).',
    );
    expect(checkUploadFile({ name: 'a.json', size: 0 })).toBe('Le fichier est vide.');
    expect(checkUploadFile({ name: 'a.exe', size: 10 }, { extensions: ['.json', '.xml'] })).toBe(
      'Format de fichier non accepté : .json, .xml attendu.',
    );
    expect(checkUploadFile({ name: 'Scan.XML', size: MAX_UPLOAD_BYTES }, { extensions: ['.xml'] })).toBeNull();
    expect(checkUploadFile(null)).toBe('Choisissez un fichier.');
  });

  it('builds no Authorization header without a token', () => {
    expect(uploadHeaders()).toEqual({ 'X-Requested-With': 'XMLHttpRequest', Accept: 'application/json' });
  });

  it('sends the token in the style the backend asked for, as every other call (spec §7: Bearer or Token)', () => {
    expect(uploadHeaders({ token: 'abc' }).Authorization).toBe('Bearer abc');
    setClientEnvironment({ authScheme: () => 'Token' });
    try {
      expect(uploadHeaders({ token: 'abc', tenantId: 't1' })).toMatchObject({
        Authorization: 'Token abc',
        'X-Tenant-ID': 't1',
      });
    } finally {
      resetApiClient();
    }
  });
});
