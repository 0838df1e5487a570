import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { MESSAGES, ReportError } from './types.ts';

/** A stored report's bytes: the file as it is, or its gzip content, decompressed as it is read. */
export interface ReportSource {
  path: string;
  gzip: boolean;
  /** The most bytes the (decompressed) content may have. */
  limit: number;
}

/** gzip's magic bytes (RFC 1952): a compressed report is told by its content, never by its `.gz` name. */
export async function isGzipFile(filePath: string): Promise<boolean> {
  const handle = await open(filePath, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

const tooLargeUnzipped = (limit: number) =>
  new ReportError(413, 'report_too_large', MESSAGES.tooLargeUnzipped(Math.round(limit / (1024 * 1024))));

/**
 * The content's bytes, chunk by chunk. A gzip one is decompressed as a stream and refused (413) as soon as it
 * passes the limit: a small « bomb » expanding to gigabytes never gets past the first 50 MB. A broken archive is a
 * French 400.
 */
export async function* sourceBytes(source: ReportSource): AsyncGenerator<Buffer> {
  const file = createReadStream(source.path, { highWaterMark: 256 * 1024 });
  if (!source.gzip) {
    try {
      for await (const chunk of file) yield chunk as Buffer;
    } finally {
      file.destroy();
    }
    return;
  }
  const gunzip = createGunzip();
  file.on('error', (err) => gunzip.destroy(err));
  file.pipe(gunzip);
  let total = 0;
  try {
    for await (const chunk of gunzip) {
      total += (chunk as Buffer).length;
      if (total > source.limit) throw tooLargeUnzipped(source.limit);
      yield chunk as Buffer;
    }
  } catch (err) {
    if (err instanceof ReportError || !isZlibError(err)) throw err;
    throw new ReportError(400, 'report_malformed', MESSAGES.badGzip);
  } finally {
    file.destroy();
    gunzip.destroy();
  }
}

const isZlibError = (err: unknown) =>
  typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('Z_');

/** The content as text, chunk by chunk; UTF-8 sequences cut between chunks are joined, a leading BOM dropped. */
export async function* sourceText(source: ReportSource): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of sourceBytes(source)) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** The first `bytes` of the content (decompressed), for format detection. */
export async function sourceHead(source: ReportSource, bytes = 64 * 1024): Promise<string> {
  const parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of sourceBytes(source)) {
    parts.push(chunk);
    length += chunk.length;
    if (length >= bytes) break;
  }
  return Buffer.concat(parts).subarray(0, bytes).toString('utf8');
}

/** The whole content as text (JSON reports are parsed in one piece), within the limit. */
export async function sourceAll(source: ReportSource, signal?: AbortSignal): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of sourceBytes(source)) {
    if (signal?.aborted) throw signal.reason;
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
