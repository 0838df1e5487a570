import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { DownloadError, rowCounter, saveBlob, streamDownload, type DownloadProgress } from '../../src/lib/download.ts';

const MESSAGE = 'Impossible d’exporter les vulnérabilités en CSV.';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const c = chunks[i++];
      if (c === undefined) controller.close();
      else controller.enqueue(enc.encode(c));
    },
  });
}

let calls: { url: string; headers: Headers }[];

function answer(make: () => Response) {
  calls = [];
  setClientEnvironment({
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push({
        url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        headers: new Headers(init?.headers),
      });
      return Promise.resolve(make());
    },
  });
}

beforeEach(() => {
  calls = [];
});
afterEach(() => {
  resetApiClient();
  vi.restoreAllMocks();
});

describe('streamDownload', () => {
  it('reports bytes and rows as chunks arrive, then saves one Blob', async () => {
    const chunks = ['cve_id,title\nCVE-1,"a,\nb"\n', 'CVE-2,c\n', 'CVE-3,d'];
    answer(() => new Response(streamOf(chunks), { status: 200, headers: { 'content-type': 'text/csv' } }));
    const progress: DownloadProgress[] = [];
    const saved: { blob: Blob; name: string }[] = [];
    const result = await streamDownload({
      path: '/vulnerabilities/export/',
      query: { format: 'csv', severity: 'critical,high' },
      filename: 'vulnerabilites.csv',
      mimeType: 'text/csv',
      rowCounting: 'csv',
      expectedRows: 3,
      onProgress: (p) => progress.push(p),
      save: (blob, name) => saved.push({ blob, name }),
    });
    const url = new URL(calls[0]!.url, 'http://x');
    expect(url.pathname).toBe('/api/vulnerabilities/export/');
    expect(Object.fromEntries(url.searchParams)).toEqual({ format: 'csv', severity: 'critical,high' });
    expect(calls[0]!.headers.get('x-requested-with')).toBe('XMLHttpRequest');
    const sizes = chunks.map((c) => new TextEncoder().encode(c).byteLength);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(result).toMatchObject({ bytes: total, rows: 3 });
    expect(progress.at(-1)).toEqual({ bytes: total, rows: 3, expectedRows: 3 });
    expect(progress.map((p) => p.bytes)).toEqual([0, sizes[0], sizes[0]! + sizes[1]!, total, total]);
    expect(progress.map((p) => p.rows)).toEqual([0, 1, 2, 3, 3]);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.name).toBe('vulnerabilites.csv');
    expect(await saved[0]!.blob.text()).toBe(chunks.join(''));
  });

  it('saves through an object URL and a temporary <a download>', async () => {
    answer(() => new Response(streamOf(['[{"id":1},{"id":2,"t":"{x}"}]']), { status: 200 }));
    const create = vi.fn((_b: Blob) => 'blob:vigie/1');
    URL.createObjectURL = create;
    URL.revokeObjectURL = vi.fn();
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const result = await streamDownload({
      path: '/vulnerabilities/export/',
      filename: 'vulnerabilites.json',
      mimeType: 'application/json',
      rowCounting: 'json-array',
    });
    expect(result.rows).toBe(2);
    expect(create).toHaveBeenCalledTimes(1);
    expect(create.mock.calls[0]![0]).toBeInstanceOf(Blob);
    expect(clicked[0]!.download).toBe('vulnerabilites.json');
    expect(clicked[0]!.href).toBe('blob:vigie/1');
    expect(document.querySelector('a[download]')).toBeNull();
  });

  it('fails with the French message given when the server refuses', async () => {
    answer(() => new Response(JSON.stringify({ detail: 'boom' }), { status: 500 }));
    await expect(
      streamDownload({
        path: '/vulnerabilities/export/',
        filename: 'x.csv',
        mimeType: 'text/csv',
        errorMessage: MESSAGE,
        save: () => {},
      }),
    ).rejects.toThrow(MESSAGE);
  });

  it('fails with the French message when the network drops', async () => {
    setClientEnvironment({ fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
    const err = await streamDownload({
      path: '/vulnerabilities/export/',
      filename: 'x.csv',
      mimeType: 'text/csv',
      errorMessage: MESSAGE,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as DownloadError).message).toBe(MESSAGE);
    expect((err as DownloadError).aborted).toBe(false);
  });

  it('stops and saves nothing when cancelled mid-stream', async () => {
    const controller = new AbortController();
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulls++;
        if (pulls === 2) controller.abort();
        c.enqueue(new TextEncoder().encode('a,b\n'));
      },
    });
    answer(() => new Response(body, { status: 200 }));
    const save = vi.fn();
    const err = await streamDownload({
      path: '/vulnerabilities/export/',
      filename: 'x.csv',
      mimeType: 'text/csv',
      signal: controller.signal,
      save,
    }).catch((e: unknown) => e);
    expect((err as DownloadError).aborted).toBe(true);
    expect(save).not.toHaveBeenCalled();
  });
});

describe('rowCounter', () => {
  it('counts CSV rows across chunk boundaries and quoted newlines', () => {
    const c = rowCounter('csv');
    for (const part of ['h1,h2\r\n1,"x\n', 'y"\r\n2,', 'z\r\n']) c.feed(part);
    expect(c.rows()).toBe(2);
  });
  it('counts objects of a JSON array, ignoring braces in strings', () => {
    const c = rowCounter('json-array');
    for (const part of ['[{"a":"}{","b":{"c":1}},', '{"a":"\\"{"}', ']']) c.feed(part);
    expect(c.rows()).toBe(2);
  });
});

describe('saveBlob', () => {
  it('revokes the object URL later', () => {
    vi.useFakeTimers();
    URL.createObjectURL = vi.fn(() => 'blob:x');
    const revoke = vi.fn();
    URL.revokeObjectURL = revoke;
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    saveBlob(new Blob(['x']), 'x.txt');
    expect(revoke).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10_000);
    expect(revoke).toHaveBeenCalledWith('blob:x');
    vi.useRealTimers();
  });
});
