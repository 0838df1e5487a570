/**
 * Vulnerability management at scale (issue 6 targets): a throwaway PostgreSQL database with 1,000,000 findings in
 * one tenant, measured through the same code path as the API (withTenant → repository, row-level security as
 * vigie_app) and, for the export, through a real HTTP server in a child process (its RSS measured alone, for
 * ~100,000 and 1,000,000 rows); then PGlite in memory with 100,000 findings.
 * Prints figures; asserts nothing. PostgreSQL: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * sizes: BENCH_VULN_COUNT (1,000,000), BENCH_PGLITE_COUNT (100,000), BENCH_VULN_RUNS (20), BENCH_EXPORT_RUNS (5,
 * repeats of the 100k-row export).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { buildApp } from '../../server/src/build-app.ts';
import { generateVulnerabilities } from '../../server/src/cli/generate-vulnerabilities.ts';
import { openDatabase, type Database } from '../../server/src/db/client.ts';
import { seedDemoData } from '../../server/src/db/seed.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { SecretBox } from '../../server/src/lib/secret-box.ts';
import { TokenService } from '../../server/src/lib/tokens.ts';
import { presentVulnerability } from '../../server/src/presenters/vulnerability.ts';
import { DashboardRepository } from '../../server/src/repositories/dashboard.ts';
import { VulnerabilitiesRepository, type VulnerabilityFilters } from '../../server/src/repositories/vulnerabilities.ts';
import { signIn } from './server.ts';

const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PG_COUNT = Number(process.env.BENCH_VULN_COUNT ?? 1_000_000);
const PGLITE_COUNT = Number(process.env.BENCH_PGLITE_COUNT ?? 100_000);
const RUNS = Number(process.env.BENCH_VULN_RUNS ?? 20);
const EXPORT_RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 5);
const PASSWORD = 'bench-password-0123';
// A broad word (one generated finding in twelve names it) and one CVE id of the demo set.
const FILTERED: VulnerabilityFilters = { severities: ['critical'], isResolved: false, text: 'openssl' };
const SPECIFIC = 'CVE-2024-3273';

interface Figure {
  what: string;
  median: number;
  p95: number;
  runs: number;
  target: string;
  note?: string;
}

function stats(values: number[]): { median: number; p95: number } {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)]! };
}

async function measure(runs: number, fn: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  await fn(); // warm-up: plans and caches
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return stats(times);
}

async function tenantOf(database: Database, domain: string): Promise<TenantId> {
  const { rows } = await database.executeSql('select id from tenants where domain = $1', [domain]);
  return rows[0]!.id as TenantId;
}

/** The API's three read paths, as a request runs them (withTenant, repository, presenter). */
async function measureReads(
  database: Database,
  tenantId: TenantId,
  runs: number,
  label: string,
  summaryTarget: string,
): Promise<Figure[]> {
  const dashboard = new DashboardRepository();
  const repo = new VulnerabilitiesRepository();
  const scoped = <T>(fn: Parameters<typeof withTenant<T>>[2]) => withTenant(database.db, tenantId, fn);
  const summary = await measure(runs, () => scoped((tx) => dashboard.vulnerabilitySummary(tx, { days: 30 })));
  const first = await measure(runs, () =>
    scoped(async (tx) => {
      const page = await repo.page(tx, {
        filters: {},
        ordering: { field: 'created_at', desc: true },
        limit: 25,
        offset: 0,
      });
      return page.rows.map(presentVulnerability);
    }),
  );
  const filteredPage = async (label2: string, filters: VulnerabilityFilters) => {
    let count = 0;
    const figure = await measure(runs, () =>
      scoped(async (tx) => {
        const page = await repo.page(tx, {
          filters,
          ordering: { field: 'created_at', desc: true },
          limit: 25,
          offset: 0,
        });
        count = page.count;
        return page.rows.map(presentVulnerability);
      }),
    );
    return {
      what: `${label}: filtered page (${label2})`,
      ...figure,
      runs,
      target: '≤ 50 ms',
      note: `count ${count.toLocaleString('en')}`,
    };
  };
  return [
    { what: `${label}: summary (days=30)`, ...summary, runs, target: summaryTarget },
    { what: `${label}: first list page (25, -created_at)`, ...first, runs, target: '≤ 20 ms' },
    await filteredPage('severity=critical&is_resolved=false', { severities: ['critical'], isResolved: false }),
    await filteredPage('severity=critical&is_resolved=false&text=openssl', FILTERED),
    await filteredPage(`severity=critical,high&text=${SPECIFIC}`, { severities: ['critical', 'high'], text: SPECIFIC }),
    // The worst case: a common word alone (a quarter of the rows), and a word nothing holds.
    await filteredPage('text=openssl', { text: 'openssl' }),
    await filteredPage('text=introuvable', { text: 'introuvable' }),
  ];
}

