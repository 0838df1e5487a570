import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/build-app.ts';
import type { Database } from '../../server/src/db/client.ts';
import { SecretBox } from '../../server/src/lib/secret-box.ts';
import { TokenService } from '../../server/src/lib/tokens.ts';
import { taskRunWrites } from '../../server/src/repositories/task-runs.ts';
import { INTERRUPTED_BACKUP_MESSAGE } from '../../server/src/services/backups.ts';
import { processRegistryOf } from '../../server/src/services/process-registry.ts';
import { INTERRUPTED_SCAN_MESSAGE } from '../../server/src/services/scan-import.ts';
import { INTERRUPTED_MESSAGE, jobQueueOf } from '../../server/src/services/task-queue.ts';
import { TASKS } from '../../server/src/tasks/index.ts';
import { PROCESS_SCAN_REPORT } from '../../server/src/tasks/scan-tasks.ts';
import type { RecoveryContext } from '../../server/src/tasks/types.ts';
import { freshDatabase, onPostgres, signIn, TEST_SECRET } from './helpers.ts';
import { backend, withEnv } from './support/app.ts';
import { multipart } from './support/http.ts';
import { testTask } from './support/tasks.ts';

const REPORT = readFileSync(path.resolve('seed-data/scans/trivy/image_alpine_scheme2.json'));

/** What the recover hooks of the test tasks were given. */
const recovered: RecoveryContext[] = [];
const remember = (ctx: RecoveryContext) => {
  recovered.push(ctx);
  return Promise.resolve();
};
const retried = testTask(
  'tests.recovery.retried',
  'Relancée',
  'Réussit quand elle est relancée.',
  async () => ({ result: 'ok' }),
  {
    retryLimit: 1,
    recover: remember,
  },
);
const once = testTask('tests.recovery.once', 'Sans reprise', 'N’est jamais relancée.', async () => ({ result: 'ok' }), {
  retryLimit: 0,
  recover: remember,
});

