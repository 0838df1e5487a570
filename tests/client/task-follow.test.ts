import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../server/helpers.ts';
import { testTask } from '../server/support/tasks.ts';
import { useVigieClient } from './harness.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { fetchTask, launchTask, type BackgroundTask } from '../../src/features/tasks/tasks-api.ts';
import { isRunning } from '../../src/features/tasks/task-rules.ts';
import type { ApiError } from '../../src/lib/api-client.ts';

let release: () => void = () => {};

/** Reports progress, then waits for the test to let it finish. */
const gated = testTask('tests.tasks.gated', 'Tâche contrôlée', 'Attend le feu vert du test.', async (ctx) => {
  await ctx.progress(40, { new_cves: 5 });
  await new Promise<void>((resolve) => {
    release = resolve;
    ctx.signal.addEventListener('abort', () => resolve());
  });
  return { result: 'Terminé : 7 CVE', meta: { new_cves: 7 } };
});

const { seen } = useVigieClient('/tasks', { tasks: [gated] });

/** Reads the run by its id, as the tasks page does every 2 s, until `until` holds (5 s at most). */
async function followUntil(id: string, until: (t: BackgroundTask) => boolean): Promise<BackgroundTask> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const { data } = await fetchTask(id);
    if (until(data) || Date.now() > deadline) return data;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('following a launched task by its own status (GET /api/celery/tasks/{id}/) on the Vigie server', () => {
  it('reads the run started, with its progress, then ended with its result', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    const { data: launched, origin } = await launchTask('tests.tasks.gated');
    expect(origin.source).not.toBe('sample');
    expect(launched).toMatchObject({ task_name: 'tests.tasks.gated', status: 'PENDING' });
    const id = launched.task_id!;
    seen.requests.length = 0;

    const started = await followUntil(id, (t) => t.status === 'STARTED' && t.meta?.progress === 40);
    expect(started).toMatchObject({ id, status: 'STARTED', meta: { progress: 40 } });
    expect(isRunning(started.status)).toBe(true);

    release();
    const ended = await followUntil(id, (t) => !isRunning(t.status));
    expect(ended).toMatchObject({ id, status: 'SUCCESS', result: 'Terminé : 7 CVE' });
    expect(new Set(seen.requests.map((r) => `${r.method} ${r.path}`))).toEqual(
      new Set([`GET /api/celery/tasks/${id}/`]),
    );
  });

  it('an unknown run is a 404 « Tâche introuvable. », which ends the follow-up', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    const err = await fetchTask('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e as ApiError);
    expect(err).toMatchObject({ status: 404, message: 'Tâche introuvable.' });
    expect(seen.navigations).toEqual([]);
  });
});
