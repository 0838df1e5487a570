/**
 * The first visit as Lighthouse sees it (issue 18): the sign-in page of a signed-out visitor and the signed-in
 * vulnerability dashboard, with the mobile preset (simulated slow 4G, 4× CPU) and the desktop preset, categories
 * performance and accessibility. Needs a build (npm run build); starts `npm start`'s server on a fresh data dir and
 * Debian's Chromium. Prints medians over BENCH_LIGHTHOUSE_RUNS runs (3); asserts nothing.
 * Targets: /login mobile performance ≥ 0.97 and LCP ≤ 2.0 s, the dashboard ≥ 0.90, accessibility 1.0, no console error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, type LaunchedChrome } from 'chrome-launcher';
import lighthouse, { desktopConfig, type Config, type Result } from 'lighthouse';
import { chromium } from 'playwright-core';
import { serveVigie, type BenchServer } from './server.ts';

const RUNS = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
/** Where to write each run's report (JSON) for a closer look; none by default. */
const REPORTS_DIR = process.env.BENCH_LIGHTHOUSE_REPORTS;
/** Only the scenarios whose name and preset contain this text (e.g. "login mobile"); all by default. */
const ONLY = process.env.BENCH_LIGHTHOUSE_ONLY;
/** A data dir to keep between runs (its first start imports the CVE catalogue, minutes on PGlite); fresh by default. */
const KEPT_DATA_DIR = process.env.BENCH_LIGHTHOUSE_DATA_DIR;
const PASSWORD = 'bench-lighthouse-password-0123';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

interface Figures {
  performance: number;
  accessibility: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  consoleErrors: string[];
  /** Accessibility audits that failed, by id. */
  failedA11y: string[];
}

interface Scenario {
  name: string;
  path: string;
  preset: 'mobile' | 'desktop';
  signedIn: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: '/login', path: '/login', preset: 'mobile', signedIn: false },
  { name: '/login', path: '/login', preset: 'desktop', signedIn: false },
  { name: '/vulnerabilities (signed in)', path: '/vulnerabilities', preset: 'mobile', signedIn: true },
  { name: '/vulnerabilities (signed in)', path: '/vulnerabilities', preset: 'desktop', signedIn: true },
];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Waits until the database answers quickly five times in a row: on first start the server imports the CVE catalogue
 * in the background (PGlite has one connection), and Lighthouse's simulation carries over observed server times.
 */
async function quiet(url: string): Promise<void> {
  const deadline = Date.now() + 600_000;
  let fast = 0;
  while (fast < 5 && Date.now() < deadline) {
    const t0 = performance.now();
    await (await fetch(`${url}/api/health/`)).arrayBuffer();
    fast = performance.now() - t0 < 50 ? fast + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Signs in through the form in the browser Lighthouse drives, so its next run finds the session. */
async function signIn(port: number, baseURL: string): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const context = browser.contexts()[0]!;
    const page = await context.newPage();
    await page.goto(`${baseURL}/login`);
    await page.getByLabel("Nom d'utilisateur").fill('manager');
    await page.getByLabel('Mot de passe').fill(PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL('**/dashboard');
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // Once, so the dashboard's chunks and answers are what a returning user has.
    await page.goto(`${baseURL}/vulnerabilities`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.close();
  } finally {
    await browser.close();
  }
}

async function audit(port: number, url: string, scenario: Scenario): Promise<Figures> {
  const config: Config | undefined = scenario.preset === 'desktop' ? desktopConfig : undefined;
  const result = await lighthouse(
    url,
    {
      port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      // Best practices' console audit, alone: errors logged during the load (a 401 shows up here).
      onlyAudits: ['errors-in-console'],
      // Signed in: keep the session (IndexedDB) and the service worker the sign-in left.
      disableStorageReset: scenario.signedIn,
    },
    config,
  );
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  if (REPORTS_DIR) {
    mkdirSync(REPORTS_DIR, { recursive: true });
    const name = `${scenario.path.replace(/\W+/g, '') || 'root'}-${scenario.preset}-${Date.now()}.json`;
    writeFileSync(path.join(REPORTS_DIR, name), result.report as string);
  }
  const lhr: Result = result.lhr;
  const numeric = (id: string) => lhr.audits[id]?.numericValue ?? NaN;
  const consoleItems = (
    lhr.audits['errors-in-console']?.details as { items?: { description?: string; url?: string }[] }
  )?.items;
  return {
    performance: lhr.categories.performance?.score ?? NaN,
    accessibility: lhr.categories.accessibility?.score ?? NaN,
    fcp: numeric('first-contentful-paint'),
    lcp: numeric('largest-contentful-paint'),
    tbt: numeric('total-blocking-time'),
    cls: numeric('cumulative-layout-shift'),
    consoleErrors: (consoleItems ?? []).map((i) => `${i.description ?? ''} ${i.url ?? ''}`.trim()),
    failedA11y: (lhr.categories.accessibility?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score === 0)
      .map((ref) => ref.id),
  };
}

function print(scenario: Scenario, runs: Figures[]): void {
  const m = (pick: (f: Figures) => number) => median(runs.map(pick));
  const errors = [...new Set(runs.flatMap((r) => r.consoleErrors))];
  const failed = [...new Set(runs.flatMap((r) => r.failedA11y))];
  console.log(
    `${scenario.name.padEnd(30)} ${scenario.preset.padEnd(7)} performance ${m((f) => f.performance).toFixed(2)}` +
      `  accessibility ${m((f) => f.accessibility).toFixed(2)}  FCP ${(m((f) => f.fcp) / 1000).toFixed(2)} s` +
      `  LCP ${(m((f) => f.lcp) / 1000).toFixed(2)} s  TBT ${m((f) => f.tbt).toFixed(0)} ms  CLS ${m((f) => f.cls).toFixed(3)}` +
      `  (median of ${runs.length}; performance ${runs.map((r) => r.performance.toFixed(2)).join(', ')})`,
  );
  console.log(`  console errors: ${errors.length === 0 ? 'none' : errors.join(' | ')}`);
  if (failed.length > 0) console.log(`  failed accessibility audits: ${failed.join(', ')}`);
}

export async function benchLighthouse(): Promise<void> {
  const dataDir = KEPT_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'vigie-bench-lighthouse-'));
  let server: BenchServer | undefined;
  let chrome: LaunchedChrome | undefined;
  try {
    // A fresh data dir: the demo seed runs on first start.
    server = await serveVigie({ VIGIE_DATA_DIR: dataDir, VIGIE_DEMO_PASSWORD: PASSWORD });
    await quiet(server.url);
    chrome = await launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS, logLevel: 'silent' });
    const scenarios = SCENARIOS.filter((s) => !ONLY || `${s.name} ${s.preset}`.includes(ONLY));
    const results = new Map<Scenario, Figures[]>(scenarios.map((s) => [s, []]));
    for (let run = 0; run < RUNS; run++) {
      let signedIn = false;
      for (const scenario of scenarios) {
        if (scenario.signedIn && !signedIn) {
          await signIn(chrome.port, server.url);
          signedIn = true;
        }
        results.get(scenario)!.push(await audit(chrome.port, `${server.url}${scenario.path}`, scenario));
      }
    }
    console.log(
      `Lighthouse ${RUNS} run(s) on ${server.url} (as npm start serves it: precompressed files, compressed answers):`,
    );
    for (const [scenario, runs] of results) print(scenario, runs);
  } finally {
    chrome?.kill();
    await server?.stop();
    if (!KEPT_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  await benchLighthouse();
}
