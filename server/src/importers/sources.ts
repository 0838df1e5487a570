import { createReadStream } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGunzip, gunzipSync } from 'node:zlib';
import { ImportError, type SourceKind } from './types.ts';

/** One thing to import: a local file or an http(s) URL, with its kind when already known. */
export interface SourceEntry {
  location: string;
  isUrl: boolean;
  kind: SourceKind | undefined;
  /** Bytes on disk (local files), for progress. */
  size: number | undefined;
}

const HEAD_BYTES = 8192;

/** Writes happen in this order so CVE rows exist before KEV/EPSS enrich them, and CWE names before indexing. */
export const KIND_ORDER: Record<SourceKind, number> = {
  cwe: 0,
  nvd: 1,
  'cve5-jsonl': 2,
  'cve5-json': 2,
  kev: 3,
  epss: 4,
};

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * Tells the kind of a source from its first bytes (decompressed): null for anything else (licences, READMEs,
 * scanner reports, the KEV CSV twin of the KEV JSON, JSON schemas).
 */
export function detectKind(headBytes: Buffer): SourceKind | null {
  const head = headBytes.toString('utf8').replace(/^\uFEFF/, '');
  const trimmed = head.trimStart();
  if (trimmed.startsWith('{')) {
    if (/"dataType"\s*:\s*"CVE_RECORD"|"cveMetadata"\s*:|"containers"\s*:\s*\{\s*"(cna|adp)"/.test(head)) {
      // A pretty-printed record (cvelistV5 files) opens with a lone brace; a compact one, or JSON lines, does not.
      return (trimmed.split('\n', 1)[0] ?? '').trim() === '{' ? 'cve5-json' : 'cve5-jsonl';
    }
    if (/"\$schema"\s*:/.test(head)) return null;
    if (/"catalogVersion"\s*:/.test(head) || /"cveID"\s*:\s*"CVE-/.test(head)) return 'kev';
    if (/"format"\s*:\s*"NVD_CVE"/.test(head) || (/"vulnerabilities"\s*:/.test(head) && /"cve"\s*:/.test(head))) {
      return 'nvd';
    }
    return null;
  }
  const firstLine = (trimmed.split(/\r?\n/, 1)[0] ?? '').toLowerCase();
  if (firstLine.startsWith('#model_version') || /^"?cve"?,"?epss"?,"?percentile"?/.test(firstLine)) return 'epss';
  if (/^"?cwe_id"?,"?name"?/.test(firstLine) || /^"?cwe-id"?,"?name"?,/.test(firstLine)) return 'cwe';
  return null;
}

/** The first bytes of a local file, decompressed when it is gzip. */
async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    const head = buf.subarray(0, bytesRead);
    if (!isGzip(head)) return head;
    // A partial gzip member: decompress what is there, ignoring the missing end.
    try {
      return gunzipSync(head, { finishFlush: 2 /* Z_SYNC_FLUSH */ }).subarray(0, HEAD_BYTES);
    } catch {
      return Buffer.alloc(0);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Expands files, folders (recursively, sorted) and URLs into entries with their kinds, ordered for writing.
 * Unknown local files are returned apart as skipped; a missing path is an error naming it.
 */
export async function expandSources(
  sources: readonly string[],
): Promise<{ entries: SourceEntry[]; skipped: string[] }> {
  const entries: SourceEntry[] = [];
  const skipped: string[] = [];
  const addFile = async (file: string, size: number, explicit: boolean) => {
    const kind = detectKind(await readHead(file));
    if (kind) entries.push({ location: file, isUrl: false, kind, size });
    else if (explicit) throw new ImportError(`${file} : format non reconnu (NVD, CVE 5, KEV, EPSS ou CWE attendu).`);
    else skipped.push(file);
  };
  const walk = async (dir: string) => {
    const names = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const d of names) {
      if (d.name.startsWith('.')) continue;
      const full = path.join(dir, d.name);
      if (d.isDirectory()) await walk(full);
      else if (d.isFile()) await addFile(full, (await stat(full)).size, false);
    }
  };
  for (const raw of sources) {
    const source = raw.trim();
    if (source === '') continue;
    if (isUrl(source)) {
      entries.push({ location: source, isUrl: true, kind: undefined, size: undefined });
      continue;
    }
    const resolved = path.resolve(source);
    const info = await stat(resolved).catch(() => undefined);
    if (!info) throw new ImportError(`${source} : fichier ou dossier introuvable.`);
    if (info.isDirectory()) await walk(resolved);
    else await addFile(resolved, info.size, true);
  }
  // Stable sort: URLs (kind unknown until fetched) keep their place after the local reference files.
  const order = (e: SourceEntry) => (e.kind ? KIND_ORDER[e.kind] : 1.5);
  entries.sort((a, b) => order(a) - order(b));
  return { entries, skipped };
}

/** Counts the bytes flowing through, for progress. */
class ByteCounter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

export interface OpenedSource {
  /** Decompressed bytes. */
  stream: Readable;
  /** Raw bytes read so far (compressed size for gzip), for progress. */
  bytesRead: () => number;
  size: number | undefined;
  kind: SourceKind;
}

/** Opens a file or URL, gunzips it when needed and tells its kind from the first bytes. */
export async function openSource(
  entry: SourceEntry,
  opts: { signal?: AbortSignal | undefined; fetchTimeoutMs?: number | undefined },
): Promise<OpenedSource> {
  let raw: Readable;
  let size = entry.size;
  if (entry.isUrl) {
    const signals = [AbortSignal.timeout(opts.fetchTimeoutMs ?? 600_000)];
    if (opts.signal) signals.push(opts.signal);
    let res: Response;
    try {
      res = await fetch(entry.location, { signal: AbortSignal.any(signals), redirect: 'follow' });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new ImportError(`${entry.location} : téléchargement impossible (${(err as Error).message}).`);
    }
    if (!res.ok || !res.body) throw new ImportError(`${entry.location} : le serveur a répondu ${res.status}.`);
    const length = Number(res.headers.get('content-length'));
    if (Number.isFinite(length) && length > 0) size = length;
    raw = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  } else {
    raw = createReadStream(entry.location, { highWaterMark: 256 * 1024 });
  }
  const counter = new ByteCounter();
  raw.on('error', (err) => counter.destroy(err));
  raw.pipe(counter);

  // Read the head to decide about gzip and the kind, then put it back in front of the rest.
  const iterator = counter[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const headChunks: Buffer[] = [];
  let headLength = 0;
  while (headLength < 2) {
    const next = await iterator.next();
    if (next.done) break;
    headChunks.push(next.value);
    headLength += next.value.length;
  }
  const rest = async function* () {
    try {
      yield* headChunks;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      // A reader stopping early (the array is complete) closes the file or the connection.
      await iterator.return?.();
      raw.destroy();
    }
  };
  let stream = Readable.from(rest(), { objectMode: false });
  if (isGzip(Buffer.concat(headChunks))) {
    const gunzip = createGunzip();
    stream.on('error', (err) => gunzip.destroy(err));
    stream = stream.pipe(gunzip);
  }
  let kind = entry.kind;
  if (!kind) {
    const sniffIterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const sniffed: Buffer[] = [];
    let length = 0;
    while (length < HEAD_BYTES) {
      const next = await sniffIterator.next();
      if (next.done) break;
      sniffed.push(next.value);
      length += next.value.length;
    }
    const detected = detectKind(Buffer.concat(sniffed));
    if (!detected) {
      stream.destroy();
      throw new ImportError(`${entry.location} : format non reconnu (NVD, CVE 5, KEV, EPSS ou CWE attendu).`);
    }
    kind = detected;
    const again = async function* () {
      try {
        yield* sniffed;
        for (;;) {
          const next = await sniffIterator.next();
          if (next.done) return;
          yield next.value;
        }
      } finally {
        await sniffIterator.return?.();
      }
    };
    stream = Readable.from(again(), { objectMode: false });
  }
  return { stream, bytesRead: () => counter.bytes, size, kind };
}
