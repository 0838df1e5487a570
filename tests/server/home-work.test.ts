import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { addProject, addUser, seededTenants, userIdsOf } from './support/world.ts';

const MY_WORK = '/api/dashboard/my-work/';
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

interface HomeWork {
  work: {
    total: number;
    overdue: number;
    items: {
      kind: string;
      id: number;
      title: string;
      project: { id: number; name: string };
      due_date: string | null;
      progress: number;
      overdue: boolean;
    }[];
  };
  risks: {
    open: number;
    projects: number;
    initial: { likelihood: number; impact: number; count: number }[];
    residual: { likelihood: number; impact: number; count: number }[];
  };
}

/**
 * Issue 20, the home dashboard: each user's own unfinished tasks and corrective actions (soonest due first, overdue
 * ones said so) and the heat map of the risks in the projects they can read; nothing of another user's work, of a
 * project out of their reach or of another tenant.
 */
describe(`GET ${MY_WORK} (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let ids = new Map<string, number>();
  let mine: number;
  let closed: number;
  let horizonProject: number;

  const created = async (username: string, url: string, payload: object, tenant?: string) =>
    jsonOf<{ id: number }>(await call(username, 'POST', url, { payload, ...(tenant ? { tenant } : {}) }), 201);
  const myWork = async (username: string, tenant?: string) =>
    jsonOf<HomeWork>(await call(username, 'GET', MY_WORK, tenant ? { tenant } : {}), 200);

  beforeAll(async () => {
    const db = t.database.db;
    const { acme, horizon } = await seededTenants(db);
    await addUser(db, 'agent', [
      [acme, 'user'],
      [horizon, 'user'],
    ]);
    await addUser(db, 'collegue', [acme, 'user']);
    ids = await userIdsOf(db);
    mine = await addProject(db, acme, 'Projet de l’agent', { owner: 'agent', team: { collegue: 'MEMBER' } });
    // A project of the tenant the agent is not on: its risks are out of the agent's reach.
    closed = await addProject(db, acme, 'Projet fermé', { owner: 'manager' });
    horizonProject = await addProject(db, horizon, 'Projet Horizon', { owner: 'agent' });

    const task = (title: string, due: number | null, extra: object = {}) =>
      created('agent', '/api/projects/tasks/', {
        project: mine,
        title,
        assignee: ids.get('agent'),
        due_date: due === null ? null : dayOffset(due),
        ...extra,
      });
    await task('Tâche en retard', -3);
    await task('Tâche sans échéance', null);
    await task('Tâche terminée', -10, { status: 'DONE', progress: 100 });
    await created('agent', '/api/projects/tasks/', {
      project: mine,
      title: 'Tâche du collègue',
      assignee: ids.get('collegue'),
      due_date: dayOffset(-5),
    });
    const risk = await created('agent', '/api/projects/risks/', {
      project: mine,
      title: 'Risque',
      likelihood: 4,
      impact: 3,
    });
    await created('agent', '/api/projects/risks/', {
      project: mine,
      title: 'Risque clos',
      likelihood: 1,
      impact: 1,
      status: 'CLOSED',
    });
    const plan = await created('agent', '/api/projects/remediation-plans/', {
      risk: risk.id,
      title: 'Plan',
      target_likelihood: 2,
      target_impact: 2,
    });
    await created('agent', '/api/projects/corrective-actions/', {
      remediation_plan: plan.id,
      title: 'Action bientôt due',
      assignee: ids.get('agent'),
      due_date: dayOffset(2),
    });
    await created('manager', '/api/projects/risks/', {
      project: closed,
      title: 'Risque hors d’atteinte',
      likelihood: 2,
      impact: 2,
    });
    await created(
      'agent',
      '/api/projects/tasks/',
      { project: horizonProject, title: 'Tâche chez Horizon', assignee: ids.get('agent'), due_date: dayOffset(-1) },
      'Banque Horizon',
    );
  });

  it('lists my unfinished work, soonest due first, and counts what is overdue', async () => {
    const { work } = await myWork('agent');
    expect(work.items.map((w) => [w.kind, w.title, w.overdue])).toEqual([
      ['task', 'Tâche en retard', true],
      ['action', 'Action bientôt due', false],
      ['task', 'Tâche sans échéance', false],
    ]);
    expect(work.items[0]!.project).toEqual({ id: mine, name: 'Projet de l’agent' });
    expect(work).toMatchObject({ total: 3, overdue: 1 });
  });

  it('shows the heat map of the open risks in the projects I can read, initial and residual', async () => {
    const { risks } = await myWork('agent');
    expect(risks.open).toBe(1);
    expect(risks.projects).toBe(1);
    expect(risks.initial).toEqual([{ likelihood: 4, impact: 3, count: 1 }]);
    expect(risks.residual).toHaveLength(1);
    // A manager sees every project of the tenant, the one the agent is not on included.
    const manager = await myWork('manager');
    const managerCell = (l: number, i: number) =>
      manager.risks.initial.find((c) => c.likelihood === l && c.impact === i)?.count ?? 0;
    expect(managerCell(2, 2)).toBeGreaterThanOrEqual(1);
    expect(manager.risks.open).toBeGreaterThan(risks.open);
    expect(manager.work.items.map((w) => w.title)).not.toContain('Tâche en retard');
  });

  it('keeps to the tenant asked for, and shows a change of my work on the next read', async () => {
    const horizon = await myWork('agent', 'Banque Horizon');
    expect(horizon.work.items.map((w) => w.title)).toEqual(['Tâche chez Horizon']);
    expect(horizon.risks.open).toBe(0);

    const before = await myWork('agent');
    const late = before.work.items.find((w) => w.title === 'Tâche en retard')!;
    expect(
      (await call('agent', 'POST', `/api/projects/tasks/${late.id}/update_progress/`, { payload: { progress: 100 } }))
        .statusCode,
    ).toBe(200);
    const after = await myWork('agent');
    expect(after.work.items.map((w) => w.title)).not.toContain('Tâche en retard');
    expect(after.work).toMatchObject({ total: 2, overdue: 0 });
  });

  it('is refused without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: MY_WORK });
    expect(res.statusCode).toBe(401);
  });
});
