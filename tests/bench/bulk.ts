/**
 * Bulk work on findings (issue 21): on PostgreSQL at 1,000,000 findings (the bench database of summary-load.ts), one
 * POST /api/vulnerabilities/bulk/ by filter selecting the tenant's critical findings, open and resolved (about
 * 100,000 of them, the size): assign, move to « confirmée » (a resolved one reopened, where the lifecycle
 * allows it, else counted as refused) and set a due date, each in one transaction with a history line and an audit
 * event per finding. Prints the selection's size and each request's time (median of BENCH_BULK_RUNS, 3); asserts
 * nothing. Needs PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serveVigie, signIn } from './server.ts';
import { ADMIN_URL, DB, PASSWORD, admin, prepare } from './summary-load.ts';

const RUNS = Number(process.env.BENCH_BULK_RUNS ?? 3);
const FILTER = { severity: 'critical' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchBulk(): Promise<void> {
  const reachable = await admin(async () => true).catch(() => false);
  if (!reachable) return console.log('bulk: no PostgreSQL at BENCH_PG_ADMIN_URL, skipped');
  const direct = new URL(ADMIN_URL);
  direct.pathname = `/${DB}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-bench-bulk-'));
  const env = {
    DATABASE_URL: direct.toString(),
    VIGIE_DATA_DIR: dataDir,
    VIGIE_DEMO_PASSWORD: PASSWORD,
    LOG_LEVEL: 'error',
  };
  await prepare(direct.toString(), env);
  // The first start on an older bench database applies the new migrations (the lifecycle columns on 1M rows).
  const server = await serveVigie(env, 900_000);
  try {
    const headers = {
      authorization: `Bearer ${await signIn(server.url, 'manager', PASSWORD)}`,
      'content-type': 'application/json',
    };
    const assignees = (await (await fetch(`${server.url}/api/vulnerabilities/assignees/`, { headers })).json()) as {
      id: number;
      username: string;
    }[];
    const [first, second] = [
      assignees.find((a) => a.username === 'analyste')!,
      assignees.find((a) => a.username === 'manager')!,
    ];
    const bulk = async (body: Record<string, unknown>) => {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/vulnerabilities/bulk/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ filter: FILTER, ...body }),
      });
      const ms = performance.now() - t0;
      if (!res.ok) throw new Error(`bulk ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
      return { ms, result: (await res.json()) as { selected: number; changed: number } };
    };
    const actions: [string, (run: number) => Record<string, unknown>][] = [
      ['assign', (run) => ({ action: 'assign', assignee_id: run % 2 ? first.id : second.id })],
      ['due date', (run) => ({ action: 'due_date', due_date: `2027-0${1 + (run % 9)}-15` })],
      [
        'state',
        (run) => ({ action: 'transition', state: run % 2 ? 'in_progress' : 'confirmed', comment: 'Lot de charge' }),
      ],
    ];
    for (const [what, body] of actions) {
      const times: number[] = [];
      let changed = 0;
      let selected = 0;
      for (let run = 0; run < RUNS; run++) {
        const { ms, result } = await bulk(body(run));
        times.push(ms);
        ({ changed, selected } = result);
      }
      console.log(
        `bulk ${what} by filter (${selected.toLocaleString('en')} findings selected, ${changed.toLocaleString('en')} changed by the last run): ` +
          `median ${median(times).toFixed(0)} ms over ${RUNS} runs (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})`,
      );
    }
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await benchBulk();
