import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/db/client.ts';
import { INTERRUPTED_BACKUP_MESSAGE } from '../../server/src/services/backups.ts';
import { INTERRUPTED_SCAN_MESSAGE } from '../../server/src/services/scan-import.ts';
import { INTERRUPTED_MESSAGE } from '../../server/src/services/task-queue.ts';
import { freshDatabase, onPostgres } from './helpers.ts';
import { backend } from './support/app.ts';
import { multipart } from './support/http.ts';
import { afterThisTest, client, startServer, until } from './support/processes.ts';

const REPORT = readFileSync(path.resolve('seed-data/scans/trivy/image_alpine_scheme2.json'));

describe(`kill -9 during a scan import and a backup (${backend})`, () => {
  it('the next process settles both at once, removes the leftovers, and restores work again', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'vigie-kill-'));
    const staticDir = mkdtempSync(path.join(tmpdir(), 'vigie-kill-static-'));
    afterThisTest(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(staticDir, { recursive: true, force: true });
    });
    // The seeded demo data: on PGlite a data folder made from the test template (no first-start seeding and CVE
    // import), on PostgreSQL a fresh database both processes open.
    const fresh = await freshDatabase();
    const env: Record<string, string> = {
      VIGIE_DATA_DIR: dataDir,
      VIGIE_STATIC_DIR: staticDir,
      VIGIE_HEARTBEAT_INTERVAL_MS: '250',
    };
    if (onPostgres) {
      env.DATABASE_URL = fresh.url!;
      afterThisTest(fresh.drop);
    } else {
      const template = await fresh.database.dumpDataDir!();
      await fresh.drop();
      const folder = await openDatabase({ dataDir: path.join(dataDir, 'pglite'), pgliteTemplate: template });
      await folder.close();
    }
    const backupsDir = path.join(dataDir, 'backups');

    // The first process hangs reading the stored report, and writing the backup's archive. (Not started together
    // with the next one on PostgreSQL: that one could take the jobs first, and it does not hang.)
    const first = await startServer({ ...env, VIGIE_TEST_STALL_FILES: String.raw`/reports/[\w-]+\.json$|\.part$` });
    const analyst = await client(first, 'analyste');
    const admin = await client(first, 'admin');
    const imported = await analyst('POST', '/api/vulnerabilities/scans/import/', {
      ...multipart([{ name: 'file', filename: 'alpine.json', content: REPORT, type: 'application/json' }]),
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const scanId = imported.body.id as number;
    // The task has started: it set the scan's first progress, then hangs reading the report.
    const taskId = await until('the scan task started', async () => {
      const scan = (await analyst('GET', `/api/vulnerabilities/scans/${scanId}/`)).body;
      return scan.status === 'RUNNING' && scan.progress === 10 ? (scan.task_id as string) : undefined;
    });
    const started = await admin('POST', '/api/admin/backups/', { note: 'Interrompue par kill -9' });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const backupId = started.body.id as string;
    const backupFile = started.body.filename as string;
    // Files only: on PGlite the backup's snapshot transaction holds the one connection from here on.
    await until('the backup writing its archive', async () =>
      existsSync(path.join(backupsDir, `.${backupFile}.part`)) &&
      existsSync(path.join(backupsDir, `.vigie-backup-work-${backupId}`))
        ? true
        : undefined,
    );

    await first.kill('SIGKILL');
    const killedAt = Date.now();

    const second = await startServer(env);
    const analyst2 = await client(second, 'analyste');
    const admin2 = await client(second, 'admin');
    const settled = await until(
      'the scan and the backup in a final state',
      async () => {
        const scan = (await analyst2('GET', `/api/vulnerabilities/scans/${scanId}/`)).body;
        const backups = (await admin2('GET', '/api/admin/backups/')).body.backups as Record<string, unknown>[];
        const backup = backups.find((b) => b.id === backupId);
        return scan.status !== 'RUNNING' && backup?.status !== 'RUNNING' ? { scan, backup } : undefined;
      },
      60_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect(settled.scan).toMatchObject({ status: 'FAILED', error: INTERRUPTED_SCAN_MESSAGE });
    expect(settled.backup).toMatchObject({ status: 'FAILED', error: INTERRUPTED_BACKUP_MESSAGE });
    const task = (await analyst2('GET', `/api/celery/tasks/${taskId}/`)).body;
    expect(task).toMatchObject({ status: 'FAILURE', meta: { error: INTERRUPTED_MESSAGE } });
    // What the backup had written is gone.
    expect(readdirSync(backupsDir).filter((name) => name.startsWith('.'))).toEqual([]);

    // Restores are possible again: a new backup completes and restores.
    const next = await admin2('POST', '/api/admin/backups/', { note: 'Après le redémarrage' });
    expect(next.status).toBe(202);
    await until('the new backup completed', async () => {
      const backups = (await admin2('GET', '/api/admin/backups/')).body.backups as Record<string, unknown>[];
      const status = backups.find((b) => b.id === next.body.id)?.status;
      if (status === 'FAILED') throw new Error(`backup failed: ${JSON.stringify(backups)}`);
      return status === 'COMPLETED' ? true : undefined;
    });
    const restored = await admin2('POST', `/api/admin/backups/${next.body.id as string}/restore/`, {
      confirm: 'RESTAURER',
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);

    await second.kill('SIGINT');
  }, 120_000);
});
