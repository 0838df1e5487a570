import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { serverProcesses, taskRuns } from '../../server/src/db/schema.ts';
import type { Database } from '../../server/src/db/client.ts';
import { INTERRUPTED_SCAN_MESSAGE } from '../../server/src/services/scan-import.ts';
import { INTERRUPTED_MESSAGE } from '../../server/src/services/task-queue.ts';
import { PURGE_SERVER_LOGS } from '../../server/src/tasks/log-tasks.ts';
import { freshDatabase, onPostgres, TEST_PASSWORD } from './helpers.ts';
import { multipart } from './support/http.ts';
import { afterThisTest, client, startServer, until, withToken, type ServerProcess } from './support/processes.ts';
import { seededTenants, userIdOf } from './support/world.ts';

const REPORT = readFileSync(path.resolve('seed-data/scans/trivy/image_alpine_scheme2.json'));

/**
 * Issue 17: two web processes and one worker on one PostgreSQL database, as `vigie serve --no-worker` and
 * `vigie worker` run them. PostgreSQL only: PGlite is one process (CI runs the server suites on both).
 */
describe.runIf(onPostgres)('several processes on one PostgreSQL database', () => {
  let database: Database;
  let env: Record<string, string>;

  beforeAll(async () => {
    const fresh = await freshDatabase();
    database = fresh.database;
    const dirs = ['data', 'static'].map((d) => mkdtempSync(path.join(tmpdir(), `vigie-cluster-${d}-`)));
    // One data directory for all, as a shared volume would be across machines (README "Running several processes").
    env = {
      DATABASE_URL: fresh.url!,
      VIGIE_DATA_DIR: dirs[0]!,
      VIGIE_STATIC_DIR: dirs[1]!,
      VIGIE_HEARTBEAT_INTERVAL_MS: '250',
    };
    return async () => {
      await fresh.drop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    };
  });

  const web = () => startServer(env, ['serve', '--no-worker']);
  const worker = (extra: Record<string, string> = {}) => startServer({ ...env, ...extra }, ['worker']);

  it('shares sessions, notifications, sign-in budgets and jobs; a killed worker’s run is recovered by the next one', async () => {
    const [a, b, w] = await Promise.all([web(), web(), worker()]);

    // A process on another data directory would miss the files the others store: refused with one line.
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'vigie-cluster-elsewhere-'));
    afterThisTest(async () => rmSync(elsewhere, { recursive: true, force: true }));
    const refused = await worker({ VIGIE_DATA_DIR: elsewhere }).then(
      () => 'started',
      (err: Error) => err.message,
    );
    const said = refused
      .replace(/^the server exited:\n/, '')
      .trim()
      .split('\n');
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`data directory ${elsewhere} is not the one the other Vigie processes`);

    // A token issued by A works on B.
    const login = await fetch(`${a.url}/api/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'analyste', password: TEST_PASSWORD }),
    });
    const { access } = (await login.json()) as { access: string };
    expect((await withToken(b, access)('GET', '/api/current-user/')).status).toBe(200);

    // A notification created through B reaches a stream open on A within 2 s.
    const { acme } = await seededTenants(database.db);
    const analyste = await userIdOf(database.db, 'analyste');
    const stream = await openStream(a, access);
    afterThisTest(async () => stream.close());
    const manager = await client(b, 'manager', { 'x-tenant-id': acme });
    const sent = Date.now();
    const created = await manager('POST', '/api/notifications/notifications/', {
      title: 'Maintenance du pare-feu ce soir',
      user: analyste,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const event = await stream.next('notification', 2000);
    expect(Date.now() - sent).toBeLessThan(2000);
    expect(event).toMatchObject({ title: 'Maintenance du pare-feu ce soir', tenant_id: acme });

    // The sign-in budget is shared: ten failures spread over A and B lock the account (the policy's lock-out after
    // 10), and the tenth says so.
    const failures = [];
    for (let i = 0; i < 10; i++) failures.push(await signIn(i % 2 ? a : b, 'lecteur', 'pas le bon mot de passe'));
    expect(failures.slice(0, 9).map((f) => f.status)).toEqual(Array(9).fill(400));
    expect(failures[9]).toMatchObject({ status: 429, body: { code: 'account_locked' } });
    const locked = await signIn(a, 'lecteur', TEST_PASSWORD);
    expect(locked).toMatchObject({ status: 429, body: { code: 'account_locked' } });

    // A task launched on A runs once, on the worker.
    const admin = await client(a, 'admin');
    const launched = await admin('POST', '/api/celery/tasks/run/', { task_name: PURGE_SERVER_LOGS });
    expect(launched.status, JSON.stringify(launched.body)).toBe(202);
    const taskId = launched.body.task_id as string;
    await until('the task done', async () => {
      const task = (await admin('GET', `/api/celery/tasks/${taskId}/`)).body;
      return task.status === 'SUCCESS' ? task : undefined;
    });
    const [run] = await database.db.select().from(taskRuns).where(eq(taskRuns.id, taskId));
    const [ran] = await database.db.select().from(serverProcesses).where(eq(serverProcesses.id, run!.processId!));
    expect(ran).toMatchObject({ role: 'worker', pid: w.pid });
    expect(run!.meta.attempts).toBe(1);

    // kill -9 the worker in the middle of a scan import; the next worker start recovers the run.
    await w.kill('SIGTERM');
    const stalled = await worker({ VIGIE_TEST_STALL_FILES: String.raw`/reports/[\w-]+\.json$` });
    const analyst = withToken(a, access);
    const imported = await analyst('POST', '/api/vulnerabilities/scans/import/', {
      ...multipart([{ name: 'file', filename: 'alpine.json', content: REPORT, type: 'application/json' }]),
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const scanId = imported.body.id as number;
    let last: unknown;
    const scanTask = await until(
      'the scan task started on the worker',
      async () => {
        const scan = (await analyst('GET', `/api/vulnerabilities/scans/${scanId}/`)).body;
        last = scan;
        return scan.status === 'RUNNING' && scan.progress === 10 ? (scan.task_id as string) : undefined;
      },
      30_000,
      () => `scan: ${JSON.stringify(last)}\nworker: ${stalled.output()}\nweb: ${a.output()}`,
    );
    await stalled.kill('SIGKILL');
    const killedAt = Date.now();
    await worker();
    const scan = await until(
      'the scan in a final state',
      async () => {
        const body = (await analyst('GET', `/api/vulnerabilities/scans/${scanId}/`)).body;
        return body.status === 'RUNNING' ? undefined : body;
      },
      60_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect(scan).toMatchObject({ status: 'FAILED', error: INTERRUPTED_SCAN_MESSAGE });
    const [recovered] = await database.db
      .select()
      .from(taskRuns)
      .where(and(eq(taskRuns.id, scanTask), eq(taskRuns.status, 'FAILURE')));
    expect(recovered?.meta.error).toBe(INTERRUPTED_MESSAGE);
  }, 180_000);
});

async function signIn(server: ServerProcess, username: string, password: string) {
  const res = await fetch(`${server.url}/api/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** The notification stream of `access` on `server`, read event by event. */
async function openStream(server: ServerProcess, access: string) {
  const controller = new AbortController();
  const res = await fetch(`${server.url}/api/notifications/stream/`, {
    headers: { authorization: `Bearer ${access}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    /** The data of the next `event` within `timeoutMs`. */
    async next(event: string, timeoutMs: number): Promise<unknown> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = new RegExp(`event: ${event}\\ndata: (.*)\\n\\n`).exec(buffer);
        if (match) {
          buffer = buffer.slice(match.index + match[0].length);
          return JSON.parse(match[1]!);
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${event} event within ${timeoutMs} ms: ${buffer}`);
        const chunk = await Promise.race([
          reader.read(),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), left)),
        ]);
        if (chunk?.value) buffer += chunk.value;
      }
    },
    close: async () => controller.abort(),
  };
}
