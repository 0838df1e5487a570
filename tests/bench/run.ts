/**
 * `npm run bench`: start-up and request figures, as medians over several runs (machines are noisy).
 * Needs a build (npm run build). Prints figures; asserts nothing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { initialJsGzipBytes } from '../../server/src/cli/build.ts';
import { benchServiceWorkerCache } from './sw-cache.ts';
import { benchCveImport } from './cve-import.ts';
import { benchVulnerabilities } from './vulnerabilities.ts';
import { benchPgliteLoad, printLoad } from './pglite-load.ts';
import { benchSummaryLoad, printCannon } from './summary-load.ts';
import { benchCrowdLoad } from './crowd-load.ts';
import { benchBulk } from './bulk.ts';
import { benchWireBytes } from './wire-bytes.ts';
import { benchLighthouse } from './lighthouse.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Spawns `npm start`'s entry on an existing data dir and measures until /api/health/ answers 200. */
async function coldStart(dataDir: string): Promise<{ ms: number; url: string; stop: () => Promise<void> }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/cli/start.ts'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      VIGIE_DATA_DIR: dataDir,
      VIGIE_DEMO_PASSWORD: 'bench-password',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
  while ((await fetch(`${url}/api/health/`).catch(() => undefined))?.status !== 200) {
    await new Promise((r) => setTimeout(r, 10));
  }
  const ms = performance.now() - t0;
  return {
    ms,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      }),
  };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-'));
try {
  const first = await coldStart(dataDir);
  console.log(`first start (initdb, migrations, seed): ${first.ms.toFixed(0)} ms`);
  await first.stop();

  const starts: number[] = [];
  let last: Awaited<ReturnType<typeof coldStart>> | undefined;
  for (let i = 0; i < RUNS; i++) {
    last = await coldStart(dataDir);
    starts.push(last.ms);
    if (i < RUNS - 1) await last.stop();
  }
  console.log(
    `cold start of npm start on an existing build and data dir: median ${median(starts).toFixed(0)} ms over ${RUNS} runs (min ${Math.min(...starts).toFixed(0)}, max ${Math.max(...starts).toFixed(0)})`,
  );

  const health: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await (await fetch(`${last!.url}/api/health/`)).arrayBuffer();
    health.push(performance.now() - t);
  }
  console.log(`GET /api/health/ on loopback: median ${median(health).toFixed(2)} ms over 200 requests`);
  await last!.stop();

  console.log(await benchServiceWorkerCache(60, median));

  const size = initialJsGzipBytes();
  console.log(
    `initial JavaScript: ${size.gzip} bytes gzip (${(size.gzip / 1024).toFixed(1)} KiB), ${size.raw} bytes raw`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

await benchCveImport();
await benchVulnerabilities();
printLoad(await benchPgliteLoad());
printCannon(await benchSummaryLoad());
await benchCrowdLoad();
await benchBulk();
await benchWireBytes();
await benchLighthouse();
