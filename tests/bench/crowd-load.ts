/**
 * A crowd on PostgreSQL (issue 19): 8, 50, 200 and 1,000 connections × BENCH_CROWD_SECONDS (30) of mixed reads (lists
 * kept and computed, filtered and ordered, summaries, projects, notifications) at 1,000,000 findings, through one
 * Vigie process on the server directly, then through two processes behind PgBouncer (transaction mode); and the
 * target run, 200 connections × BENCH_CROWD_TARGET_SECONDS (60) on one process. Prints req/s, p50/p99, answers by
 * status, client time-outs, server RSS, how soon full service is back after the 1,000-connection burst, and the
 * connection holds per route (GET /api/admin/status/connections/). Asserts nothing.
 * Targets on this 2-core machine: 200 connections with 0 5xx, 0 time-outs, p99 ≤ 250 ms and ≥ 90 % of the
 * 8-connection throughput; 1,000 connections with only 2xx and 503-with-Retry-After, full service within 1 s after.
 * Needs PostgreSQL (the bench database of summary-load.ts, made once) and, for the second part, Debian's pgbouncer.
 */
import autocannon from 'autocannon';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPgBouncer } from '../support/pgbouncer.ts';
import { serveVigie, signIn, type BenchServer } from './server.ts';
import { ADMIN_URL, DB, PASSWORD, admin, prepare } from './summary-load.ts';

const LEVELS = (process.env.BENCH_CROWD_LEVELS ?? '8,50,200,1000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_CROWD_SECONDS ?? 30);
const TARGET_SECONDS = Number(process.env.BENCH_CROWD_TARGET_SECONDS ?? 60);

/** What a SOC room and its analysts read: the issue's mix. */
export const CROWD_MIX = [
  '/api/vulnerabilities/vulnerabilities/',
  '/api/vulnerabilities/vulnerabilities/?severity=critical&is_resolved=false',
  '/api/vulnerabilities/vulnerabilities/?severity=critical,high&ordering=-cvss_score',
  '/api/vulnerabilities/summary/',
  '/api/dashboard/summary/',
  '/api/projects/',
  '/api/notifications/notifications/',
  // A later page (computed on every request until issue 19 kept every page).
  '/api/vulnerabilities/vulnerabilities/?severity=critical,high&ordering=-cvss_score&page=2',
];

export interface CrowdFigures {
  what: string;
  connections: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  byStatus: Record<string, number>;
  timeouts: number;
  errors: number;
  /** Every 503 carried Retry-After. */
  retryAfterOn503: boolean;
  rssMb: number[];
  recoveryMs?: number;
}

const token = (base: string, username: string) => signIn(base, username, PASSWORD);

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
};

/** `connections` split over the servers (one autocannon each, at once); p50 weighted by requests, p99 the worse. */
async function crowd(
  what: string,
  servers: BenchServer[],
  connections: number,
  seconds: number,
  headers: Record<string, string>,
): Promise<CrowdFigures> {
  let retryAfterOn503 = true;
  const results = await Promise.all(
    servers.map((server, i) => {
      const share = Math.floor(connections / servers.length) + (i < connections % servers.length ? 1 : 0);
      return autocannon({
        url: server.url,
        connections: share,
        duration: seconds,
        timeout: 10,
        headers,
        requests: CROWD_MIX.map((p) => ({
          method: 'GET' as const,
          path: p,
          onResponse: (status: number, _body: string, _context: object, responseHeaders?: IncomingHttpHeaders) => {
            if (status === 503 && !responseHeaders?.['retry-after']) retryAfterOn503 = false;
          },
        })),
      });
    }),
  );
  const byStatus: Record<string, number> = {};
  let total = 0;
  let weighted = 0;
  for (const r of results) {
    for (const [code, stats] of Object.entries(r.statusCodeStats ?? {})) {
      byStatus[code] = (byStatus[code] ?? 0) + (stats?.count ?? 0);
    }
    total += r.requests.total;
    weighted += r.latency.p50 * r.requests.total;
  }
  return {
    what,
    connections,
    seconds,
    perSecond: results.reduce((s, r) => s + r.requests.average, 0),
    p50: total ? weighted / total : 0,
    p99: Math.max(...results.map((r) => r.latency.p99)),
    byStatus,
    timeouts: results.reduce((s, r) => s + r.timeouts, 0),
    errors: results.reduce((s, r) => s + r.errors - r.timeouts, 0),
    retryAfterOn503,
    rssMb: servers.map((s) => rssMb(s.pid)),
  };
}

