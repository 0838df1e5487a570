import { describe, expect, it } from 'vitest';
import { signedIn } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { testTask } from './support/tasks.ts';

const BASE = '/api/celery/tasks/';

// A platform task whose run records what only the platform's staff may read (as the backup task records its
// archive's id, checksum and row counts).
const platformBackup = testTask('tests.tasks.backup_like', 'Sauvegarde de test', 'Écrit une archive.', async (ctx) => {
  await ctx.progress(50, { backup_id: 'b-42', checksum: 'sha256:abcd' });
  return { result: 'Archive b-42 : 1200 lignes, sha256:abcd', meta: { rows: { users: 4, assets: 1196 } } };
});
const tenantWork = testTask(
  'tests.tasks.tenant_work',
  'Travail du tenant',
  'Dans l’organisation.',
  async () => ({
    result: 'ok',
    meta: { counted: 3 },
  }),
  { scope: 'tenant' },
);

describe(`platform task details are staff's only (${backend})`, () => {
  const t = useTestApp({ tasks: [platformBackup, tenantWork] });

  it('shows everyone that a platform task ran, and its result and meta to staff and superusers only', async () => {
    const admin = await signedIn(t.app, 'admin');
    const id = (await admin.post(`${BASE}run/`, { task_name: 'tests.tasks.backup_like' })).json<{ task_id: string }>()
      .task_id;
    await t.jobs.waitFor(id, 10_000);

    for (const who of ['admin', 'manager']) {
      const staff = await signedIn(t.app, who);
      const run = (await staff.get(`${BASE}${id}/`)).json();
      expect(run, who).toMatchObject({
        status: 'SUCCESS',
        result: 'Archive b-42 : 1200 lignes, sha256:abcd',
        meta: { backup_id: 'b-42', checksum: 'sha256:abcd', rows: { users: 4, assets: 1196 }, progress: 100 },
      });
    }

    for (const who of ['analyste', 'lecteur']) {
      const member = await signedIn(t.app, who);
      const one = await member.get(`${BASE}${id}/`);
      expect(one.statusCode, who).toBe(200);
      const run = one.json();
      expect(run, who).toMatchObject({ id, name: 'Sauvegarde de test', status: 'SUCCESS', result: null });
      expect(run.date_done, who).toEqual(expect.any(String));
      expect(run.meta, who).toEqual({
        duration: null,
        new_cves: 0,
        updated_cves: 0,
        error: null,
        attempts: 0,
        start_time: null,
        progress: 100,
        revoked_by: null,
        reason: null,
      });
      for (const url of [BASE, `${BASE}recent/`]) {
        const listed = (await member.get(url)).json<{ recent_tasks: Record<string, unknown>[] }>().recent_tasks;
        const seen = listed.find((r) => r.id === id)!;
        expect(seen, `${who} ${url}`).toMatchObject({ result: null, meta: { progress: 100 } });
        // Without the run's own id and dates, whose random digits may spell any of these.
        const { id: _id, date_done: _done, created_at: _created, ...shown } = seen;
        expect(JSON.stringify(shown)).not.toMatch(/b-42|sha256|1196/);
      }
    }
  });

  it('leaves a tenant task’s details to the tenant’s members', async () => {
    const analyste = await signedIn(t.app, 'analyste');
    const id = (await analyste.post(`${BASE}run/`, { task_name: 'tests.tasks.tenant_work' })).json<{
      task_id: string;
    }>().task_id;
    await t.jobs.waitFor(id, 10_000);
    expect((await analyste.get(`${BASE}${id}/`)).json()).toMatchObject({ result: 'ok', meta: { counted: 3 } });
  });
});
