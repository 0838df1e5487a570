/**
 * Dashboards under a crowd of wall screens (issue 18): a server on PostgreSQL holding 1,000,000 findings of one
 * tenant, and autocannon's 8 connections for 10 s on the vulnerability summary, the home summary, the first list
 * page and the second (targets on this 2-core machine: summary ≥ 300 req/s with p50 ≤ 20 ms, list ≥ 800 req/s).
 * Needs PostgreSQL (BENCH_PG_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres); the database
 * vigie_bench_summary is made once and kept, so later runs skip the 1M rows (BENCH_SUMMARY_FRESH=1 makes it anew).
 * Prints figures; asserts nothing. Sizes: BENCH_SUMMARY_COUNT (1,000,000), BENCH_SUMMARY_SECONDS (10).
 */
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { runTsx, serveVigie, signIn, type BenchServer } from './server.ts';

export const ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const DB = 'vigie_bench_summary';
const COUNT = Number(process.env.BENCH_SUMMARY_COUNT ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SUMMARY_SECONDS ?? 10);
export const PASSWORD = 'bench-password-0123';

export interface CannonFigures {
  what: string;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

export async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(ADMIN_URL);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The bench database with COUNT findings in Acme, made when missing (or asked anew). */
export async function prepare(url: string, env: Record<string, string>): Promise<void> {
  const exists = await admin(
    async (c) => (await c.query('select 1 from pg_database where datname = $1', [DB])).rowCount,
  );
  if (exists && process.env.BENCH_SUMMARY_FRESH !== '1') {
    const client = new pg.Client(url);
    await client.connect();
    const n = await client
      .query<{ n: string }>('select coalesce(sum(n), 0)::text as n from vulnerability_totals')
      .then((r) => Number(r.rows[0]?.n ?? 0))
      .catch(() => 0)
      .finally(() => client.end());
    if (n >= COUNT) return;
  }
  await admin(async (c) => {
    await c.query(`drop database if exists ${DB} with (force)`);
    await c.query(`create database ${DB}`);
  });
  const t0 = performance.now();
  await runTsx(['server/src/cli/seed.ts'], env);
  await runTsx(
    ['server/src/cli/generate-vulnerabilities.ts', '--count', String(COUNT), '--tenant', 'acme-securite.fr'],
    env,
  );
  console.log(
    `(bench database: ${COUNT.toLocaleString('en')} findings in ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
}

async function cannon(what: string, url: string, headers: Record<string, string>): Promise<CannonFigures> {
  const result = await autocannon({ url, connections: 8, duration: SECONDS, headers });
  return {
    what,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

export async function benchSummaryLoad(): Promise<CannonFigures[] | undefined> {
  const reachable = await admin(async () => true).catch(() => false);
  if (!reachable) {
    console.log('summary load: no PostgreSQL at BENCH_PG_ADMIN_URL, skipped');
    return undefined;
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DB}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-summary-'));
  const env = {
    DATABASE_URL: url.toString(),
    VIGIE_DATA_DIR: dataDir,
    VIGIE_DEMO_PASSWORD: PASSWORD,
    LOG_LEVEL: 'warn',
  };
  let server: BenchServer | undefined;
  try {
    await prepare(url.toString(), env);
    server = await serveVigie(env);
    const access = await signIn(server.url, 'analyste', PASSWORD);
    // What a browser sends: the answers come compressed.
    const headers = { authorization: `Bearer ${access}`, 'accept-encoding': 'br, gzip' };
    const base = server.url;
    const n = COUNT.toLocaleString('en');
    return [
      await cannon(`vulnerability summary, ${n} findings`, `${base}/api/vulnerabilities/summary/`, headers),
      await cannon(`home summary, ${n} findings`, `${base}/api/dashboard/summary/`, headers),
      await cannon(`first list page, ${n} findings`, `${base}/api/vulnerabilities/vulnerabilities/`, headers),
      // Only first pages are kept: a later one is computed on every request.
      await cannon(
        `second list page (computed), ${n} findings`,
        `${base}/api/vulnerabilities/vulnerabilities/?page=2`,
        headers,
      ),
    ];
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printCannon(figures: CannonFigures[] | undefined): void {
  for (const f of figures ?? []) {
    console.log(
      `${f.what}, 8 connections ${SECONDS} s: ${f.perSecond.toFixed(0)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, ${f.errors} errors`,
    );
  }
}

if (process.argv[1] === import.meta.filename) printCannon(await benchSummaryLoad());
