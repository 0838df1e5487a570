import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startFakeS3, type FakeS3, type SeenS3Request } from './fake-s3.ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDocumentStore,
  DiskDocumentStore,
  S3DocumentStore,
  StoredFileMissingError,
} from '../../server/src/lib/document-store.ts';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
};
/** Every file below a directory, relative to it. */
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? (
        readdirSync(dir, { recursive: true, withFileTypes: true }) as {
          isFile(): boolean;
          parentPath: string;
          name: string;
        }[]
      )
        .filter((e) => e.isFile())
        .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
        .sort()
    : [];

const TRAVERSAL_KEYS = [
  '../escape',
  'tenant/../../escape',
  '/etc/passwd',
  '..',
  '.',
  '',
  'tenant//file',
  'tenant/./file',
  'tenant\\..\\..\\escape',
  'tenant/file\u0000.txt',
  '%2e%2e/escape',
];

describe('disk document store', () => {
  let base: string;
  let store: DiskDocumentStore;

  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'vigie-store-'));
    store = new DiskDocumentStore(path.join(base, 'documents'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('stores a stream under its key, measures it while writing, and gives the same bytes back', async () => {
    const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200_000, 7)]);
    const key = `3b1f0c52-0000-4000-8000-000000000001/${randomUUID()}`;
    const stored = await store.put(key, Readable.from([data.subarray(0, 1000), data.subarray(1000)]));
    expect(stored).toEqual({ size: data.length, sha256: sha256(data) });
    expect(filesUnder(path.join(base, 'documents'))).toEqual([key]);
    expect(readFileSync(path.join(base, 'documents', key)).equals(data)).toBe(true);
    expect((await readAll(await store.get(key))).equals(data)).toBe(true);
  });

  it('refuses every key that is not a plain relative path inside its root, and writes nothing', async () => {
    for (const key of TRAVERSAL_KEYS) {
      await expect(store.put(key, Readable.from([Buffer.from('x')])), key).rejects.toThrow(/storage key/);
      await expect(store.get(key), key).rejects.toThrow(/storage key/);
      await expect(store.delete(key), key).rejects.toThrow(/storage key/);
      expect(() => store.pathOf(key), key).toThrow(/storage key/);
    }
    expect(filesUnder(base)).toEqual([]);
  });

  it('deletes a file (twice is fine) and reports a missing one', async () => {
    const key = 'tenant/file-1';
    await store.put(key, Readable.from([Buffer.from('bonjour')]));
    await store.delete(key);
    await store.delete(key);
    expect(filesUnder(base)).toEqual([]);
    await expect(store.get(key)).rejects.toBeInstanceOf(StoredFileMissingError);
  });

  it('leaves nothing behind when the incoming stream fails half-way', async () => {
    async function* failing() {
      yield Buffer.alloc(70_000, 1);
      throw new Error('client went away');
    }
    await expect(store.put('tenant/broken', Readable.from(failing()))).rejects.toThrow('client went away');
    expect(filesUnder(base)).toEqual([]);
  });

  it('leaves nothing behind when the stream fails before the file is even open', async () => {
    // The refusal races the file's opening: removing it too early used to leave it behind now and then.
    for (let i = 0; i < 200; i++) {
      async function* refused(): AsyncGenerator<Buffer> {
        yield* [];
        throw new Error('refused');
      }
      await expect(store.put(`tenant/early-${i}`, Readable.from(refused()))).rejects.toThrow('refused');
    }
    expect(filesUnder(base)).toEqual([]);
  });

  it('is what the configuration gives without a bucket, rooted at {filesDir}/documents', async () => {
    const chosen = createDocumentStore(base, {});
    expect(chosen).toBeInstanceOf(DiskDocumentStore);
    expect((chosen as DiskDocumentStore).root).toBe(path.join(base, 'documents'));
    await chosen.close();
  });
});

describe('S3 document store (against an in-process fake S3, path-style)', () => {
  const objects = new Map<string, Buffer>();
  const seen: SeenS3Request[] = [];
  let fake: FakeS3;
  let endpoint: string;
  let store: S3DocumentStore;

  beforeAll(async () => {
    fake = await startFakeS3(objects, seen);
    endpoint = fake.endpoint;
    store = new S3DocumentStore({
      bucket: 'vigie-docs',
      endpoint,
      region: 'eu-west-3',
      credentials: { accessKeyId: 'AKIAFAKE', secretAccessKey: 'fake-secret' },
    });
  });

  afterAll(async () => {
    await store.close();
    await fake.close();
  });

  it('puts a signed object at {endpoint}/{bucket}/documents/{key} and reads the same bytes back', async () => {
    seen.length = 0;
    const data = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(300_000, 3)]);
    const key = `tenant-a/${randomUUID()}`;
    const stored = await store.put(key, Readable.from([data.subarray(0, 10), data.subarray(10)]));
    expect(stored).toEqual({ size: data.length, sha256: sha256(data) });
    expect(seen).toEqual([
      {
        method: 'PUT',
        url: `/vigie-docs/documents/${key}`,
        authorization: expect.stringMatching(
          /^AWS4-HMAC-SHA256 Credential=AKIAFAKE\/\d{8}\/eu-west-3\/s3\/aws4_request/,
        ),
        contentLength: String(data.length),
      },
    ]);
    expect(objects.get(`/vigie-docs/documents/${key}`)?.equals(data)).toBe(true);
    expect((await readAll(await store.get(key))).equals(data)).toBe(true);
  });

  it('reports a missing object, deletes one, and refuses traversal keys without a request', async () => {
    await expect(store.get('tenant-a/absent')).rejects.toBeInstanceOf(StoredFileMissingError);
    await store.put('tenant-a/gone', Readable.from([Buffer.from('bientôt supprimé')]));
    expect(objects.has('/vigie-docs/documents/tenant-a/gone')).toBe(true);
    await store.delete('tenant-a/gone');
    expect(objects.has('/vigie-docs/documents/tenant-a/gone')).toBe(false);
    await expect(store.get('tenant-a/gone')).rejects.toBeInstanceOf(StoredFileMissingError);

    seen.length = 0;
    for (const key of TRAVERSAL_KEYS) {
      await expect(store.put(key, Readable.from([Buffer.from('x')])), key).rejects.toThrow(/storage key/);
      await expect(store.get(key), key).rejects.toThrow(/storage key/);
    }
    expect(seen).toEqual([]);
  });

  it('is what the configuration gives when VIGIE_S3_BUCKET is set', async () => {
    const chosen = createDocumentStore('/nowhere', {
      VIGIE_S3_BUCKET: 'vigie-docs',
      VIGIE_S3_ENDPOINT: endpoint,
      VIGIE_S3_REGION: 'eu-west-3',
    });
    expect(chosen).toBeInstanceOf(S3DocumentStore);
    await chosen.close();
  });
});
