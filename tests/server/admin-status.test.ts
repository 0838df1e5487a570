import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { taskRuns, type TaskMeta } from '../../server/src/db/schema.ts';
import { CVE_UPDATE_TASK, PROBE_TIMEOUT_MS, statusProbes } from '../../server/src/services/admin-status.ts';
import { createTestApp, onPostgres } from './helpers.ts';
import { apiFor } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';

const pkgVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

const t = useTestApp({ runJobs: false });
const api = apiFor(t);
beforeAll(() => api.signInAll('admin', 'manager', 'analyste', 'lecteur'));
afterEach(() => vi.restoreAllMocks());

const status = (who = 'admin') => api.call(who, 'GET', '/api/admin/status/');

describe(`GET /api/admin/status/ (${backend})`, () => {
  it('reports every part with typed fields', async () => {
    const done = new Date(Date.now() - 3_600_000);
    const runId = randomUUID();
    const meta = {} as TaskMeta;
    await t.database.db.insert(taskRuns).values([
      { id: runId, taskName: CVE_UPDATE_TASK, status: 'SUCCESS', meta, dateDone: done },
      { id: randomUUID(), taskName: CVE_UPDATE_TASK, status: 'FAILURE', meta, dateDone: new Date() },
    ]);

    const res = await status();
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json<Record<string, unknown>>();
    expect(body).toEqual({
      status: 'ok',
      checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      version: pkgVersion,
      uptime_seconds: expect.any(Number),
      node_version: process.version,
      maintenance_mode: false,
      database: {
        kind: onPostgres ? 'postgres' : 'pglite',
        status: 'ok',
        latency_ms: expect.any(Number),
        size_bytes: expect.any(Number),
      },
      job_queue: { workers: false, status: 'ok', queue_depth: 0, active: 0, failed_last_24h: 0 },
      disk: { status: 'ok', path: t.filesDir, free_bytes: expect.any(Number), total_bytes: expect.any(Number) },
      // The last successful run, not the later failure.
      cve_database: { status: 'ok', last_update: done.toISOString(), last_update_task_id: runId },
      counts: { status: 'ok', tenants: 2, users: 4, active_users: 4 },
      logs: { buffered: expect.any(Number), written: expect.any(Number), dropped: expect.any(Number) },
    });
    const b = body as { database: { size_bytes: number }; disk: { free_bytes: number; total_bytes: number } };
    expect(b.database.size_bytes).toBeGreaterThan(0);
    expect(b.disk.total_bytes).toBeGreaterThanOrEqual(b.disk.free_bytes);
  });

  it('counts queued jobs in the queue depth', async () => {
    const run = await t.jobs.launch(CVE_UPDATE_TASK, {}, { tenantId: null, requestedBy: null });
    const body = (await status()).json<{ job_queue: { queue_depth: number } }>();
    expect(body.job_queue.queue_depth).toBe(1);
    await t.jobs.cancel(run.id, { by: 'test' });
  });

  it('reports a failing part as down and still answers the rest', async () => {
    vi.spyOn(statusProbes, 'jobQueue').mockRejectedValue(new Error('relation "pgboss.job" does not exist'));
    const res = await status();
    expect(res.statusCode).toBe(200);
    const body = res.json<Record<string, { status: string }> & { status: string }>();
    expect(body.status).toBe('degraded');
    // The cause stays in the server's log: the answer says only that the part is down.
    expect(body.job_queue).toEqual({ workers: false, status: 'down', error: 'Indisponible.' });
    expect(body.database!.status).toBe('ok');
    expect(body.disk!.status).toBe('ok');
    expect(body.counts!.status).toBe('ok');
  });

  it('answers in bounded time when a part hangs', async () => {
    vi.spyOn(statusProbes, 'disk').mockImplementation(() => new Promise(() => {}));
    const t0 = Date.now();
    const res = await status();
    const elapsed = Date.now() - t0;
    expect(res.statusCode).toBe(200);
    expect(elapsed).toBeLessThan(PROBE_TIMEOUT_MS + 1500);
    expect(res.json()).toMatchObject({
      status: 'degraded',
      disk: { status: 'down', error: `Pas de réponse en ${PROBE_TIMEOUT_MS / 1000} s.` },
      database: { status: 'ok' },
    });
  });

  it('is for superusers only: managers (staff), users and viewers get 403, strangers 401', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      const res = await status(who);
      expect(res.statusCode, who).toBe(403);
      expect(res.json()).toMatchObject({ code: 'permission_denied' });
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/status/' })).statusCode).toBe(401);
  });
});

describe(`GET /api/admin/status/connections/ (${backend})`, () => {
  const LIST = 'GET /api/vulnerabilities/vulnerabilities/';

  it('tells how long each route held a database connection, for superusers only', async () => {
    const before = await api.call('admin', 'GET', '/api/admin/status/connections/');
    expect(before.statusCode).toBe(200);
    const seen = (body: { routes: { route: string; count: number }[] }) =>
      body.routes.find((r) => r.route === LIST)?.count ?? 0;
    const counted = seen(before.json());
    // Later pages are computed, each in its own tenant transaction.
    for (const page of [2, 3]) {
      expect(
        (await api.call('analyste', 'GET', `/api/vulnerabilities/vulnerabilities/?page=${page}&page_size=2`))
          .statusCode,
      ).toBe(200);
    }
    const res = await api.call('admin', 'GET', '/api/admin/status/connections/');
    const body = res.json<{ since: string; routes: Record<string, unknown>[] }>();
    expect(body.since).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(seen(body as never)).toBe(counted + 2);
    const list = body.routes.find((r) => r.route === LIST)!;
    expect(list).toEqual({
      route: LIST,
      count: counted + 2,
      p50_ms: expect.any(Number),
      p99_ms: expect.any(Number),
      max_ms: expect.any(Number),
      total_ms: expect.any(Number),
    });
    expect(list.max_ms as number).toBeGreaterThan(0);
    expect(list.p50_ms as number).toBeLessThanOrEqual(list.max_ms as number);
    for (const who of ['manager', 'analyste', 'lecteur']) {
      expect((await api.call(who, 'GET', '/api/admin/status/connections/')).statusCode, who).toBe(403);
    }
  });
});

describe('GET /api/system/health/', () => {
  it('is public and answers like /api/health/', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/system/health/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'ok', version: pkgVersion });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ method: 'GET', url: '/api/health/' })).json()).toEqual(res.json());
  });

  it('answers 503 with database down when the database is unreachable', async () => {
    const other = await createTestApp({ runJobs: false });
    try {
      await other.database.close();
      const res = await other.app.inject({ method: 'GET', url: '/api/system/health/' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        status: 'error',
        database: 'down',
        version: pkgVersion,
        detail: 'Base de données indisponible : les données ne peuvent être ni lues ni enregistrées pour le moment.',
      });
    } finally {
      await other.close();
    }
  });
});
