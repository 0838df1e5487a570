import { readFileSync, statSync, existsSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { projectPath } from '../config.ts';
import { precompressDir } from './precompress.ts';

const distDir = projectPath('dist');

/** Inputs of the PWA build: when any is newer than dist/index.html, npm start rebuilds. */
const BUILD_INPUTS = ['src', 'sw', 'public', 'sample-data', 'index.html', 'vite.config.ts', 'package.json'];

function newestMtime(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

export function buildIsStale(): boolean {
  const index = path.join(distDir, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return BUILD_INPUTS.some((input) => newestMtime(projectPath(input)) > built);
}

/**
 * Gzip bytes of the JavaScript a first visit downloads before rendering:
 * the entry script and every module it preloads, as listed in dist/index.html.
 */
export function initialJsGzipBytes(dir = distDir): { files: string[]; raw: number; gzip: number } {
  const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
  const srcs = new Set<string>();
  for (const m of html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)) srcs.add(m[1]!);
  for (const m of html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)) srcs.add(m[1]!);
  let raw = 0;
  let gzip = 0;
  for (const src of srcs) {
    const buf = readFileSync(path.join(dir, src.replace(/^\//, '')));
    raw += buf.length;
    gzip += gzipSync(buf, { level: 9 }).length;
  }
  return { files: [...srcs], raw, gzip };
}

export async function buildPwa(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: projectPath('vite.config.ts'), logLevel: 'warn' });
  // After Vite (and the service worker's precache manifest): the .br/.gz siblings are never precached.
  const packed = await precompressDir(distDir);
  const sum = (key: 'raw' | 'br' | 'gzip') => packed.reduce((total, p) => total + p[key], 0) / 1024;
  console.log(
    `Precompressed ${packed.length} file(s): ${sum('raw').toFixed(1)} KiB -> ${sum('br').toFixed(1)} KiB brotli, ${sum('gzip').toFixed(1)} KiB gzip`,
  );
  const size = initialJsGzipBytes();
  console.log(
    `Initial JavaScript: ${(size.gzip / 1024).toFixed(1)} KiB gzip (${(size.raw / 1024).toFixed(1)} KiB raw) in ${size.files.length} file(s)`,
  );
}

if (process.argv[1] === import.meta.filename) {
  await buildPwa();
}
