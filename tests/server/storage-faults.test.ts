import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { STORAGE_MESSAGES } from '../../server/src/domain/storage-errors.ts';
import { HEALTH_MESSAGES } from '../../server/src/services/admin-status.ts';
import { processRegistryOf } from '../../server/src/services/process-registry.ts';
import { TASKS } from '../../server/src/tasks/index.ts';
import { onPostgres } from './helpers.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { multipart, type FormPart } from './support/http.ts';
import { testTask } from './support/tasks.ts';
import { until } from './support/processes.ts';
import { addProject, seededTenants } from './support/world.ts';

const DISK_FULL = 'Base de données indisponible (espace disque insuffisant) : réessayez plus tard.';
/** What the file system answers to a write where the server may not write (a directory of /sys, even for root). */
const NOT_WRITABLE = '/sys/kernel';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A task whose statement the database refuses: its run must not record the SQL. */
const badQuery = testTask('tests.faults.bad_query', 'Requête refusée', 'Lit une table absente.', async (ctx) => {
  await ctx.database.db.execute(sql`select secret_column from no_such_table where id = 42`);
  return { result: 'jamais' };
});

describe(`storage faults (${backend})`, () => {
  const t = useTestApp({ tasks: [...TASKS, badQuery] });
  const api = apiFor(t);

  /**
   * The fault: while vigie_test_faults.active names a table, writing it fails as a full disk makes PostgreSQL fail
   * (SQLSTATE 53100); `backups` only when a backup is being completed.
   */
  beforeAll(async () => {
    await t.database.executeSql(`
      create schema vigie_test_faults;
      create table vigie_test_faults.active (table_name text primary key);
      create function vigie_test_faults.fail() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from vigie_test_faults.active where table_name = tg_table_name) then
          raise exception 'could not extend file "base/5/16385": No space left on device' using errcode = '53100';
        end if;
        return new;
      end $$;
      create trigger vigie_test_fault before update on server_processes
        for each row execute function vigie_test_faults.fail();
      create trigger vigie_test_fault before update on backups
        for each row when (new.status = 'COMPLETED') execute function vigie_test_faults.fail();`);
  });
  afterAll(async () => {
    await t.database.executeSql(`
      drop trigger vigie_test_fault on server_processes;
      drop trigger vigie_test_fault on backups;
      drop schema vigie_test_faults cascade;`);
  });
  const fault = (table: string, on: boolean) =>
    t.database.executeSql(
      on
        ? `insert into vigie_test_faults.active values ($1) on conflict do nothing`
        : `delete from vigie_test_faults.active where table_name = $1`,
      [table],
    );
  const health = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
  };

  it('a BEGIN … COMMIT text failing midway (pg-boss maintenance) leaves no stuck session; health tells the truth', async () => {
    const registry = processRegistryOf(t.database)!;
    await fault('server_processes', true);
    onTestFinished(() => fault('server_processes', false).then(() => undefined));
    // The shape of pg-boss's maintenance: one text, its own transaction, a statement that fails before COMMIT.
    await expect(
      t.database.executeSql(`BEGIN;
        SET LOCAL lock_timeout = '30s';
        UPDATE server_processes SET heartbeat_at = now();
        COMMIT;`),
    ).rejects.toMatchObject({ code: '53100' });

    // Meanwhile: this process's writes fail, and health says so in French.
    await expect(registry.beat()).rejects.toMatchObject({ cause: { code: '53100' } });
    expect(await health()).toEqual({
      status: 503,
      body: { status: 'error', database: 'down', version: expect.any(String), detail: DISK_FULL },
    });
    // Reads still work: nothing is stuck in the aborted transaction.
    expect((await api.call('analyste', 'GET', '/api/vulnerabilities/scans/')).statusCode).toBe(200);
    const status = jsonOf<{ status: string; database: Record<string, unknown> }>(
      await api.call('admin', 'GET', '/api/admin/status/'),
      200,
    );
    expect(status.status).toBe('degraded');
    expect(status.database).toMatchObject({ status: 'down', error: HEALTH_MESSAGES.writesFailing });

    // The disk is back: the next heartbeat succeeds, health is ok again and writes work.
    await fault('server_processes', false);
    await registry.beat();
    expect((await health()).status).toBe(200);
    const created = await api.call('analyste', 'POST', '/api/threats/', {
      payload: { title: 'Après la panne', severity: 'low' },
    });
    expect(created.statusCode, created.body).toBe(201);
  });

  it.skipIf(onPostgres)(
    'PGlite: a session left inside a failed transaction block is recovered by the next statement',
    async () => {
      await t.database.db.execute(sql`begin`);
      await expect(t.database.db.execute(sql`select 1 / 0`)).rejects.toThrow();
      // Without the recovery every statement would now fail with « current transaction is aborted ».
      expect((await health()).status).toBe(200);
      expect((await api.call('analyste', 'GET', '/api/vulnerabilities/scans/')).statusCode).toBe(200);
      await t.database.db.transaction(async (tx) => tx.execute(sql`select 1`));
    },
  );

  it('a task failing on a database error records a short French reason, not its SQL', async () => {
    const run = await t.jobs.launch(badQuery.name, {}, { tenantId: null, requestedBy: null });
    const done = await t.jobs.waitFor(run.id);
    expect(done.status).toBe('FAILURE');
    expect(done.meta.error).toBe(STORAGE_MESSAGES.databaseError);
    expect(JSON.stringify(done)).not.toMatch(/no_such_table|secret_column|select/i);
  });

  it('a backup failing on a database error records a short French reason, not its SQL', async () => {
    await fault('backups', true);
    try {
      const started = jsonOf<{ id: string }>(
        await api.call('admin', 'POST', '/api/admin/backups/', { payload: { note: 'Disque plein' } }),
        202,
      );
      const failed = await (async () => {
        for (const deadline = Date.now() + 25_000; Date.now() < deadline;) {
          const { backups } = jsonOf<{ backups: { id: string; status: string; error: string | null }[] }>(
            await api.call('admin', 'GET', '/api/admin/backups/'),
            200,
          );
          const row = backups.find((b) => b.id === started.id);
          if (row?.status !== 'RUNNING') return row;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      expect(failed).toMatchObject({ status: 'FAILED', error: DISK_FULL });
      // The task's run is recorded just after the backup's row: wait for it to end.
      const run = await until('the backup task run ends', async () => {
        const [row] = (
          await t.database.executeSql(`select status, meta from task_runs where args->>'backup_id' = $1`, [started.id])
        ).rows;
        return row && row.status !== 'STARTED' ? row : undefined;
      });
      expect(run).toMatchObject({ status: 'FAILURE', meta: { error: DISK_FULL } });
    } finally {
      await fault('backups', false);
    }
  });

  describe('a disk error during an upload is a 503 that says so, never a 400 that blames the client', () => {
    const refused = {
      code: 'storage_unavailable',
      detail: STORAGE_MESSAGES.disk('accès refusé au dossier de données'),
    };
    let acme: string;
    let project: number;
    beforeAll(async () => {
      ({ acme } = await seededTenants(t.database.db));
      project = await addProject(t.database.db, acme, 'Stockage en panne', { owner: 'analyste' });
      // Each folder the uploads write to points where the server may not write.
      for (const dir of ['reports', 'documents', 'backups']) {
        rmSync(path.join(t.filesDir, dir), { recursive: true, force: true });
        symlinkSync(NOT_WRITABLE, path.join(t.filesDir, dir));
      }
    });
    afterAll(() => {
      for (const dir of ['reports', 'documents', 'backups']) {
        rmSync(path.join(t.filesDir, dir), { force: true });
        mkdirSync(path.join(t.filesDir, dir));
      }
    });
    const upload = async (username: string, url: string, parts: FormPart[]) => {
      const res = await api.call(username, 'POST', url, multipart(parts));
      return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
    };

    it('scan report import', async () => {
      const file = { name: 'file', filename: 'nmap.xml', content: '<nmaprun></nmaprun>' };
      expect(await upload('analyste', '/api/vulnerabilities/scans/import/', [file])).toEqual({
        status: 503,
        body: refused,
      });
    });

    it('project document', async () => {
      const parts = [
        { name: 'project', value: String(project) },
        { name: 'file', filename: 'image.png', content: PNG },
      ];
      expect(await upload('analyste', '/api/projects/documents/', parts)).toEqual({ status: 503, body: refused });
    });

    it('blog image', async () => {
      const parts = [{ name: 'file', filename: 'image.png', content: PNG }];
      expect(await upload('manager', '/api/blog/images/', parts)).toEqual({ status: 503, body: refused });
    });

    it('backup upload', async () => {
      const parts = [{ name: 'file', filename: 'sauvegarde.tar.gz', content: Buffer.alloc(64) }];
      expect(await upload('admin', '/api/admin/backups/upload/', parts)).toEqual({ status: 503, body: refused });
    });
  });
});
