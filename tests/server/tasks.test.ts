import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jobQueueOf } from '../../server/src/services/task-queue.ts';
import type { TaskContext } from '../../server/src/tasks/types.ts';
import { FORBIDDEN_MESSAGE } from '../../server/src/policies/index.ts';
import { createTestApp, freshDatabase, onPostgres, type TestApp } from './helpers.ts';
import { jsonWithFields, signedIn } from './support/api.ts';
import { backend } from './support/app.ts';
import { TASK_META_KEYS } from './support/contract.ts';
import { testTask } from './support/tasks.ts';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Per-test state the fake tasks report to and wait on (reset by each test's start()). */
let gate = deferred();
let running = deferred<TaskContext>();
let failingCalls = 0;
let seenContexts: TaskContext[] = [];

const quick = testTask('tests.tasks.quick', 'Tâche rapide', 'Termine tout de suite.', async (ctx) => {
  seenContexts.push(ctx);
  return { result: '3 CVE traitées : 2 nouvelles, 1 mise à jour', meta: { new_cves: 2, updated_cves: 1 } };
});

/** Reports progress, then waits for the test (or for its signal). */
const gated = testTask('tests.tasks.gated', 'Tâche contrôlée', 'Attend le feu vert du test.', async (ctx) => {
  await ctx.progress(10);
  await ctx.progress(40, { new_cves: 5, phase: 'téléchargement' });
  running.resolve(ctx);
  await Promise.race([
    gate.promise,
    new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
  ]);
  return { result: 'Terminé', meta: { new_cves: 7 } };
});

const failing = testTask(
  'tests.tasks.failing',
  'Tâche en échec',
  'Échoue toujours.',
  async () => {
    failingCalls++;
    const err = new Error('Source injoignable');
    err.stack = 'Error: Source injoignable\n    at secret (/srv/internal.ts:1:1)';
    throw err;
  },
  { retryLimit: 1 },
);

const tenantTask = testTask(
  'tests.tasks.tenant_work',
  'Traitement du tenant',
  "Travaille dans l'organisation de l'appelant.",
  async (ctx) => {
    seenContexts.push(ctx);
    return { result: 'ok' };
  },
  { scope: 'tenant' },
);

const done = async () => ({ result: 'ok' });

const daily = testTask('tests.tasks.daily', 'Mise à jour quotidienne', 'Tous les jours.', done, {
  schedule: { cron: '0 2 * * *', label: 'Tous les jours à 02:00 (UTC)' },
});

const weekly = testTask(
  'tests.tasks.weekly_index',
  'Indexation des CVE des 5 dernières années',
  'Chaque dimanche.',
  done,
  {
    schedule: { cron: '0 3 * * 0', label: 'Tous les dimanches à 03:00 (UTC)' },
  },
);

const TASKS = [quick, gated, failing, tenantTask, daily, weekly];

describe(`background tasks (${backend})`, () => {
  let t: TestApp | undefined;
  // The worker's PGlite template is built once, here, so a loaded machine cannot push the first test past its timeout.
  beforeAll(async () => {
    if (!onPostgres) await (await freshDatabase()).drop();
  }, 120_000);
  afterEach(async () => {
    gate.resolve();
    await t?.close();
    t = undefined;
  });

  async function start(opts: { runJobs?: boolean } = {}) {
    gate = deferred();
    running = deferred<TaskContext>();
    failingCalls = 0;
    seenContexts = [];
    t = await createTestApp({ tasks: TASKS, ...opts });
    return { ...t, jobs: jobQueueOf(t.database)! };
  }

  describe('app.jobs', () => {
    it('runs a launched task: PENDING, then SUCCESS with its result, duration and every meta key', async () => {
      const { jobs } = await start();
      const launched = await jobs.launch('tests.tasks.quick', { full: true }, { tenantId: null, requestedBy: 1 });
      expect(launched).toMatchObject({ name: 'Tâche rapide', full_name: 'tests.tasks.quick', status: 'PENDING' });
      expect(launched.meta).toEqual({
        duration: null,
        new_cves: 0,
        updated_cves: 0,
        error: null,
        attempts: 0,
        start_time: null,
        progress: 0,
        revoked_by: null,
        reason: null,
      });

      const done = await jobs.waitFor(launched.id, 10_000);
      expect(done.status).toBe('SUCCESS');
      expect(done.result).toBe('3 CVE traitées : 2 nouvelles, 1 mise à jour');
      expect(done.meta).toMatchObject({ new_cves: 2, updated_cves: 1, attempts: 1, progress: 100, error: null });
      expect(typeof done.meta.duration).toBe('number');
      expect(Number.isInteger(done.meta.duration! * 10)).toBe(true);
      expect(Date.parse(done.meta.start_time!)).toBeLessThanOrEqual(Date.parse(done.date_done!));
      expect(seenContexts).toHaveLength(1);
      expect(seenContexts[0]).toMatchObject({ taskId: launched.id, tenantId: null, args: { full: true } });
      expect(seenContexts[0]!.requestedBy).toBe(1);
    });

    it('shows STARTED and the progress while the task runs', async () => {
      const { jobs } = await start();
      const { id } = await jobs.launch('tests.tasks.gated', {}, { tenantId: null, requestedBy: null });
      await running.promise;
      // The 40 % report came within the throttle window: it lands at the latest one window later.
      await expect.poll(async () => (await jobs.get(id))?.meta.progress, { timeout: 3000 }).toBe(40);
      const during = await jobs.get(id);
      expect(during).toMatchObject({ status: 'STARTED', date_done: null });
      expect(during!.meta).toMatchObject({ attempts: 1, new_cves: 5, phase: 'téléchargement' });
      expect(during!.meta.start_time).toEqual(expect.any(String));

      gate.resolve();
      const done = await jobs.waitFor(id, 10_000);
      expect(done.status).toBe('SUCCESS');
      expect(done.meta).toMatchObject({ new_cves: 7, progress: 100, phase: 'téléchargement' });
    });

    it('retries a failing task, then reports FAILURE with the message only and the attempts', async () => {
      const { jobs } = await start();
      const { id } = await jobs.launch('tests.tasks.failing', {}, { tenantId: null, requestedBy: null });
      const done = await jobs.waitFor(id, 15_000);
      expect(done.status).toBe('FAILURE');
      expect(failingCalls).toBe(2);
      expect(done.meta).toMatchObject({ error: 'Source injoignable', attempts: 2 });
      expect(JSON.stringify(done)).not.toContain('internal.ts');
      expect(done.result).toBe('Échec après 2 tentatives');
      expect(done.date_done).toEqual(expect.any(String));
    });

    it('revokes a running task: its signal aborts and the run says who and why', async () => {
      const { jobs } = await start();
      const { id } = await jobs.launch('tests.tasks.gated', {}, { tenantId: null, requestedBy: null });
      const ctx = await running.promise;
      const revoked = await jobs.cancel(id, { by: 'admin', reason: 'Fenêtre de maintenance dépassée' });
      expect(revoked).toMatchObject({ status: 'REVOKED', result: 'Tâche annulée' });
      expect(revoked!.meta).toMatchObject({ revoked_by: 'admin', reason: 'Fenêtre de maintenance dépassée' });
      expect(revoked!.meta.duration).toEqual(expect.any(Number));
      expect(revoked!.date_done).toEqual(expect.any(String));
      expect(ctx.signal.aborted).toBe(true);

      // The worker's end of the run does not overwrite the revoke.
      await new Promise((r) => setTimeout(r, 200));
      expect((await jobs.get(id))!.status).toBe('REVOKED');
      expect(await jobs.cancel(id, { by: 'admin' })).toBeNull();
    });

    it('with runJobs false, launches stay PENDING; a pending run can be revoked and never runs', async () => {
      const { jobs, database } = await start({ runJobs: false });
      const { id } = await jobs.launch('tests.tasks.quick', {}, { tenantId: null, requestedBy: null });
      await new Promise((r) => setTimeout(r, 300));
      expect((await jobs.get(id))!.status).toBe('PENDING');
      expect(seenContexts).toHaveLength(0);
      // No schedules either: the processes that run jobs register them.
      expect((await database.executeSql('select name from pgboss.schedule')).rows).toEqual([]);

      const revoked = await jobs.cancel(id, { by: 'manager' });
      expect(revoked).toMatchObject({ status: 'REVOKED' });
      expect(revoked!.meta).toMatchObject({ revoked_by: 'manager', reason: null, duration: null, attempts: 0 });
      expect((await jobs.waitFor(id, 1000)).status).toBe('REVOKED');
    });

    it('cancelling a finished or unknown run answers null', async () => {
      const { jobs } = await start();
      const { id } = await jobs.launch('tests.tasks.quick', {}, { tenantId: null, requestedBy: null });
      await jobs.waitFor(id, 10_000);
      expect(await jobs.cancel(id, { by: 'admin' })).toBeNull();
      expect((await jobs.get(id))!.status).toBe('SUCCESS');
      expect(await jobs.cancel('00000000-0000-4000-8000-000000000000', { by: 'admin' })).toBeNull();
      expect(await jobs.get('not-a-uuid')).toBeNull();
      await expect(jobs.launch('tests.tasks.nope', {}, { tenantId: null, requestedBy: null })).rejects.toThrow(
        'unknown task',
      );
    });

    it('gives a tenant task its tenant', async () => {
      const { jobs, database } = await start();
      const [tenant] = (await database.executeSql('select id from tenants order by name limit 1')).rows;
      const tenantId = tenant!.id as string;
      const { id } = await jobs.launch('tests.tasks.tenant_work', {}, { tenantId, requestedBy: null });
      expect((await jobs.waitFor(id, 10_000)).status).toBe('SUCCESS');
      expect(seenContexts[0]!.tenantId).toBe(tenantId);
      await expect(jobs.launch('tests.tasks.tenant_work', {}, { tenantId: null, requestedBy: null })).rejects.toThrow();
    });

    it('gives a job the scheduler created its run, triggered by the schedule', async () => {
      const { jobs, database } = await start();
      // What pg-boss's clock inserts when a cron fires: a job with the schedule's data and no run yet.
      const { rows } = await database.executeSql(
        `insert into pgboss.job (name, data) values ('tests.tasks.daily', '{"args": {}, "tenantId": null, "requestedBy": null, "trigger": "schedule"}') returning id`,
      );
      const id = rows[0]!.id as string;
      await expect.poll(async () => (await jobs.get(id))?.status, { timeout: 8000, interval: 100 }).toBe('SUCCESS');
      const run = await database.executeSql('select trigger, requested_by, tenant_id from task_runs where id = $1', [
        id,
      ]);
      expect(run.rows).toEqual([{ trigger: 'schedule', requested_by: null, tenant_id: null }]);
    });

    it('aborts a run still executing when the app closes and leaves it for a retry', async () => {
      const { app, jobs, database } = await start();
      const { id } = await jobs.launch('tests.tasks.gated', {}, { tenantId: null, requestedBy: null });
      const ctx = await running.promise;
      const closing = Date.now();
      await app.close();
      expect(Date.now() - closing).toBeLessThan(3000);
      expect(ctx.signal.aborted).toBe(true);
      const { rows } = await database.executeSql(
        "select r.status, r.meta->>'error' as error, r.meta->>'attempts' as attempts, j.state from task_runs r join pgboss.job j on j.id = r.id where r.id = $1",
        [id],
      );
      expect(rows).toEqual([
        { status: 'PENDING', error: "Interrompue par l'arrêt du serveur", attempts: '1', state: 'retry' },
      ]);
    });

    it('registers the schedules with pg-boss (cron, UTC) only where jobs run', async () => {
      const { database } = await start();
      const { rows } = await database.executeSql(
        'select name, cron, timezone, data from pgboss.schedule order by name',
      );
      expect(rows).toEqual([
        {
          name: 'tests.tasks.daily',
          cron: '0 2 * * *',
          timezone: 'UTC',
          data: expect.objectContaining({ trigger: 'schedule' }),
        },
        { name: 'tests.tasks.weekly_index', cron: '0 3 * * 0', timezone: 'UTC', data: expect.any(Object) },
      ]);
    });
  });

  describe('/api/celery/tasks/', () => {
    const BASE = '/api/celery/tasks/';
    const TASK_KEYS = ['created_at', 'date_done', 'full_name', 'id', 'meta', 'name', 'result', 'status'];

    it('launches (202, §3 launch result), then lists and shows the run with the spec §3 task fields', async () => {
      const { app, database, jobs } = await start();
      expect((await app.inject({ method: 'GET', url: BASE })).statusCode).toBe(401);
      const anonymous = await app.inject({
        method: 'POST',
        url: `${BASE}run/`,
        payload: { task_name: 'tests.tasks.quick' },
      });
      expect(anonymous.statusCode).toBe(401);

      const admin = await signedIn(app, 'admin');
      const res = await admin.post(`${BASE}run/`, { task_name: 'tests.tasks.quick', args: { since: '2024-01-01' } });
      const launched = jsonWithFields<Record<string, unknown>>(res, 202, [
        'created_at',
        'message',
        'status',
        'task_id',
        'task_name',
      ]);
      expect(launched).toMatchObject({
        task_name: 'tests.tasks.quick',
        status: 'PENDING',
        message: 'Tâche lancée avec succès',
      });
      const id = launched.task_id as string;
      await jobs.waitFor(id, 10_000);
      expect(seenContexts[0]!.args).toEqual({ since: '2024-01-01' });

      const one = await admin.get(`${BASE}${id}/`);
      const task = jsonWithFields<Record<string, unknown>>(one, 200, TASK_KEYS);
      expect(task).toMatchObject({ id, name: 'Tâche rapide', full_name: 'tests.tasks.quick', status: 'SUCCESS' });
      expect(Object.keys(task.meta as object)).toEqual(expect.arrayContaining([...TASK_META_KEYS]));

      const all = (await admin.get(BASE)).json<{ recent_tasks: { id: string }[]; scheduled_tasks: unknown[] }>();
      expect(all.recent_tasks.map((r) => r.id)).toEqual([id]);
      expect(all.scheduled_tasks).toEqual([
        {
          id: 1,
          name: 'Mise à jour quotidienne',
          task: 'tests.tasks.daily',
          schedule: 'Tous les jours à 02:00 (UTC)',
          cron: '0 2 * * *',
          timezone: 'UTC',
        },
        {
          id: 2,
          name: 'Indexation des CVE des 5 dernières années',
          task: 'tests.tasks.weekly_index',
          schedule: 'Tous les dimanches à 03:00 (UTC)',
          cron: '0 3 * * 0',
          timezone: 'UTC',
        },
      ]);
      expect((await admin.get(`${BASE}scheduled/`)).json()).toEqual({ scheduled_tasks: all.scheduled_tasks });

      await admin.post(`${BASE}run/`, { task_name: 'tests.tasks.quick' });
      const recent = (await admin.get(`${BASE}recent/?limit=1`)).json<{ recent_tasks: { id: string }[] }>();
      expect(recent.recent_tasks).toHaveLength(1);
      expect(recent.recent_tasks[0]!.id).not.toBe(id);
      expect((await admin.get(`${BASE}recent/?limit=abc`)).statusCode).toBe(400);

      const available = (await admin.get(`${BASE}available/`)).json<{ tasks: Record<string, unknown>[] }>();
      expect(available.tasks).toContainEqual({
        task_name: 'tests.tasks.tenant_work',
        name: 'Traitement du tenant',
        description: "Travaille dans l'organisation de l'appelant.",
        scope: 'tenant',
        schedule: null,
      });

      const unknown = await admin.post(`${BASE}run/`, { task_name: 'tests.tasks.nope' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({ detail: 'Tâche inconnue : tests.tasks.nope' });
      expect((await admin.post(`${BASE}run/`, { task_name: 'tests.tasks.quick', extra: 1 })).statusCode).toBe(400);
      expect((await admin.post(`${BASE}run/`, {})).statusCode).toBe(400);

      for (const missing of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res404 = await admin.get(`${BASE}${missing}/`);
        expect(res404.statusCode).toBe(404);
        expect(res404.json()).toMatchObject({ detail: 'Tâche introuvable.' });
      }

      const { rows } = await database.executeSql(
        "select username, tenant_id, details from audit_events where event_type = 'configuration_change'",
      );
      expect(rows).toContainEqual(
        expect.objectContaining({
          username: 'admin',
          tenant_id: null,
          details: expect.objectContaining({ action: 'task_launched', task_id: id }),
        }),
      );
    });

    it('lets staff launch platform tasks, members write tenant tasks, and shows a tenant only its runs', async () => {
      const { app } = await start({ runJobs: false });
      const [lecteur, analyste, manager] = [
        await signedIn(app, 'lecteur'),
        await signedIn(app, 'analyste'),
        await signedIn(app, 'manager'),
      ];

      for (const user of [lecteur, analyste]) {
        const denied = await user.post(`${BASE}run/`, { task_name: 'tests.tasks.quick' });
        expect(denied.statusCode).toBe(403);
        expect(denied.json()).toMatchObject({ detail: FORBIDDEN_MESSAGE });
      }
      const platform = await manager.post(`${BASE}run/`, { task_name: 'tests.tasks.quick' });
      expect(platform.statusCode).toBe(202);
      const platformId = platform.json<{ task_id: string }>().task_id;

      expect((await lecteur.post(`${BASE}run/`, { task_name: 'tests.tasks.tenant_work' })).statusCode).toBe(403);
      const acme = await analyste.post(`${BASE}run/`, { task_name: 'tests.tasks.tenant_work' });
      expect(acme.statusCode).toBe(202);
      const acmeId = acme.json<{ task_id: string }>().task_id;

      // Horizon's viewer sees the platform run, not Acme's.
      const seen = (await lecteur.get(BASE)).json<{ recent_tasks: { id: string }[] }>().recent_tasks.map((r) => r.id);
      expect(seen).toEqual([platformId]);
      expect((await lecteur.get(`${BASE}${platformId}/`)).statusCode).toBe(200);
      expect((await lecteur.get(`${BASE}${acmeId}/`)).statusCode).toBe(404);
      expect((await lecteur.post(`${BASE}${acmeId}/cancel/`, {})).statusCode).toBe(404);
      const analysteSees = (await analyste.get(`${BASE}recent/`)).json<{ recent_tasks: { id: string }[] }>();
      expect(analysteSees.recent_tasks.map((r) => r.id).sort()).toEqual([platformId, acmeId].sort());

      // Cancelling follows launching: the viewer may not touch the platform run, the analyst may cancel Acme's.
      expect((await lecteur.post(`${BASE}${platformId}/cancel/`, {})).statusCode).toBe(403);
      expect((await analyste.post(`${BASE}${platformId}/cancel/`, {})).statusCode).toBe(403);
      const cancelled = await analyste.post(`${BASE}${acmeId}/cancel/`);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ status: 'REVOKED', meta: { revoked_by: 'analyste', reason: null } });
    });

    it('cancels a pending run with a reason, then answers 409 for a finished one', async () => {
      const { app, database } = await start({ runJobs: false });
      const admin = await signedIn(app, 'admin');
      const id = (await admin.post(`${BASE}run/`, { task_name: 'tests.tasks.quick' })).json<{ task_id: string }>()
        .task_id;

      expect((await admin.post(`${BASE}${id}/cancel/`, { reason: 1 })).statusCode).toBe(400);
      const res = await admin.post(`${BASE}${id}/cancel/`, { reason: 'Lancée par erreur' });
      const task = jsonWithFields<{ status: string; date_done: string | null; meta: Record<string, unknown> }>(
        res,
        200,
        TASK_KEYS,
      );
      expect(task).toMatchObject({ status: 'REVOKED', meta: { revoked_by: 'admin', reason: 'Lancée par erreur' } });
      expect(task.date_done).toEqual(expect.any(String));

      const again = await admin.post(`${BASE}${id}/cancel/`, { reason: 'encore' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ detail: 'Cette tâche est déjà terminée.' });
      const { rows } = await database.executeSql(
        "select details from audit_events where event_type = 'configuration_change' and details->>'action' = 'task_cancelled'",
      );
      expect(rows).toEqual([{ details: expect.objectContaining({ task_id: id, reason: 'Lancée par erreur' }) }]);
    });
  });
});
