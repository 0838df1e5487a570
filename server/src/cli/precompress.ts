import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Text types worth compressing; images, fonts and source maps (only devtools load them) are left alone. */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.webmanifest', '.txt', '.xml']);
/** Below this, headers and a round trip dominate: @fastify/compress uses the same threshold for API answers. */
export const MIN_BYTES = 1024;

export interface Precompressed {
  /** Relative to the directory, with forward slashes. */
  file: string;
  raw: number;
  br: number;
  gzip: number;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/**
 * Writes `.br` (quality 11) and `.gz` (level 9) siblings of every compressible file of `dir` of at least
 * MIN_BYTES, for @fastify/static's `preCompressed` to serve by Accept-Encoding. Run after the service worker's
 * precache manifest is written, so the siblings are never precached. A variant that would not be smaller is not
 * written (the file is then served as is).
 */
export async function precompressDir(dir: string): Promise<Precompressed[]> {
  const jobs: Promise<Precompressed>[] = [];
  for await (const file of walk(dir)) {
    if (!COMPRESSIBLE.has(path.extname(file).toLowerCase())) continue;
    jobs.push(
      (async () => {
        const raw = await readFile(file);
        // A sibling left from an earlier content would be served in its place: none survives unless rewritten.
        const stale = async (variant: string) => rm(`${file}.${variant}`, { force: true });
        if (raw.length < MIN_BYTES) {
          await Promise.all([stale('br'), stale('gz')]);
          return { file, raw: raw.length, br: raw.length, gzip: raw.length };
        }
        // Both run on libuv's thread pool, so files compress in parallel.
        const [br, gz] = await Promise.all([
          brotli(raw, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 11,
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
              [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
            },
          }),
          gzipAsync(raw, { level: 9 }),
        ]);
        await (br.length < raw.length ? writeFile(`${file}.br`, br) : stale('br'));
        await (gz.length < raw.length ? writeFile(`${file}.gz`, gz) : stale('gz'));
        return {
          file,
          raw: raw.length,
          br: Math.min(br.length, raw.length),
          gzip: Math.min(gz.length, raw.length),
        };
      })(),
    );
  }
  const done = await Promise.all(jobs);
  return done
    .filter((d) => d.raw >= MIN_BYTES)
    .map((d) => ({ ...d, file: path.relative(dir, d.file).split(path.sep).join('/') }))
    .sort((a, b) => a.file.localeCompare(b.file));
}
