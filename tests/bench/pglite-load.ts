/**
 * The embedded default under load (issue 17): a server process on PGlite holding 100,000 findings, as `npm start`
 * runs it, and the bench as its clients over HTTP.
 * - 20 clients loop over every documented list filter × ordering combination of /api/vulnerabilities/vulnerabilities/
 *   (target: no time-out, p99 ≤ 1 s);
 * - one tenant imports a 40,000-finding Trivy report while another tenant's clients list their projects and findings
 *   (target: p99 ≤ 300 ms for the other tenant).
 * Each page is first requested alone (the single-request figures, and a warm server). Prints figures; asserts nothing. Sizes: BENCH_LOAD_COUNT (100,000), BENCH_LOAD_SECONDS (20 per phase),
 * BENCH_IMPORT_FINDINGS (40,000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTsx, serveVigie, signIn, type BenchServer } from './server.ts';

const COUNT = Number(process.env.BENCH_LOAD_COUNT ?? 100_000);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const IMPORT_FINDINGS = Number(process.env.BENCH_IMPORT_FINDINGS ?? 40_000);
const CLIENTS = 20;
const TIMEOUT_MS = 10_000;
const PASSWORD = 'bench-password-0123';
const LIST = '/api/vulnerabilities/vulnerabilities/';

export interface LoadFigures {
  what: string;
  requests: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  timeouts: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!;
}

/** `clients` loops requesting `urls` in turn until `stop()` says so; every latency and failure is kept. */
async function load(
  what: string,
  base: string,
  headers: Record<string, string>,
  urls: string[],
  clients: number,
  until: () => boolean,
): Promise<LoadFigures> {
  const times: number[] = [];
  let timeouts = 0;
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!until()) {
        const url = urls[next++ % urls.length]!;
        const started = performance.now();
        try {
          const res = await fetch(`${base}${url}`, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
          await res.arrayBuffer();
          if (!res.ok) errors++;
          times.push(performance.now() - started);
        } catch (err) {
          if ((err as Error).name === 'TimeoutError') timeouts++;
          else errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const sorted = times.sort((a, b) => a - b);
  return {
    what,
    requests: sorted.length,
    perSecond: sorted.length / elapsed,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
    timeouts,
    errors,
  };
}

/** Each of `urls` requested alone three times: the median of each, and the slowest pages. */
async function alone(base: string, headers: Record<string, string>, urls: string[]): Promise<LoadFigures> {
  const medians: { url: string; ms: number }[] = [];
  for (const url of urls) {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await fetch(`${base}${url}`, { headers });
      await res.arrayBuffer();
      times.push(performance.now() - started);
    }
    medians.push({ url, ms: times.sort((a, b) => a - b)[1]! });
  }
  const sorted = medians.map((m) => m.ms).sort((a, b) => a - b);
  const slowest = [...medians].sort((a, b) => b.ms - a.ms).slice(0, 3);
  return {
    what: `each page alone (median of 3; slowest: ${slowest.map((m) => `${m.url.replace(LIST, '')} ${m.ms.toFixed(0)} ms`).join(', ')})`,
    requests: urls.length * 3,
    perSecond: 1000 / (sorted.reduce((a, b) => a + b, 0) / sorted.length),
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
    timeouts: 0,
    errors: 0,
  };
}

/** Every documented filter × ordering of the findings list (docs/api-vulnerabilities.md), both directions. */
function filterOrderingUrls(): string[] {
  const filters = [
    '',
    'severity=critical,high',
    'severity=critical&is_resolved=false',
    'is_resolved=true',
    'kev=true',
    'asset=1',
    'cve=CVE-2024-3273',
    'text=openssl',
    'scan=1',
  ];
  const orderings = ['created_at', 'updated_at', 'severity', 'cvss_score', 'cve_id', 'title', 'last_seen'];
  return filters.flatMap((f) =>
    orderings.flatMap((o) => [`?${f}&ordering=${o}`, `?${f}&ordering=-${o}`].map((q) => `${LIST}${q}`)),
  );
}

/** A Trivy JSON report of `n` distinct findings on one image. */
function trivyReport(n: number): Buffer {
  const severities = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];
  const vulnerabilities = Array.from({ length: n }, (_, i) => ({
    VulnerabilityID: `CVE-2099-${String(10000 + i)}`,
    PkgName: `paquet-${i % 700}`,
    InstalledVersion: `1.${i % 50}.0`,
    FixedVersion: `1.${i % 50}.1`,
    Title: `Faille de test ${i}`,
    Description: `Description de la faille de test numéro ${i}.`,
    Severity: severities[i % 4],
  }));
  return Buffer.from(
    JSON.stringify({
      SchemaVersion: 2,
      ArtifactName: 'registry.example/bench:latest',
      ArtifactType: 'container_image',
      Results: [
        {
          Target: 'registry.example/bench:latest (debian 12)',
          Class: 'os-pkgs',
          Type: 'debian',
          Vulnerabilities: vulnerabilities,
        },
      ],
    }),
  );
}

