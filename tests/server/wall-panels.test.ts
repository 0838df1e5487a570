import { beforeAll, describe, expect, it } from 'vitest';
import { notifications, risks } from '../../server/src/db/schema.ts';
import { apiFor, jsonOf, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { screenOf } from './support/displays.ts';
import { addProject, addTenant, addUser, seededTenants, userIdOf } from './support/world.ts';

// A wall's « Carte des risques » and « Dernières alertes » panels (issue 22, docs/displays.md): what a person's kiosk
// and a paired screen read, and what they must never show (another tenant's data, somebody's personal notices).

interface RiskMap {
  risks: {
    open: number;
    projects: number;
    initial: { likelihood: number; impact: number; count: number }[];
    residual: { likelihood: number; impact: number; count: number }[];
  };
  generated_at: string;
}
interface WallEvents {
  results: { id: number; kind: string; level: string; title: string; link: string | null; created_at: string }[];
  generated_at: string;
}

describe(`wall panels: risk heat map and last events (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);
  const screen = screenOf(() => t.app);
  let wall: string;
  let acme: string;
  let token: string;

  beforeAll(async () => {
    const db = t.database.db;
    ({ acme } = await seededTenants(db));
    wall = (await addTenant(db, { name: 'Mur Test', domain: 'mur-test.example' })).id;
    await addUser(db, 'chef-mur', [wall, 'manager']);
    await addUser(db, 'equipe-mur', [wall, 'user']);
    await addUser(db, 'autre-mur', [wall, 'user']);
    await addUser(db, 'chef-acme-mur', [acme, 'manager']);

    // Two projects: the team member is on the first only.
    const shared = await addProject(db, wall, 'Projet partagé', {
      owner: 'chef-mur',
      team: { 'equipe-mur': 'MEMBER' },
    });
    const hidden = await addProject(db, wall, 'Projet confidentiel', { owner: 'chef-mur' });
    const risk = (
      projectId: number,
      likelihood: number,
      impact: number,
      status: 'IDENTIFIED' | 'CLOSED' = 'IDENTIFIED',
    ) => ({
      tenantId: wall,
      projectId,
      title: `Risque ${likelihood}×${impact}`,
      likelihood,
      impact,
      residualLikelihood: 1,
      residualImpact: impact,
      status,
    });
    await db
      .insert(risks)
      .values([risk(shared, 4, 4), risk(shared, 4, 4), risk(hidden, 2, 3), risk(hidden, 1, 1, 'CLOSED')]);
    // Another tenant's risk, never on this wall.
    const elsewhere = await addProject(db, acme, 'Projet ailleurs', { owner: 'chef-acme-mur' });
    await db.insert(risks).values({ ...risk(elsewhere, 3, 3), tenantId: acme });

    // Notifications: a KEV match sent to two people (one event), a personal assignment, an old task failure, a
    // fresh one, and another tenant's KEV match.
    const chef = await userIdOf(db, 'chef-mur');
    const autre = await userIdOf(db, 'autre-mur');
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    await db.insert(notifications).values([
      ...[chef, autre].map((userId) => ({
        tenantId: wall,
        userId,
        kind: 'kev_match' as const,
        level: 'critical' as const,
        title: 'CVE-2024-3400 activement exploitée (catalogue KEV)',
        link: '/vulnerabilities/list?text=CVE-2024-3400',
        dedupeKey: 'kev:CVE-2024-3400',
        createdAt: daysAgo(1),
      })),
      {
        tenantId: wall,
        userId: autre,
        kind: 'task_assigned' as const,
        title: 'Tâche confiée : entretien annuel de autre-mur',
        link: '/projects/1',
        createdAt: daysAgo(0.5),
      },
      {
        tenantId: wall,
        userId: chef,
        kind: 'task_failed' as const,
        level: 'critical' as const,
        title: 'Échec de la tâche « Import très ancien »',
        dedupeKey: 'task_failed:old',
        createdAt: daysAgo(40),
      },
      {
        tenantId: wall,
        userId: chef,
        kind: 'task_failed' as const,
        level: 'critical' as const,
        title: 'Échec de la tâche « Import NVD »',
        link: '/tasks',
        dedupeKey: 'task_failed:nvd',
        createdAt: daysAgo(0.25),
      },
      {
        tenantId: acme,
        userId: await userIdOf(db, 'chef-acme-mur'),
        kind: 'kev_match' as const,
        level: 'critical' as const,
        title: 'CVE-2099-0001 chez Acme (catalogue KEV)',
        dedupeKey: 'kev:CVE-2099-0001',
        createdAt: daysAgo(0.1),
      },
    ]);

    // A manager's message to everyone (one event) and one to a single person (personal: never on the wall).
    const send = (payload: Record<string, unknown>) =>
      api.call('chef-mur', 'POST', '/api/notifications/notifications/', { payload, tenant: wall });
    jsonOf(await send({ title: 'Exercice de crise à 15 h', level: 'warning' }), 201);
    jsonOf(await send({ title: 'Votre évaluation annuelle', user: autre }), 201);

    const p = await screen.pair();
    jsonOf(
      await api.call('chef-mur', 'POST', '/api/displays/', { payload: { code: p.code, name: 'Mur' }, tenant: wall }),
      201,
    );
    ({ token } = jsonOf<{ token: string }>(await screen.poll(p), 200));
  });

  const cellsOf = (m: RiskMap['risks']['initial']) => m.map((c) => `${c.likelihood}×${c.impact}:${c.count}`);

  describe('risk heat map', () => {
    it('shows a paired screen every open risk of its tenant, and nothing of another', async () => {
      const map = jsonWithFields<RiskMap>(await screen.as(token, 'GET', '/api/dashboard/risks/'), 200, [
        'risks',
        'generated_at',
      ]);
      expect(map.risks).toMatchObject({ open: 3, projects: 2 });
      expect(cellsOf(map.risks.initial)).toEqual(['2×3:1', '4×4:2']);
      expect(cellsOf(map.risks.residual)).toEqual(['1×3:1', '1×4:2']);
    });

    it('shows a person the risks of the projects they can read', async () => {
      const manager = jsonOf<RiskMap>(
        await api.call('chef-mur', 'GET', '/api/dashboard/risks/', { tenant: wall }),
        200,
      );
      expect(manager.risks).toMatchObject({ open: 3, projects: 2 });
      const member = jsonOf<RiskMap>(
        await api.call('equipe-mur', 'GET', '/api/dashboard/risks/', { tenant: wall }),
        200,
      );
      expect(member.risks).toMatchObject({ open: 2, projects: 1 });
      expect(cellsOf(member.risks.initial)).toEqual(['4×4:2']);
      // Not a member of any project: an empty map, not the manager's kept answer.
      const other = jsonOf<RiskMap>(await api.call('autre-mur', 'GET', '/api/dashboard/risks/', { tenant: wall }), 200);
      expect(other.risks).toEqual({ open: 0, projects: 0, initial: [], residual: [] });
    });

    it('is refused without a session or a device credential', async () => {
      expect((await t.app.inject({ method: 'GET', url: '/api/dashboard/risks/' })).statusCode).toBe(401);
    });
  });

  describe('last events', () => {
    it('lists the team’s events once each, newest first, without anybody’s personal notices', async () => {
      const events = jsonWithFields<WallEvents>(await screen.as(token, 'GET', '/api/dashboard/events/'), 200, [
        'results',
        'generated_at',
      ]);
      expect(events.results.map((e) => [e.kind, e.level, e.title])).toEqual([
        ['message', 'warning', 'Exercice de crise à 15 h'],
        ['task_failed', 'critical', 'Échec de la tâche « Import NVD »'],
        ['kev_match', 'critical', 'CVE-2024-3400 activement exploitée (catalogue KEV)'],
      ]);
      expect(events.results[2]?.link).toBe('/vulnerabilities/list?text=CVE-2024-3400');
      for (const e of events.results)
        expect(Object.keys(e).sort()).toEqual(['created_at', 'id', 'kind', 'level', 'link', 'title']);
      // A person reads the same tenant events: not their inbox.
      const member = jsonOf<WallEvents>(
        await api.call('equipe-mur', 'GET', '/api/dashboard/events/', { tenant: wall }),
        200,
      );
      expect(member.results.map((e) => e.title)).toEqual(events.results.map((e) => e.title));
    });

    it('shows a new broadcast at the next read (events are not kept)', async () => {
      jsonOf(
        await api.call('chef-mur', 'POST', '/api/notifications/notifications/', {
          payload: { title: 'Fin de l’exercice', level: 'info' },
          tenant: wall,
        }),
        201,
      );
      const events = jsonOf<WallEvents>(await screen.as(token, 'GET', '/api/dashboard/events/'), 200);
      expect(events.results[0]).toMatchObject({ kind: 'message', level: 'info', title: 'Fin de l’exercice' });
      expect(events.results.filter((e) => e.title === 'Fin de l’exercice')).toHaveLength(1);
    });

    it('keeps each tenant’s events to itself', async () => {
      const acmeEvents = jsonOf<WallEvents>(
        await api.call('chef-acme-mur', 'GET', '/api/dashboard/events/', { tenant: acme }),
        200,
      );
      expect(acmeEvents.results.map((e) => e.title)).toContain('CVE-2099-0001 chez Acme (catalogue KEV)');
      expect(acmeEvents.results.map((e) => e.title)).not.toContain('Exercice de crise à 15 h');
      // The screen paired for « Mur Test » cannot name Acme.
      expect((await screen.as(token, 'GET', '/api/dashboard/events/', { tenant: acme })).statusCode).toBe(403);
    });
  });
});