describe(`crash recovery (${backend})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  let filesDir: string;
  const apps: FastifyInstance[] = [];

  // One database and files folder for the suite (its tests use their own runs and rows); one app at a time.
  beforeAll(async () => {
    ({ database, drop } = await freshDatabase());
    filesDir = mkdtempSync(path.join(tmpdir(), 'vigie-recovery-'));
  });
  afterAll(async () => {
    await drop();
    rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    recovered.length = 0;
  });
  afterEach(async () => {
    for (const app of apps.splice(0).reverse()) await app.close();
  });

  /** One server process on the shared database and files (heartbeat every 100 ms: dead after 0.4 s of silence). */
  async function open(runJobs: boolean): Promise<FastifyInstance> {
    const app = await withEnv({ VIGIE_HEARTBEAT_INTERVAL_MS: '100' }, () =>
      buildApp({
        database,
        tokens: new TokenService(TEST_SECRET),
        secretBox: new SecretBox('test-encryption-key'),
        staticDir: filesDir,
        filesDir,
        tasks: [...TASKS, retried, once],
        runJobs,
      }),
    );
    apps.push(app);
    return app;
  }
  async function close(app: FastifyInstance): Promise<void> {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  }
  const sql = async <T = Record<string, unknown>>(text: string, values?: unknown[]) =>
    (await database.executeSql(text, values)).rows as T[];

  /** Someone's requests to an app. */
  async function as(app: FastifyInstance, username: string) {
    const { access } = await signIn(app, username);
    return (method: 'GET' | 'POST', url: string, payload?: object | ReturnType<typeof multipart>) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${access}`, ...(payload && 'headers' in payload ? payload.headers : {}) },
        ...(payload ? { payload: 'payload' in payload ? payload.payload : payload } : {}),
      });
  }

  /** A process row whose heartbeat is `age` old and that nobody marked stopped. */
  async function processRow(age = '1 hour'): Promise<string> {
    const id = randomUUID();
    await sql(
      `insert into server_processes (id, role, hostname, pid, started_at, heartbeat_at)
       values ($1, 'all', 'ailleurs', 4242, now() - interval '2 hours', now() - $2::interval)`,
      [id, age],
    );
    return id;
  }
  /** What a run looks like while `processId` executes it: STARTED by it, half done, its pg-boss job active. */
  async function executing(runId: string, taskName: string, processId: string | null): Promise<void> {
    await sql(
      `update task_runs set status = 'STARTED', process_id = $2,
         meta = meta || jsonb_build_object('attempts', 1, 'start_time', now() - interval '1 minute', 'progress', 50)
       where id = $1`,
      [runId, processId],
    );
    await sql(`update pgboss.job set state = 'active', started_on = now() where name = $1 and id = $2`, [
      taskName,
      runId,
    ]);
  }
  const jobOf = async (name: string, id: string) =>
    (await sql<{ state: string }>(`select state from pgboss.job where name = $1 and id = $2`, [name, id]))[0];
  const runOf = async (id: string) => (await jobQueueOf(database)!.get(id))!;

  it('registers this process, beats its heart and marks it stopped on a clean close', async () => {
    const app = await open(false);
    const registry = processRegistryOf(database)!;
    const row = async () =>
      (
        await sql<{ role: string; hostname: string; pid: number; heartbeat_at: Date; stopped_at: Date | null }>(
          'select role, hostname, pid, heartbeat_at, stopped_at from server_processes where id = $1',
          [registry.id],
        )
      )[0]!;
    const first = await row();
    expect(first).toMatchObject({ role: 'web', hostname: hostname(), pid: process.pid, stopped_at: null });
    await expect
      .poll(async () => new Date((await row()).heartbeat_at).getTime(), { timeout: 3000, interval: 50 })
      .toBeGreaterThan(new Date(first.heartbeat_at).getTime());
    await close(app);
    expect((await row()).stopped_at).not.toBeNull();
    expect(processRegistryOf(database)).toBeUndefined();
  });

  it('at start, a dead process’s runs are retried when attempts remain and failed otherwise, without waiting for expiry', async () => {
    const web = await open(false);
    const jobs = jobQueueOf(database)!;
    const again = await jobs.launch(retried.name, {}, { tenantId: null, requestedBy: null });
    const lost = await jobs.launch(once.name, {}, { tenantId: null, requestedBy: null });
    await close(web);
    const dead = await processRow();
    await executing(again.id, retried.name, dead);
    await executing(lost.id, once.name, dead);

    await open(true);
    // Settled during the start, before any worker ran.
    expect(await runOf(lost.id)).toMatchObject({
      status: 'FAILURE',
      result: 'Échec après 1 tentative',
      meta: { error: INTERRUPTED_MESSAGE, progress: 50 },
    });
    expect(await jobOf(once.name, lost.id)).toMatchObject({ state: 'failed' });
    // pg-boss retries the other at once: the second attempt runs here.
    expect(await jobQueueOf(database)!.waitFor(again.id, 10_000)).toMatchObject({
      status: 'SUCCESS',
      meta: { attempts: 2, error: null },
    });
    expect(recovered.map((r) => [r.taskId, r.final, r.reason])).toEqual([
      [again.id, false, INTERRUPTED_MESSAGE],
      [lost.id, true, INTERRUPTED_MESSAGE],
    ]);
    const [row] = await sql<{ stopped_at: Date | null }>('select stopped_at from server_processes where id = $1', [
      dead,
    ]);
    expect(row!.stopped_at).not.toBeNull();
  });

  it('on a heartbeat, recovers what a silent process left; a live process’s runs are left alone', async () => {
    await open(true);
    const live = await processRow('0 seconds');
    const silent = await processRow('0 seconds');
    // Runs written as their processes would have (no pg-boss job: the recovery fails them for good).
    const runIn = async (processId: string) => {
      const id = randomUUID();
      await taskRunWrites.insert(database.db, {
        id,
        taskName: once.name,
        tenantId: null,
        args: {},
        requestedBy: null,
        trigger: 'user',
      });
      await executing(id, once.name, processId);
      return id;
    };
    const liveRun = await runIn(live);
    const silentRun = await runIn(silent);
    // The live one keeps beating; the silent one stopped.
    const beating = setInterval(
      () => void sql(`update server_processes set heartbeat_at = now() where id = $1`, [live]).catch(() => {}),
      50,
    );
    try {
      await expect.poll(async () => (await runOf(silentRun)).status, { timeout: 5000, interval: 50 }).toBe('FAILURE');
      await new Promise((r) => setTimeout(r, 500));
      expect((await runOf(liveRun)).status).toBe('STARTED');
    } finally {
      clearInterval(beating);
    }
    // Its heartbeat stops too: recovered as well.
    await expect.poll(async () => (await runOf(liveRun)).status, { timeout: 5000, interval: 50 }).toBe('FAILURE');
    expect((await runOf(liveRun)).meta.error).toBe(INTERRUPTED_MESSAGE);
  });

  it('a scan a dead process was processing is FAILED with a French reason; restart/ processes it again', async () => {
    const web = await open(false);
    const analyst = await as(web, 'analyste');
    const imported = await analyst(
      'POST',
      '/api/vulnerabilities/scans/import/',
      multipart([{ name: 'file', filename: 'alpine.json', content: REPORT }]),
    );
    expect(imported.statusCode, imported.body).toBe(201);
    const scan = imported.json<{ id: number; status: string; task_id: string }>();
    expect(scan.status).toBe('RUNNING');
    await close(web);
    await executing(scan.task_id, PROCESS_SCAN_REPORT, await processRow());
    await sql(`update scans set progress = 50 where id = $1`, [scan.id]);

    const app = await open(true);
    const analyst2 = await as(app, 'analyste');
    const url = `/api/vulnerabilities/scans/${scan.id}/`;
    expect((await analyst2('GET', url)).json()).toMatchObject({
      status: 'FAILED',
      progress: 50,
      error: INTERRUPTED_SCAN_MESSAGE,
    });
    expect((await analyst2('GET', `/api/celery/tasks/${scan.task_id}/`)).json()).toMatchObject({
      status: 'FAILURE',
      meta: { error: INTERRUPTED_MESSAGE },
    });
    expect((await analyst2('POST', `${url}restart/`)).statusCode).toBe(200);
    await expect
      .poll(async () => (await analyst2('GET', url)).json<{ status: string }>().status, { timeout: 15_000 })
      .toBe('COMPLETED');
  });

  it('a backup a dead process was writing is FAILED, what it wrote is removed, and a restore is possible at once', async () => {
    const web = await open(false);
    const started = (await (await as(web, 'admin'))('POST', '/api/admin/backups/', { note: 'Interrompue' })).json<{
      id: string;
      filename: string;
    }>();
    await close(web);
    const [run] = await sql<{ id: string }>(`select id from task_runs where args->>'backup_id' = $1`, [started.id]);
    await executing(run!.id, 'system.tasks.create_backup', await processRow());
    // What the writer had left: the archive's .part file and its scratch folder.
    const backupsDir = path.join(filesDir, 'backups');
    mkdirSync(path.join(backupsDir, `.vigie-backup-work-${started.id}`), { recursive: true });
    writeFileSync(path.join(backupsDir, `.vigie-backup-work-${started.id}`, 'users.jsonl'), '{}\n');
    writeFileSync(path.join(backupsDir, `.${started.filename}.part`), 'partial');

    const app = await open(true);
    const admin = await as(app, 'admin');
    const list = async () => (await admin('GET', '/api/admin/backups/')).json<{ backups: Record<string, unknown>[] }>();
    expect((await list()).backups.find((b) => b.id === started.id)).toMatchObject({
      status: 'FAILED',
      error: INTERRUPTED_BACKUP_MESSAGE,
    });
    expect(readdirSync(backupsDir)).toEqual([]);
    expect(await runOf(run!.id)).toMatchObject({ status: 'FAILURE', meta: { error: INTERRUPTED_MESSAGE } });

    const next = (await admin('POST', '/api/admin/backups/', { note: 'Après' })).json<{ id: string }>();
    await expect
      .poll(async () => (await list()).backups.find((b) => b.id === next.id)?.status, { timeout: 20_000 })
      .toBe('COMPLETED');
    const restored = await admin('POST', `/api/admin/backups/${next.id}/restore/`, { confirm: 'RESTAURER' });
    expect(restored.statusCode, restored.body).toBe(200);
  });

  it('a RUNNING backup no live run will finish is shown FAILED at once, even by a process that runs no jobs', async () => {
    const web = await open(false);
    const admin = await as(web, 'admin');
    const started = (await admin('POST', '/api/admin/backups/', { note: 'Orpheline' })).json<{ id: string }>();
    const [run] = await sql<{ id: string }>(`select id from task_runs where args->>'backup_id' = $1`, [started.id]);
    await executing(run!.id, 'system.tasks.create_backup', await processRow());
    // A row whose launch died before its run was written, a while ago.
    const unlaunched = randomUUID();
    await sql(
      `insert into backups (id, filename, engine, status, note, created_at)
       values ($1, $2, $3, 'RUNNING', '', now() - interval '2 minutes')`,
      [unlaunched, `vigie-backup-20260101-000000-${unlaunched.slice(0, 8)}.tar.gz`, database.kind],
    );
    const { backups } = (await admin('GET', '/api/admin/backups/')).json<{ backups: Record<string, unknown>[] }>();
    expect(backups.find((b) => b.id === started.id)).toMatchObject({
      status: 'FAILED',
      error: INTERRUPTED_BACKUP_MESSAGE,
    });
    expect(backups.find((b) => b.id === unlaunched)).toMatchObject({
      status: 'FAILED',
      error: 'Sauvegarde interrompue : sa tâche n’a pas été lancée.',
    });
  });

  it.skipIf(onPostgres)('PGlite: a run naming no process (an older version’s) is recovered at start', async () => {
    const web = await open(false);
    const lost = await jobQueueOf(database)!.launch(once.name, {}, { tenantId: null, requestedBy: null });
    await close(web);
    await executing(lost.id, once.name, null);
    await open(true);
    expect(await runOf(lost.id)).toMatchObject({ status: 'FAILURE', meta: { error: INTERRUPTED_MESSAGE } });
  });
});
