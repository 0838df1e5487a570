import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressDir } from '../../server/src/cli/precompress.ts';
import compression, { isCompressibleType } from '../../server/src/plugins/external/compression.ts';
import { createTestApp } from './helpers.ts';
import { apiFor, type Reply } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { multipart } from './support/http.ts';
import { ACME } from './support/world.ts';

const LIST = '/api/vulnerabilities/vulnerabilities/?page_size=50';
const LATER_PAGE = '/api/vulnerabilities/vulnerabilities/?page_size=20&page=2';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The body as the client reads it once its Content-Encoding is undone. */
function decoded(res: Reply): Buffer {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload);
  if (encoding === 'gzip') return gunzipSync(res.rawPayload);
  expect(encoding).toBeUndefined();
  return res.rawPayload;
}

/** The header names a Vary lists, lower case. */
const varyOf = (res: { headers: Record<string, string | string[] | number | undefined> }) =>
  [res.headers.vary ?? []]
    .flat()
    .join(',')
    .toLowerCase()
    .split(/\s*,\s*/);

/** The response head of a GET over real HTTP (for answers that never end, like an event stream). */
function headOf(url: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; first: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers }, (res) => {
      res.once('data', (chunk: Buffer) => resolve({ res, first: chunk }));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
}

describe(`compressed API answers (${backend})`, () => {
  const t = useTestApp();
  const api = apiFor(t);
  const get = async (url: string, acceptEncoding?: string, username = 'admin') =>
    api.call(username, 'GET', url, {
      tenant: ACME,
      ...(acceptEncoding !== undefined ? { headers: { 'accept-encoding': acceptEncoding } } : {}),
    });

  // The first page is a kept answer (serialised and compressed once per data version); later pages are computed.
  it.each([
    ['a first page', LIST],
    ['a later page', LATER_PAGE],
  ])('compresses %s by Accept-Encoding: brotli first, else gzip, else as is', async (_what, url) => {
    const plain = await get(url);
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(4 * 1024);
    expect(plain.headers['content-encoding']).toBeUndefined();

    const br = await get(url, 'br, gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(decoded(br).equals(plain.rawPayload)).toBe(true);
    expect(varyOf(br)).toContain('accept-encoding');
    expect(br.headers['content-type']).toBe(plain.headers['content-type']);
    // Security and cache headers are untouched.
    expect(br.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
    expect(br.headers['content-security-policy']).toContain("default-src 'self'");
    expect(br.headers['cache-control']).toBe('no-store');

    const gzip = await get(url, 'gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decoded(gzip).equals(plain.rawPayload)).toBe(true);
    expect(varyOf(gzip)).toContain('accept-encoding');

    for (const refused of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const res = await get(url, refused);
      expect(res.headers['content-encoding'], refused).toBeUndefined();
      expect(res.rawPayload.equals(plain.rawPayload), refused).toBe(true);
    }
  });

  it.each([LIST, LATER_PAGE])('answers HEAD of %s with no body, describing the uncompressed answer', async (url) => {
    const plain = await get(url);
    const head = await api.call('admin', 'HEAD', url, { tenant: ACME, headers: { 'accept-encoding': 'br' } });
    expect(head.statusCode).toBe(200);
    expect(head.rawPayload.length).toBe(0);
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(plain.rawPayload.length));
  });

  it('leaves a small answer as it is', async () => {
    const res = await get('/api/health/', 'br, gzip');
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json()).toMatchObject({ status: 'ok' });
  });

  it('compresses the OpenAPI document, but never a token answer', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { 'accept-encoding': 'br' } });
    expect(doc.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decoded(doc).toString('utf8'))).toHaveProperty('openapi');

    const token = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      headers: { 'accept-encoding': 'br, gzip' },
      payload: { username: 'admin', password: 'correct horse battery staple' },
    });
    expect(token.statusCode).toBe(200);
    expect(token.headers['content-encoding']).toBeUndefined();
    expect(token.json()).toHaveProperty('access');
  });

  it('streams a CSV export compressed, equal to the plain export once decoded', async () => {
    const url = '/api/vulnerabilities/export/?format=csv';
    const plain = await get(url);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/csv; charset=utf-8');
    const br = await get(url, 'br, gzip');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-disposition']).toBe(plain.headers['content-disposition']);
    expect(decoded(br).equals(plain.rawPayload)).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length);
  });

  it('keeps the uncompressed answer for an idempotent replay, and compresses it for the replaying request', async () => {
    const key = randomUUID();
    const payload = { name: 'Serveur compressé', asset_type: 'server', description: 'journal '.repeat(400) };
    const send = (acceptEncoding?: string) =>
      api.call('admin', 'POST', '/api/assets/', {
        tenant: ACME,
        payload,
        headers: {
          'idempotency-key': key,
          ...(acceptEncoding !== undefined ? { 'accept-encoding': acceptEncoding } : {}),
        },
      });
    const first = await send('br');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['content-encoding']).toBe('br');
    const created = JSON.parse(decoded(first).toString('utf8')) as { id: number; description: string };
    expect(created.description).toBe(payload.description);

    const gzipReplay = await send('gzip');
    expect(gzipReplay.statusCode).toBe(201);
    expect(gzipReplay.headers['idempotent-replayed']).toBe('true');
    expect(gzipReplay.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decoded(gzipReplay).toString('utf8'))).toEqual(created);

    const plainReplay = await send();
    expect(plainReplay.headers['idempotent-replayed']).toBe('true');
    expect(plainReplay.headers['content-encoding']).toBeUndefined();
    expect(plainReplay.json()).toEqual(created);
  });

  it('sends a stored document as it is, with its length', async () => {
    const { rows } = await t.database.executeSql('select id from projects where tenant_id = $1 order by id limit 1', [
      await api.tenantId(ACME),
    ]);
    const project = rows[0] as { id: number } | undefined;
    // A PDF of a few KiB that would compress well: its type alone keeps it as stored.
    const pdf = Buffer.from(`%PDF-1.4\n${'1 0 obj <<>> endobj\n'.repeat(300)}trailer <<>>\n%%EOF\n`, 'latin1');
    const form = multipart([
      { name: 'project', value: String(project!.id) },
      { name: 'file', filename: 'rapport.pdf', content: pdf },
    ]);
    const uploaded = await api.call('admin', 'POST', '/api/projects/documents/', { tenant: ACME, ...form });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    const res = await get(uploaded.json<{ file: string }>().file, 'br, gzip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(pdf.length));
    expect(res.rawPayload.equals(pdf)).toBe(true);
  });

  it('sends a backup archive as it is', async () => {
    const started = await api.call('admin', 'POST', '/api/admin/backups/', { payload: {} });
    expect(started.statusCode, started.body).toBe(202);
    const id = started.json<{ id: string }>().id;
    const deadline = Date.now() + 25_000;
    let backup: { status: string; sha256: string | null } | undefined;
    while (Date.now() < deadline) {
      const list = (await get('/api/admin/backups/')).json<{
        backups: { id: string; status: string; sha256: string }[];
      }>();
      backup = list.backups.find((b) => b.id === id);
      if (backup?.status !== 'RUNNING') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(backup?.status).toBe('COMPLETED');
    const res = await get(`/api/admin/backups/${id}/download/`, 'br, gzip');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(sha256(res.rawPayload)).toBe(backup!.sha256);
  });

  it('never compresses the notification event stream', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { res, first } = await headOf(`${base}/api/notifications/stream/`, {
      authorization: `Bearer ${await api.token('admin')}`,
      'accept-encoding': 'br, gzip',
    });
    try {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.headers['content-encoding']).toBeUndefined();
      // The first event arrives readable right away, not held in a compressor's window.
      expect(first.toString('utf8')).toMatch(/^(event|data|:|retry)/m);
    } finally {
      res.destroy();
    }
  });

  it('treats text as compressible and stored or compressed files as not', () => {
    for (const type of ['application/json; charset=utf-8', 'text/csv; charset=utf-8', 'application/problem+json']) {
      expect(isCompressibleType(type), type).toBe(true);
    }
    for (const type of [
      'text/event-stream; charset=utf-8',
      'application/gzip',
      'application/zip',
      'application/pdf',
      'application/octet-stream',
      'image/png',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ]) {
      expect(isCompressibleType(type), type).toBe(false);
    }
  });
});

