import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract, type Header, type Pack } from 'tar-stream';
import { storageFailure } from '../domain/storage-errors.ts';
import type { StoredFile } from '../lib/document-store.ts';
import { BackupRefusedError, refused } from './backup-format.ts';

// The tar.gz plumbing of a backup: entries written with their measure, entries read one at a time.

/** An entry header as written: the name, plus whatever differs from the defaults. */
type EntryHeader = Partial<Header> & { name: string };

/** Resolves when a (node or streamx) writable may take more, or closes (the caller's next step finds why). */
export function drained(stream: object): Promise<void> {
  const w = stream as EventEmitter;
  return new Promise((resolve, reject) => {
    const done = () => {
      w.removeListener('drain', done);
      w.removeListener('close', done);
      w.removeListener('error', fail);
      resolve();
    };
    const fail = (err: Error) => {
      w.removeListener('drain', done);
      w.removeListener('close', done);
      reject(err);
    };
    w.once('drain', done);
    w.once('close', done);
    w.once('error', fail);
  });
}

/** Adds one entry from `source`, measuring it; rejects as soon as the archive's output fails. */
export async function addEntry(
  pack: Pack,
  header: EntryHeader,
  source: AsyncIterable<Buffer> | Iterable<Buffer>,
  outputFailed: Promise<never>,
): Promise<StoredFile> {
  const hash = createHash('sha256');
  let size = 0;
  let sink!: ReturnType<Pack['entry']>;
  const added = new Promise<void>((resolve, reject) => {
    sink = pack.entry({ mode: 0o600, type: 'file', ...header }, (err) => (err ? reject(err) : resolve()));
  });
  added.catch(() => {});
  for await (const chunk of source) {
    hash.update(chunk);
    size += chunk.length;
    if (!sink.write(chunk)) await Promise.race([drained(sink), outputFailed]);
  }
  sink.end(null);
  await Promise.race([added, outputFailed]);
  return { size, sha256: hash.digest('hex') };
}

/** Streams the archive's entries one at a time; gzip and tar errors become a refusal. Returns the file's measure. */
export async function readArchive(
  file: string,
  onEntry: (header: Header, body: AsyncIterable<Buffer>) => Promise<void>,
): Promise<StoredFile> {
  const extract = tarExtract();
  const fileHash = createHash('sha256');
  let fileSize = 0;
  // The server's disk failing while the file is read is its own error (503), not a fault of the file.
  let diskError: Error | undefined;
  const unreadable = () =>
    diskError ?? refused('ce n’est pas une archive .tar.gz lisible (gzip ou tar invalide, ou fichier tronqué).');
  // A gzip or tar error, wherever it surfaces (the feeding, the next entry, or an entry's body being read).
  let broken = false;
  extract.on('error', () => {
    broken = true;
  });
  const feeding = pipeline(
    createReadStream(file),
    async function* (raw: AsyncIterable<Buffer>) {
      for await (const chunk of raw) {
        fileHash.update(chunk);
        fileSize += chunk.length;
        yield chunk;
      }
    },
    createGunzip(),
    async function (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        if (extract.destroyed) return;
        if (!extract.write(chunk)) await drained(extract);
      }
      extract.end(null);
    },
  ).catch((err: unknown) => {
    broken = true;
    if (storageFailure(err)) diskError = err as Error;
    extract.destroy(err as Error);
    throw err;
  });
  feeding.catch(() => {});

  const entries = extract[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<AsyncIterable<Buffer> & { header: Header }>;
      try {
        next = (await entries.next()) as IteratorResult<AsyncIterable<Buffer> & { header: Header }>;
      } catch {
        throw unreadable();
      }
      if (next.done) break;
      await onEntry(next.value.header, next.value);
      // Whatever onEntry left unread (the next entry only comes once this one is consumed).
      for await (const _ of next.value) void _;
    }
    try {
      await feeding;
    } catch {
      throw unreadable();
    }
  } catch (err) {
    // A pending gzip or tar error surfaces first: then the file is at fault, not the caller (nor the database).
    await new Promise((resolve) => setImmediate(resolve));
    const wasBroken = broken;
    extract.destroy();
    await feeding.catch(() => {});
    if (wasBroken && !(err instanceof BackupRefusedError) && !storageFailure(err)) throw unreadable();
    throw err;
  }
  return { size: fileSize, sha256: fileHash.digest('hex') };
}

export async function measureBody(
  body: AsyncIterable<Buffer>,
): Promise<StoredFile & { lines: number; endsWithNewline: boolean }> {
  const hash = createHash('sha256');
  let size = 0;
  let lines = 0;
  let last = 10;
  for await (const chunk of body) {
    hash.update(chunk);
    size += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  return { size, sha256: hash.digest('hex'), lines, endsWithNewline: last === 10 };
}