/**
 * The export's server, in a child process of its own (BENCH_EXPORT_DB set; fork IPC): builds the app on the bench
 * database, listens, sends its URL, runs a collection on request ('gc' → 'gc-done') and stops on 'close'. Its
 * resident memory is then the server's alone, not the HTTP client's that reads the stream.
 */
async function serveExport(databaseUrl: string): Promise<void> {
  const staticDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-static-'));
  const filesDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-files-'));
  const database = await openDatabase({ databaseUrl });
  const app = await buildApp(
    {
      database,
      tokens: new TokenService('bench-secret-that-is-long-enough-for-hs256-0123456789'),
      secretBox: new SecretBox('bench-encryption-key'),
      staticDir,
      filesDir,
      runJobs: false,
    },
    { logger: false },
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.on('message', (message) => {
    if (message === 'gc') {
      global.gc?.();
      process.send?.('gc-done');
    } else if (message === 'close') {
      void (async () => {
        await app.close();
        await database.close();
        rmSync(staticDir, { recursive: true, force: true });
        rmSync(filesDir, { recursive: true, force: true });
        process.disconnect?.();
      })();
    }
  });
  process.send?.({ url });
}

/** A process's current and peak resident set (kB → bytes), from /proc (Linux). */
function procMemory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * GET /api/vulnerabilities/export/ over real HTTP against a fresh server process, reading the stream here. The
 * server's RSS is read from /proc every 10 ms (outside its event loop) and its kernel peak (VmHWM, reset once the
 * server is warm) after the stream ends; the larger of the two is the peak.
 */