/** Milliseconds until every address of the mix answers 200 again, after a burst. */
async function recovery(base: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const statuses = await Promise.all(CROWD_MIX.map((p) => fetch(`${base}${p}`, { headers }).then((r) => r.status)));
    if (statuses.every((s) => s === 200)) return performance.now() - t0;
    if (performance.now() - t0 > 30_000) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function printHolds(base: string, adminHeaders: Record<string, string>): Promise<void> {
  const res = await fetch(`${base}/api/admin/status/connections/`, { headers: adminHeaders });
  if (!res.ok) return console.log(`connection holds: ${res.status}`);
  const { routes } = (await res.json()) as {
    routes: { route: string; count: number; p50_ms: number; p99_ms: number; max_ms: number }[];
  };
  console.log('connection holds per route (this process, whole run):');
  for (const r of routes.slice(0, 8)) {
    console.log(`  ${r.route}: ${r.count} holds, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, max ${r.max_ms} ms`);
  }
}

export function printCrowd(f: CrowdFigures): void {
  const statuses = Object.entries(f.byStatus)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  console.log(
    `${f.what}, ${f.connections} connections ${f.seconds} s: ${f.perSecond.toFixed(0)} req/s, p50 ${f.p50.toFixed(0)} ms, ` +
      `p99 ${f.p99} ms; ${statuses}; ${f.timeouts} time-outs, ${f.errors} errors` +
      `${f.byStatus['503'] ? `, Retry-After on every 503: ${f.retryAfterOn503 ? 'yes' : 'NO'}` : ''}; ` +
      `RSS ${f.rssMb.join(' + ')} MB${f.recoveryMs !== undefined ? `; full service again ${f.recoveryMs.toFixed(0)} ms after` : ''}`,
  );
}

async function levels(what: string, servers: BenchServer[], headers: Record<string, string>) {
  for (const connections of LEVELS) {
    const f = await crowd(what, servers, connections, SECONDS, headers);
    if (connections >= 1000) f.recoveryMs = await recovery(servers[0]!.url, headers);
    printCrowd(f);
  }
}

export async function benchCrowdLoad(): Promise<void> {
  const reachable = await admin(async () => true).catch(() => false);
  if (!reachable) return console.log('crowd load: no PostgreSQL at BENCH_PG_ADMIN_URL, skipped');
  const direct = new URL(ADMIN_URL);
  direct.pathname = `/${DB}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-crowd-'));
  const env = {
    DATABASE_URL: direct.toString(),
    VIGIE_DATA_DIR: dataDir,
    VIGIE_DEMO_PASSWORD: PASSWORD,
    LOG_LEVEL: 'error',
  };
  const started: BenchServer[] = [];
  try {
    await prepare(direct.toString(), env);
    // One process, straight to PostgreSQL.
    const one = await serveVigie(env);
    started.push(one);
    const headers = { authorization: `Bearer ${await token(one.url, 'analyste')}`, 'accept-encoding': 'br, gzip' };
    const adminHeaders = { authorization: `Bearer ${await token(one.url, 'admin')}` };
    await levels('one process', [one], headers);
    printCrowd(await crowd('one process (target run)', [one], 200, TARGET_SECONDS, headers));
    await printHolds(one.url, adminHeaders);
    await one.stop();
    started.length = 0;

    // Two processes behind PgBouncer: each with its pool, PgBouncer holding the server connections.
    const bouncer = await startPgBouncer({ poolSize: 10, maxClientConn: 400, queryWaitTimeoutS: 5 });
    if (!bouncer) return console.log('crowd load through PgBouncer: no pgbouncer binary, skipped');
    try {
      const pooled = { ...env, DATABASE_URL: bouncer.url(DB), DATABASE_SESSION_URL: direct.toString() };
      started.push(await serveVigie(pooled), await serveVigie(pooled));
      await levels('two processes behind PgBouncer', started, headers);
      await printHolds(started[0]!.url, adminHeaders);
    } finally {
      await Promise.all(started.map((s) => s.stop()));
      started.length = 0;
      await bouncer.stop();
    }
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await benchCrowdLoad();