describe('compressing a stream keeps it streaming', () => {
  const app = Fastify();
  let base = '';
  let received: () => void = () => {};
  const clientGotData = new Promise<void>((resolve) => (received = resolve));

  beforeAll(async () => {
    await app.register(compression);
    // Two MiB of CSV-like text, then nothing more until the client has read some: a compressor that buffered
    // the whole answer would never let it end.
    app.get('/api/slow-export/', async (_request, reply) => {
      async function* rows() {
        for (let i = 0; i < 2048; i++) yield `${i};${randomBytes(384).toString('hex')}\n`;
        await clientGotData;
        yield 'fin\n';
      }
      const { Readable } = await import('node:stream');
      return reply.type('text/csv; charset=utf-8').send(Readable.from(rows()));
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it('sends compressed bytes before the export ends', async () => {
    const body = await new Promise<Buffer>((resolve, reject) => {
      httpGet(`${base}/api/slow-export/`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        expect(res.headers['content-encoding']).toBe('gzip');
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received();
        });
        res.once('end', () => resolve(Buffer.concat(chunks)));
        res.once('error', reject);
      }).once('error', reject);
    });
    const text = gunzipSync(body).toString('utf8');
    expect(text.split('\n')).toHaveLength(2050);
    expect(text.endsWith('fin\n')).toBe(true);
  });
});

describe(`precompressed app files (${backend})`, () => {
  const script = `export const rows = [${Array.from({ length: 200 }, (_, i) => `{ id: ${i}, label: "ligne ${i}" }`).join(', ')}];\n`;
  const html = `<!doctype html><html lang="fr"><head><title>Vigie</title>${'<meta name="x" content="y">\n'.repeat(60)}</head><body></body></html>`;
  let dir = '';
  const t = useTestApp(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigie-precompressed-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), html);
    writeFileSync(path.join(dir, 'assets', 'app-abc123.js'), script);
    writeFileSync(path.join(dir, 'sw.js'), script);
    await precompressDir(dir);
    return createTestApp({ appDir: dir, runJobs: false });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  it('serves a hashed asset as its .br or .gz sibling, immutable, varying on Accept-Encoding', async () => {
    const br = await get('/assets/app-abc123.js', { 'accept-encoding': 'br, gzip' });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(varyOf(br)).toContain('accept-encoding');
    expect(br.rawPayload.equals(readFileSync(path.join(dir, 'assets', 'app-abc123.js.br')))).toBe(true);
    expect(decoded(br).toString('utf8')).toBe(script);
    expect(br.headers['content-security-policy']).toContain("script-src 'self'");

    const gzip = await get('/assets/app-abc123.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decoded(gzip).toString('utf8')).toBe(script);

    const plain = await get('/assets/app-abc123.js', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
    expect(varyOf(plain)).toContain('accept-encoding');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('revalidates the service worker, compressed too', async () => {
    const sw = await get('/sw.js', { 'accept-encoding': 'br' });
    expect(sw.headers['content-encoding']).toBe('br');
    expect(sw.headers['content-type']).toMatch(/javascript/);
    expect(sw.headers['cache-control']).toBe('no-cache');
  });

  it('serves index.html compressed and no-cache, from / and through the app-route fallback', async () => {
    for (const url of ['/', '/dashboard', '/projects/12']) {
      const res = await get(url, { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(varyOf(res), url).toContain('accept-encoding');
      expect(decoded(res).toString('utf8'), url).toBe(html);
    }
    const plain = await get('/dashboard', { accept: 'text/html' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(html);
  });

  it('answers a revalidation of a compressed file with 304', async () => {
    const first = await get('/sw.js', { 'accept-encoding': 'br' });
    const etag = String(first.headers.etag);
    const again = await get('/sw.js', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });
});

describe('precompressDir', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigie-precompress-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes .br and .gz siblings of text files of 1 KiB or more, and leaves small and binary files alone', async () => {
    const text = (n: number) => Array.from({ length: n }, (_, i) => `ligne ${i % 17}`).join('\n');
    mkdirSync(path.join(dir, 'assets', 'nested'), { recursive: true });
    const files = {
      'index.html': `<!doctype html>${text(200)}`,
      'assets/app.js': text(500),
      'assets/app.css': `body{${text(300)}}`,
      'assets/nested/data.json': JSON.stringify({ rows: text(300).split('\n') }),
      'manifest.webmanifest': JSON.stringify({ name: 'Vigie', text: text(200) }),
      'assets/tiny.js': 'console.log(1)',
      'assets/app.js.map': text(500),
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(4096)]);
    writeFileSync(path.join(dir, 'icon.png'), png);

    const packed = await precompressDir(dir);
    const compressed = [
      'assets/app.css',
      'assets/app.js',
      'assets/nested/data.json',
      'index.html',
      'manifest.webmanifest',
    ];
    expect(packed.map((p) => p.file)).toEqual(compressed);
    for (const name of compressed) {
      const original = readFileSync(path.join(dir, name));
      expect(brotliDecompressSync(readFileSync(path.join(dir, `${name}.br`))).equals(original), name).toBe(true);
      expect(gunzipSync(readFileSync(path.join(dir, `${name}.gz`))).equals(original), name).toBe(true);
      const entry = packed.find((p) => p.file === name)!;
      expect(entry.raw).toBe(original.length);
      expect(entry.br).toBeLessThan(entry.raw);
      expect(entry.gzip).toBeLessThan(entry.raw);
    }
    for (const name of ['assets/tiny.js', 'assets/app.js.map', 'icon.png']) {
      expect(existsSync(path.join(dir, `${name}.br`)), name).toBe(false);
      expect(existsSync(path.join(dir, `${name}.gz`)), name).toBe(false);
    }
  });
});