export async function benchPgliteLoad(): Promise<LoadFigures[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-load-'));
  const env = { VIGIE_DATA_DIR: dataDir, VIGIE_DEMO_PASSWORD: PASSWORD, LOG_LEVEL: 'warn', DATABASE_URL: '' };
  const figures: LoadFigures[] = [];
  let server: BenchServer | undefined;
  try {
    await runTsx(['server/src/cli/seed.ts'], env);
    await runTsx(
      ['server/src/cli/generate-vulnerabilities.ts', '--count', String(COUNT), '--tenant', 'acme-securite.fr'],
      env,
    );
    server = await serveVigie(env);
    const acme = { authorization: `Bearer ${await signIn(server.url, 'analyste', PASSWORD)}` };

    const urls = filterOrderingUrls();
    // Each page alone, three times: what one request costs, and a warm server for the load (a freshly started one
    // compiles its code and reads its indexes from disk first).
    figures.push(await alone(server.url, acme, urls));
    let deadline = performance.now() + SECONDS * 1000;
    figures.push(
      await load(
        `${CLIENTS} clients, ${urls.length} filter × ordering pages, ${COUNT.toLocaleString('en')} findings`,
        server.url,
        acme,
        urls,
        CLIENTS,
        () => performance.now() > deadline,
      ),
    );

    // Another tenant's users while Acme imports a large report.
    const horizon = { authorization: `Bearer ${await signIn(server.url, 'lecteur', PASSWORD)}` };
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(trivyReport(IMPORT_FINDINGS))]), 'bench-trivy.json');
    form.set('format', 'trivy');
    const imported = await fetch(`${server.url}/api/vulnerabilities/scans/import/`, {
      method: 'POST',
      headers: acme,
      body: form,
    });
    if (imported.status !== 201) throw new Error(`import: ${imported.status} ${await imported.text()}`);
    const scan = (await imported.json()) as { id: number };
    let importDone = false;
    const t0 = performance.now();
    const watch = (async () => {
      for (;;) {
        const res = await fetch(`${server.url}/api/vulnerabilities/scans/${scan.id}/`, { headers: acme });
        const status = ((await res.json()) as { status: string }).status;
        if (status === 'COMPLETED' || status === 'FAILED') return status;
        await new Promise((r) => setTimeout(r, 250));
      }
    })().finally(() => (importDone = true));
    deadline = performance.now() + 10 * 60_000;
    const during = await load(
      `another tenant (5 clients: projects, findings, summary) during a ${IMPORT_FINDINGS.toLocaleString('en')}-finding import`,
      server.url,
      horizon,
      ['/api/projects/', `${LIST}?ordering=-cvss_score`, '/api/vulnerabilities/summary/'],
      5,
      () => importDone || performance.now() > deadline,
    );
    const status = await watch;
    figures.push({
      ...during,
      what: `${during.what} (import ${status} in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    });
    return figures;
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printLoad(figures: LoadFigures[]): void {
  for (const f of figures) {
    console.log(
      `${f.what}: ${f.requests} requests, ${f.perSecond.toFixed(1)} req/s, p50 ${f.p50.toFixed(0)} ms, p95 ${f.p95.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms, max ${f.max.toFixed(0)} ms, ${f.timeouts} time-outs, ${f.errors} errors`,
    );
  }
}

if (process.argv[1] === import.meta.filename) printLoad(await benchPgliteLoad());
