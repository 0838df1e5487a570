import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/** What a store reports about a file it wrote, measured while the bytes went through. */
export interface StoredFile {
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

/**
 * Where project documents live: never under the web root, always under a server-made key (`{tenant}/{uuid}`), so
 * a client's file name never becomes a path.
 */
export interface DocumentStore {
  readonly kind: 'disk' | 's3';
  put(key: string, content: Readable): Promise<StoredFile>;
  /** The file's bytes; StoredFileMissingError when there is no such file. */
  get(key: string): Promise<Readable>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export class StoredFileMissingError extends Error {
  constructor(key: string) {
    super(`stored file not found: ${key}`);
  }
}

// Segments of letters, digits, dot, dash and underscore, each starting with a letter or digit: no "..", no
// absolute path, no backslash, no empty segment.
const KEY_RE = /^[A-Za-z0-9][\w.-]*(?:\/[A-Za-z0-9][\w.-]*)*$/;

function checkKey(key: string): string {
  if (key.length > 512 || !KEY_RE.test(key)) throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  return key;
}

/** A pass-through that counts and hashes what flows through it. */
function measure(): { through: Transform; result: () => StoredFile } {
  const hash = createHash('sha256');
  let size = 0;
  const through = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return { through, result: () => ({ size, sha256: hash.digest('hex') }) };
}

/** Writes content to a new file (mode 600), measuring it; a failed write leaves no file behind. */
async function writeMeasured(content: Readable, file: string): Promise<StoredFile> {
  const m = measure();
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  try {
    await pipeline(content, m.through, out);
  } catch (err) {
    // A stream refused early may still be opening its file: removing it before it closes would leave it behind.
    if (!out.closed) await once(out, 'close').catch(() => {});
    await rm(file, { force: true });
    throw err;
  }
  return m.result();
}

/** Files under one directory (the data dir's `documents/`); a key can never reach outside it. */
export class DiskDocumentStore implements DocumentStore {
  readonly kind = 'disk';
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The file of a key, refused unless it resolves strictly inside the root (the key check already says so). */
  pathOf(key: string): string {
    const target = path.resolve(this.root, checkKey(key));
    if (!target.startsWith(this.root + path.sep)) throw new Error(`storage key escapes the store: ${key}`);
    return target;
  }

  async put(key: string, content: Readable): Promise<StoredFile> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    // Written aside and renamed into place: the key never names a half-written file.
    const partial = `${target}.${randomUUID()}.part`;
    const stored = await writeMeasured(content, partial);
    try {
      await rename(partial, target);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    return stored;
  }

  async get(key: string): Promise<Readable> {
    try {
      const handle = await open(this.pathOf(key), 'r');
      return handle.createReadStream();
    } catch (err) {
      if ((err as { code?: string }).code === 'ENOENT') throw new StoredFileMissingError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}
}

export interface S3StoreOptions {
  bucket: string;
  /** An S3-compatible endpoint (MinIO, Ceph, Garage…); AWS itself when absent. */
  endpoint?: string | undefined;
  region?: string | undefined;
  /** Prefix of every object key (default `documents/`). */
  prefix?: string;
  /** Explicit credentials; by default the SDK's chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY…). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Where an upload is spooled to learn its length before it is sent (default: the OS temp dir). */
  spoolDir?: string;
}

/** Objects in an S3-compatible bucket, addressed path-style (`{endpoint}/{bucket}/{prefix}{key}`). */
export class S3DocumentStore implements DocumentStore {
  readonly kind = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly spoolDir: string;

  constructor(opts: S3StoreOptions) {
    this.bucket = opts.bucket;
    this.prefix = opts.prefix ?? 'documents/';
    this.spoolDir = opts.spoolDir ?? tmpdir();
    this.client = new S3Client({
      region: opts.region ?? 'us-east-1',
      forcePathStyle: true,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // Plain signed PUTs: the SDK's default streaming checksums (aws-chunked trailers) are not understood by
      // every S3-compatible server.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.prefix + checkKey(key);
  }

  async put(key: string, content: Readable): Promise<StoredFile> {
    const objectKey = this.objectKey(key);
    // A PUT needs its length up front: the upload is spooled (and measured) first, then sent.
    const dir = await mkdtemp(path.join(this.spoolDir, 'vigie-upload-'));
    try {
      const spool = path.join(dir, 'content');
      const stored = await writeMeasured(content, spool);
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          Body: createReadStream(spool),
          ContentLength: stored.size,
          ContentType: 'application/octet-stream',
        }),
      );
      return stored;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async get(key: string): Promise<Readable> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      if (!out.Body) throw new StoredFileMissingError(key);
      return out.Body as Readable;
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404) {
        throw new StoredFileMissingError(key);
      }
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/**
 * The store the configuration asks for: a bucket when VIGIE_S3_BUCKET is set (with VIGIE_S3_ENDPOINT and
 * VIGIE_S3_REGION; credentials from the SDK's usual environment variables), else `{filesDir}/documents`.
 */
export function createDocumentStore(filesDir: string, env: NodeJS.ProcessEnv = process.env): DocumentStore {
  const bucket = env.VIGIE_S3_BUCKET?.trim();
  if (bucket) {
    return new S3DocumentStore({
      bucket,
      endpoint: env.VIGIE_S3_ENDPOINT?.trim() || undefined,
      region: env.VIGIE_S3_REGION?.trim() || env.AWS_REGION?.trim() || undefined,
    });
  }
  return new DiskDocumentStore(path.join(filesDir, 'documents'));
}