async function measureExport(
  databaseUrl: string,
  query: string,
  rows: number,
  target: string,
  runsOf: number,
): Promise<Figure> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    env: { ...process.env, BENCH_EXPORT_DB: databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (m) => resolve(m as T));
      child.once('exit', (code) => reject(new Error(`export server exited (${code})`)));
    });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const { url } = await next<{ url: string }>();
    const access = await signIn(url, 'analyste', PASSWORD);
    const exportOf = async (q: string, onChunk?: () => void) => {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/vulnerabilities/export/?format=csv&${q}`, {
        headers: { authorization: `Bearer ${access}` },
      });
      let lines = 0;
      let firstByte = 0;
      const decoder = new TextDecoder();
      const reader = res.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        if (!firstByte) firstByte = performance.now() - t0;
        onChunk?.();
        const text = decoder.decode(chunk.value, { stream: true });
        for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
      }
      return { lines, ms: performance.now() - t0, firstByte };
    };
    // Warm the route (code, plans, pools) on an export of no row, then collect and take the baseline.
    await exportOf('cve=CVE-1999-0000');
    child.send('gc');
    await next<string>();
    const pid = child.pid!;
    const base = procMemory(pid).rss;
    let hwmReset = true;
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      hwmReset = false;
    }
    let peak = base;
    const sample = () => (peak = Math.max(peak, procMemory(pid).rss));
    const sampler = setInterval(sample, 10);
    // The same export several times in a row: the median is the figure, the peak is over every run.
    const runs: { lines: number; ms: number; firstByte: number }[] = [];
    for (let i = 0; i < runsOf; i++) runs.push(await exportOf(query, sample));
    clearInterval(sampler);
    const after = procMemory(pid);
    if (hwmReset) peak = Math.max(peak, after.hwm);
    const mb = (b: number) => (b / 1048576).toFixed(0);
    const { median, p95 } = stats(runs.map((r) => r.ms));
    const lines = runs[0]!.lines;
    if (runs.some((r) => r.lines !== lines)) throw new Error('export runs returned different line counts');
    return {
      what: `PG: export CSV of ${rows.toLocaleString('en')} rows (${query || 'no filter'}), HTTP`,
      median,
      p95,
      runs: runsOf,
      target,
      note:
        // Lines exceed rows by the header and the newlines some real CVE descriptions hold.
        `${lines.toLocaleString('en')} lines, first byte ${stats(runs.map((r) => r.firstByte)).median.toFixed(0)} ms, ` +
        `runs ${runs.map((r) => (r.ms / 1000).toFixed(1)).join('/')} s, server RSS ${mb(base)} MB → peak ${mb(peak)} MB ` +
        `(+${mb(peak - base)} MB${hwmReset ? '' : ', sampled only'})`,
    };
  } finally {
    if (child.connected) child.send('close');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill();
  }
}

function table(figures: Figure[]): string {
  const w = Math.max(...figures.map((f) => f.what.length));
  const head = `${'measure'.padEnd(w)}  ${'median'.padStart(9)}  ${'p95'.padStart(9)}  runs  target`;
  const lines = figures.map(
    (f) =>
      `${f.what.padEnd(w)}  ${`${f.median.toFixed(1)} ms`.padStart(9)}  ${`${f.p95.toFixed(1)} ms`.padStart(9)}  ${String(f.runs).padStart(4)}  ${f.target}${f.note ? `  (${f.note})` : ''}`,
  );
  return [head, '-'.repeat(head.length), ...lines].join('\n');
}

export async function benchVulnerabilities(): Promise<void> {
  const figures: Figure[] = [];
  const name = `vigie_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString() });
  try {
    await database.migrate();
    await seedDemoData(database.db, { password: PASSWORD });
    const generated = await generateVulnerabilities(database.db, {
      tenant: 'acme-securite.fr',
      count: PG_COUNT,
      assets: 2000,
    });
    console.log(
      `vulnerabilities bench: generated ${PG_COUNT.toLocaleString('en')} findings on PostgreSQL in ` +
        `${(generated.ms / 1000).toFixed(1)} s (${generated.assets} assets, ${generated.cvePool} real CVEs)`,
    );
    const tenantId = await tenantOf(database, 'acme-securite.fr');
    const size = PG_COUNT >= 1_000_000 ? `${PG_COUNT / 1_000_000}M` : `${PG_COUNT / 1000}k`;
    figures.push(...(await measureReads(database, tenantId, RUNS, `PG ${size}`, '≤ 100 ms')));
    // About a tenth of the generated rows are critical: ~100,000 rows for 1M; then every row. Each export has a
    // server process of its own, so both peaks start from the same warm baseline.
    const counted = await database.executeSql(
      `select count(*) filter (where severity = 'critical')::int as critical, count(*)::int as every
         from vulnerabilities where tenant_id = $1`,
      [tenantId],
    );
    const { critical, every } = counted.rows[0] as { critical: number; every: number };
    figures.push(await measureExport(url.toString(), 'severity=critical', critical, '≤ 5 s, flat memory', EXPORT_RUNS));
    figures.push(await measureExport(url.toString(), '', every, 'flat memory (same peak as above)', 1));
  } finally {
    await database.close();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  }

  const lite = await openDatabase({});
  try {
    await lite.migrate();
    await seedDemoData(lite.db, { password: PASSWORD });
    const generated = await generateVulnerabilities(lite.db, {
      tenant: 'acme-securite.fr',
      count: PGLITE_COUNT,
      assets: 2000,
    });
    console.log(
      `vulnerabilities bench: generated ${PGLITE_COUNT.toLocaleString('en')} findings on PGlite in ` +
        `${(generated.ms / 1000).toFixed(1)} s`,
    );
    const tenantId = await tenantOf(lite, 'acme-securite.fr');
    figures.push(...(await measureReads(lite, tenantId, RUNS, `PGlite ${PGLITE_COUNT / 1000}k`, '≤ 300 ms')));
  } finally {
    await lite.close();
  }
  console.log(table(figures));
}

// Standalone: node --import tsx tests/bench/vulnerabilities.ts (BENCH_EXPORT_DB: the export's server process).
if (process.env.BENCH_EXPORT_DB && process.send) await serveExport(process.env.BENCH_EXPORT_DB);
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchVulnerabilities();
