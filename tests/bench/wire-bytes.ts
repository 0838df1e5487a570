/**
 * Bytes over the wire of a first visit to /login (issue 18): the built app (dist/, or VIGIE_STATIC_DIR) served by
 * `server/src/server.ts` on a throwaway data dir, loaded by headless Chromium on a fresh profile; every response
 * the page received is summed as Chromium counted it (headers included), against the same files uncompressed.
 * Also prints what the service worker then precaches in the background. Needs a build (npm run build). Prints
 * figures; asserts nothing. Alone: `node --import tsx tests/bench/wire-bytes.ts`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchChromium } from '../e2e/chromium.ts';
import { serveVigie } from './server.ts';

const TARGET_BYTES = 110 * 1024;

interface Received {
  url: string;
  encoding: string;
  headerBytes: number;
  bodyBytes: number;
  wireBytes: number;
}

/** What the worker precaches (its injected manifest), in bytes as served to a brotli client and as stored. */
function precacheBytes(staticDir: string): { files: number; wire: number; raw: number } {
  const sw = readFileSync(path.join(staticDir, 'sw.js'), 'utf8');
  const urls = new Set([...sw.matchAll(/"?\burl"?:\s*"([^"]+)"/g)].map((m) => m[1]!));
  let wire = 0;
  let raw = 0;
  for (const url of urls) {
    const file = path.join(staticDir, url.replace(/^\//, ''));
    if (!existsSync(file)) continue;
    raw += statSync(file).size;
    wire += existsSync(`${file}.br`) ? statSync(`${file}.br`).size : statSync(file).size;
  }
  return { files: urls.size, wire, raw };
}

export async function benchWireBytes(): Promise<void> {
  const staticDir = path.resolve(process.env.VIGIE_STATIC_DIR ?? 'dist');
  if (!existsSync(path.join(staticDir, 'index.html'))) throw new Error(`${staticDir} has no build: npm run build`);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-wire-'));
  const { url: base, stop } = await serveVigie({ VIGIE_DATA_DIR: dataDir, VIGIE_STATIC_DIR: staticDir });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const byId = new Map<string, Received>();
    cdp.on('Network.responseReceived', (e) => {
      byId.set(e.requestId, {
        url: e.response.url.replace(base, ''),
        encoding: String(e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? '-'),
        headerBytes: e.response.encodedDataLength,
        bodyBytes: 0,
        wireBytes: 0,
      });
    });
    cdp.on('Network.dataReceived', (e) => {
      const r = byId.get(e.requestId);
      if (r) r.bodyBytes += e.dataLength;
    });
    cdp.on('Network.loadingFinished', (e) => {
      const r = byId.get(e.requestId);
      if (r) r.wireBytes = e.encodedDataLength;
    });
    await page.goto('/login', { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Se connecter' }).waitFor();
    await page.waitForLoadState('networkidle');

    const received = [...byId.values()].filter((r) => r.wireBytes > 0);
    const wire = received.reduce((sum, r) => sum + r.wireBytes, 0);
    const raw = received.reduce((sum, r) => sum + r.headerBytes + r.bodyBytes, 0);
    for (const r of received.sort((a, b) => b.wireBytes - a.wireBytes)) {
      console.log(
        `  ${String(r.wireBytes).padStart(7)} B  ${r.encoding.padEnd(4)} ${r.url}  (${r.bodyBytes} B decoded)`,
      );
    }
    console.log(
      `initial load of /login over the wire: ${wire} bytes compressed (${raw} bytes uncompressed), ${received.length} responses; target ≤ ${TARGET_BYTES} bytes: ${wire <= TARGET_BYTES ? 'met' : 'NOT met'}`,
    );
    const precache = precacheBytes(staticDir);
    console.log(
      `then the service worker precaches ${precache.files} files in the background: ${precache.wire} bytes brotli (${precache.raw} bytes uncompressed)`,
    );
  } finally {
    await browser.close();
    await stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await benchWireBytes();
