import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/build-app.ts';
import { openDatabase, type Database } from '../../server/src/db/client.ts';
import { SecretBox } from '../../server/src/lib/secret-box.ts';
import { TokenService } from '../../server/src/lib/tokens.ts';
import { jobQueueOf } from '../../server/src/services/task-queue.ts';
import type { JobQueue, TaskContext } from '../../server/src/tasks/types.ts';
import { createTestApp, onPostgres, TEST_SECRET, type TestApp } from './helpers.ts';
import { testTask } from './support/tasks.ts';

/** Which database (so which server process) ran each job. */
let executions: { id: string; database: Database }[] = [];
let running: ((ctx: TaskContext) => void) | undefined;

const counted = testTask('tests.tasks.counted', 'Tâche comptée', 'Note qui la lance.', async (ctx) => {
  executions.push({ id: ctx.taskId, database: ctx.database });
  await new Promise((r) => setTimeout(r, 100));
  return { result: 'ok' };
});

const endless = testTask('tests.tasks.endless', 'Tâche sans fin', "Tourne jusqu'à l'annulation.", async (ctx) => {
  running?.(ctx);
  await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
  throw new Error('interrompue');
});

const TASKS = [counted, endless];

/**
 * A second server process on the same PostgreSQL database: its own pool, its own app and workers, the first one's
 * data directory (processes on one database share their files).
 */
async function secondServer(
  url: string,
  filesDir: string,
): Promise<{ app: FastifyInstance; database: Database; close(): Promise<void> }> {
  const database = await openDatabase({ databaseUrl: url });
  const dir = mkdtempSync(path.join(tmpdir(), 'vigie-second-'));
  const app = await buildApp({
    database,
    tokens: new TokenService(TEST_SECRET),
    secretBox: new SecretBox('test-encryption-key'),
    staticDir: dir,
    filesDir,
    tasks: TASKS,
  });
  return {
    app,
    database,
    async close() {
      await app.close();
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// PGlite is single-process (the server locks its data dir): two workers only make sense on PostgreSQL.
describe.skipIf(!onPostgres)('background tasks with two server processes (PostgreSQL)', () => {
  let first: TestApp | undefined;
  let second: Awaited<ReturnType<typeof secondServer>> | undefined;
  afterEach(async () => {
    await second?.close();
    await first?.close();
    first = second = undefined;
  });

  async function twoServers(): Promise<[JobQueue, JobQueue, Database, Database]> {
    executions = [];
    running = undefined;
    first = await createTestApp({ tasks: TASKS });
    second = await secondServer(first.database.url!, first.filesDir);
    return [jobQueueOf(first.database)!, jobQueueOf(second.database)!, first.database, second.database];
  }

  it('runs every job exactly once while both processes take jobs from the same queue', async () => {
    const [a, b, dbA, dbB] = await twoServers();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const queue = i % 2 === 0 ? a : b;
      ids.push((await queue.launch('tests.tasks.counted', { i }, { tenantId: null, requestedBy: null })).id);
    }
    for (const id of ids) expect((await a.waitFor(id, 20_000)).status).toBe('SUCCESS');

    expect(executions.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(executions.some((e) => e.database === dbA)).toBe(true);
    expect(executions.some((e) => e.database === dbB)).toBe(true);
    for (const id of ids) expect((await b.get(id))!.meta.attempts).toBe(1);
  });

  it('stops a run in one process when another process revokes it', async () => {
    const [a, b, dbA] = await twoServers();
    const started = new Promise<TaskContext>((resolve) => (running = resolve));
    const { id } = await a.launch('tests.tasks.endless', {}, { tenantId: null, requestedBy: null });
    const ctx = await started;
    // Revoke from the process that is not running it.
    const other = ctx.database === dbA ? b : a;
    const revoked = await other.cancel(id, { by: 'manager', reason: 'Arrêt demandé' });
    expect(revoked).toMatchObject({ status: 'REVOKED', meta: { revoked_by: 'manager', reason: 'Arrêt demandé' } });
    await expect.poll(() => ctx.signal.aborted, { timeout: 3000, interval: 100 }).toBe(true);
    // The runner's end does not turn the revoke into a failure or a retry.
    await new Promise((r) => setTimeout(r, 300));
    expect((await a.get(id))!.status).toBe('REVOKED');
  });
});
