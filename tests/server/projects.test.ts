import { and, count, desc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assets,
  correctiveActions,
  projectActivity,
  projectAssets,
  projectDocuments,
  projectMembers,
  projects,
  projectTasks,
  projectThreats,
  projectVulnerabilities,
  remediationPlans,
  risks,
  threats,
  users,
  vulnerabilities,
  type MembershipRole,
} from '../../server/src/db/schema.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { PROJECT_SPEC_FIELDS, TEAM_MEMBER_FIELDS } from './support/contract.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addUser, auditEventsOf, seededTenants, userIdsOf, type TenantName } from './support/world.ts';

const LIST = '/api/projects/';
const PROJECT_FIELDS = [...PROJECT_SPEC_FIELDS, 'access'].sort();
const MEMBER_FIELDS = [...TEAM_MEMBER_FIELDS].sort();
const DEMO_NAME = 'Audit de sécurité — Vernier Distribution (portail clients et accès distants)';

interface TeamMember {
  id: number;
  name: string;
  email: string;
  role: string;
  is_owner: boolean;
  last_active: string | null;
}
interface Project {
  id: number;
  name: string;
  description: string;
  status: string;
  priority: string;
  completion_percentage: number;
  start_date: string | null;
  deadline: string | null;
  created_at: string;
  updated_at: string;
  assets: number[];
  vulnerabilities: number[];
  tasks: number[];
  team_members: TeamMember[];
  owner: { id: number; name: string; email: string } | null;
  is_active: boolean;
  access: string;
}
interface Page {
  count: number;
  next: string | null;
  previous: string | null;
  results: Project[];
}

// Extra accounts (password TEST_PASSWORD): their tenant roles in Acme, or in Horizon only.
const EXTRA_USERS: {
  username: string;
  firstName: string;
  lastName: string;
  role: MembershipRole;
  tenant?: 'horizon';
}[] = [
  { username: 'chef', firstName: 'Julie', lastName: 'Garnier', role: 'user' },
  { username: 'membre', firstName: 'Karim', lastName: 'Benali', role: 'user' },
  { username: 'observateur', firstName: 'Léa', lastName: 'Martin', role: 'user' },
  { username: 'intrus', firstName: 'Paul', lastName: 'Roux', role: 'user' },
  { username: 'auditeur', firstName: 'Inès', lastName: 'Faure', role: 'readonly' },
  { username: 'tadmin', firstName: 'Hugo', lastName: 'Blanc', role: 'admin' },
  { username: 'tmanager', firstName: 'Nora', lastName: 'Petit', role: 'manager' },
  { username: 'banquier', firstName: 'Yves', lastName: 'Lambert', role: 'user', tenant: 'horizon' },
];

describe(`projects API (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let userIds = new Map<string, number>();
  let acme: string;
  let horizon: string;

  const create = async (username: string, payload: Record<string, unknown>) =>
    jsonOf<Project>(await call(username, 'POST', LIST, { payload }), 201);

  const addMember = async (projectId: number, username: string, role: string, by = 'manager') => {
    const res = await call(by, 'POST', `${LIST}${projectId}/add_team_member/`, {
      payload: { user_id: userIds.get(username), role },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res;
  };

  const list = async (username: string, query = '', tenant?: TenantName) =>
    jsonOf<Page>(await call(username, 'GET', `${LIST}${query}`, tenant ? { tenant } : {}), 200);

  /** A risk with a plan and one corrective action per progress, inserted directly (the work API is elsewhere). */
  const insertRiskWithActions = async (
    projectId: number,
    actions: { progress: number; dueDate?: string | null; title?: string }[],
    risk: Partial<typeof risks.$inferInsert> = {},
  ) => {
    const [r] = await t.database.db
      .insert(risks)
      .values({
        tenantId: acme,
        projectId,
        title: 'Risque de test',
        likelihood: 3,
        impact: 3,
        residualLikelihood: 3,
        residualImpact: 3,
        ...risk,
      })
      .returning({ id: risks.id });
    const [plan] = await t.database.db
      .insert(remediationPlans)
      .values({ tenantId: acme, riskId: r!.id, title: 'Plan de test', targetLikelihood: 1, targetImpact: 1 })
      .returning({ id: remediationPlans.id });
    const rows =
      actions.length === 0
        ? []
        : await t.database.db
            .insert(correctiveActions)
            .values(
              actions.map((a, i) => ({
                tenantId: acme,
                planId: plan!.id,
                title: a.title ?? `Action ${i + 1}`,
                progress: a.progress,
                dueDate: a.dueDate ?? null,
              })),
            )
            .returning({ id: correctiveActions.id });
    return { riskId: r!.id, planId: plan!.id, actionIds: rows.map((a) => a.id) };
  };

  const insertTasks = async (projectId: number, tasks: Partial<typeof projectTasks.$inferInsert>[]) =>
    (
      await t.database.db
        .insert(projectTasks)
        .values(tasks.map((task, i) => ({ tenantId: acme, projectId, title: `Tâche ${i + 1}`, ...task })))
        .returning({ id: projectTasks.id })
    ).map((r) => r.id);

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    for (const { username, firstName, lastName, role, tenant } of EXTRA_USERS) {
      await addUser(t.database.db, username, [tenant === 'horizon' ? horizon : acme, role], {
        email: `${username}@exemple.fr`,
        firstName,
        lastName,
      });
    }
    userIds = await userIdsOf(t.database.db);
  });

  describe('demo seed', () => {
    it('shows the Acme audit to its team member analyste, with its team, links and progress', async () => {
      const page = await list('analyste');
      const demo = page.results.find((p) => p.name === DEMO_NAME);
      expect(demo).toBeDefined();
      expect(demo).toMatchObject({ status: 'IN_PROGRESS', priority: 'HIGH', access: 'edit', is_active: true });
      expect(demo!.owner).toEqual({
        id: userIds.get('manager'),
        name: 'Claire Dubois',
        email: 'claire.dubois@acme-securite.fr',
      });
      expect(demo!.team_members.map((m) => [m.name, m.role, m.is_owner])).toEqual([
        ['Claire Dubois', 'ADMIN', true],
        ['Marc Lefèvre', 'MEMBER', false],
      ]);
      expect(demo!.assets).toHaveLength(4);
      expect(demo!.vulnerabilities.length).toBeGreaterThan(0);
      expect(demo!.tasks).toHaveLength(5);
      // Tasks 100, 60, 30, 10, 0 and actions 100, 40, 0, 100, 40: 480 / 10.
      expect(demo!.completion_percentage).toBe(48);

      const dash = await call('analyste', 'GET', `${LIST}${demo!.id}/dashboard/`);
      expect(dash.statusCode).toBe(200);
      const d = dash.json();
      expect(d.counts).toMatchObject({ assets: 4, threats: 1, risks: 4, tasks: 5, corrective_actions: 5 });
      expect(d.risks_by_level).toEqual({ low: 0, medium: 2, high: 1, critical: 1 });
      expect(d.overdue.tasks.map((x: { title: string }) => x.title)).toEqual([
        'Revue de configuration du pare-feu et du VPN',
      ]);
      expect(d.overdue.corrective_actions).toHaveLength(2);
      expect(d.recent_activity.length).toBeGreaterThan(3);
    });

    it('keeps the Acme audit from lecteur; Horizon has its own project in planning', async () => {
      const acmeDemo = (await list('analyste')).results.find((p) => p.name === DEMO_NAME)!;
      const res = await call('lecteur', 'GET', `${LIST}${acmeDemo.id}/`);
      expect(res.statusCode).toBe(404);
      const horizonPage = await list('lecteur');
      expect(horizonPage.results.map((p) => p.name)).toEqual(['Mise en conformité DORA — gestion des risques TIC']);
      expect(horizonPage.results[0]).toMatchObject({ status: 'PLANNING', priority: 'MEDIUM', access: 'read' });
      expect((await list('intrus')).results.find((p) => p.name === DEMO_NAME)).toBeUndefined();
    });
  });

  describe('creating and reading', () => {
    it('creates a project whose creator is owner and ADMIN member, with every contract field', async () => {
      const p = await create('membre', {
        name: '  Revue du plan de continuité  ',
        description: 'Exercice de bascule du SI de secours.',
        status: 'PLANNING',
        priority: 'critical',
        start_date: '2030-01-10',
        deadline: '2030-03-31',
      });
      expect(Object.keys(p).sort()).toEqual(PROJECT_FIELDS);
      expect(p).toMatchObject({
        name: 'Revue du plan de continuité',
        status: 'PLANNING',
        priority: 'CRITICAL',
        completion_percentage: 0,
        start_date: '2030-01-10',
        deadline: '2030-03-31',
        assets: [],
        vulnerabilities: [],
        tasks: [],
        is_active: true,
        access: 'manage',
      });
      expect(p.owner).toEqual({ id: userIds.get('membre'), name: 'Karim Benali', email: 'membre@exemple.fr' });
      expect(p.team_members).toHaveLength(1);
      expect(Object.keys(p.team_members[0]!).sort()).toEqual(MEMBER_FIELDS);
      expect(p.team_members[0]).toMatchObject({ id: userIds.get('membre'), role: 'ADMIN', is_owner: true });
      expect(Date.parse(p.team_members[0]!.last_active!)).toBeGreaterThan(Date.now() - 60_000);

      const detail = await call('membre', 'GET', `${LIST}${p.id}/`);
      expect(detail.statusCode).toBe(200);
      expect(detail.json()).toEqual(p);
      const listed = (await list('membre', '?text=continuit')).results.find((x) => x.id === p.id);
      expect(listed).toEqual(p);

      const defaults = await create('membre', { name: 'Projet minimal' });
      expect(defaults).toMatchObject({ status: 'PLANNED', priority: 'MEDIUM', start_date: null, deadline: null });
      const activity = await t.database.db
        .select()
        .from(projectActivity)
        .where(eq(projectActivity.projectId, defaults.id));
      expect(activity).toMatchObject([
        { action: 'created', objectType: 'project', summary: 'Projet « Projet minimal » créé' },
      ]);
      const [audit] = await auditEventsOf(t.database.db, { description: 'Projet « Projet minimal » créé' });
      expect(audit).toMatchObject({ eventType: 'data_change', username: 'membre', tenantId: acme });
      expect(audit!.details).toMatchObject({ project_id: defaults.id });
    });

    it('refuses bad input with French field errors', async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [{}, 'name', 'Le nom du projet est requis.'],
        [{ name: '   ' }, 'name', 'Le nom du projet est requis.'],
        [{ name: 'x'.repeat(201) }, 'name', 'Le nom ne doit pas dépasser 200 caractères.'],
        [
          { name: 'P', status: 'DONE' },
          'status',
          'Statut invalide. Valeurs possibles : PLANNED, PLANNING, IN_PROGRESS, ON_HOLD, COMPLETED, CANCELLED.',
        ],
        [
          { name: 'P', priority: 'URGENT' },
          'priority',
          'Priorité invalide. Valeurs possibles : LOW, MEDIUM, HIGH, CRITICAL.',
        ],
        [{ name: 'P', start_date: '2030-02-30' }, 'start_date', 'Date invalide : le format attendu est AAAA-MM-JJ.'],
        [{ name: 'P', deadline: '31/12/2030' }, 'deadline', 'Date invalide : le format attendu est AAAA-MM-JJ.'],
        [
          { name: 'P', start_date: '2030-05-02', deadline: '2030-05-01' },
          'deadline',
          'L’échéance ne peut pas précéder la date de début.',
        ],
        [
          { name: 'P', owner_id: 1 },
          'owner_id',
          'Le créateur du projet en devient le propriétaire ; le propriétaire se change ensuite.',
        ],
      ];
      for (const [payload, field, message] of cases) {
        const res = await call('analyste', 'POST', LIST, { payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json()).toEqual({ detail: message, code: 'invalid', fields: { [field]: [message] } });
      }
      // Several mistakes at once are all reported.
      const many = await call('analyste', 'POST', LIST, { payload: { status: 'X', priority: 'Y' } });
      expect(Object.keys(many.json().fields).sort()).toEqual(['name', 'priority', 'status']);
      // Unknown fields and wrong types are refused by the schema, never a 500.
      expect((await call('analyste', 'POST', LIST, { payload: { name: 'P', budget: 1 } })).statusCode).toBe(400);
      expect((await call('analyste', 'POST', LIST, { payload: { name: 42 } })).statusCode).toBe(400);
      // Same-day deadline is fine.
      await create('analyste', { name: 'Un jour', start_date: '2030-05-02', deadline: '2030-05-02' });
    });

    it('lets only tenant members who may write create projects', async () => {
      const res = await call('lecteur', 'POST', LIST, { payload: { name: 'Interdit' } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
      const auditeur = await call('auditeur', 'POST', LIST, { payload: { name: 'Interdit' } });
      expect(auditeur.statusCode).toBe(403);
      const anonymous = await t.app.inject({ method: 'POST', url: LIST, payload: { name: 'Anonyme' } });
      expect(anonymous.statusCode).toBe(401);
      const [{ n }] = (await t.database.db
        .select({ n: count() })
        .from(projects)
        .where(eq(projects.name, 'Interdit'))) as [{ n: number }];
      expect(n).toBe(0);
    });
  });

  describe('status transitions', () => {
    it('follows the contract’s lifecycle and refuses other changes with fields.status', async () => {
      const p = await create('chef', { name: 'Cycle de vie', status: 'PLANNED' });
      const patch = (payload: Record<string, unknown>) => call('chef', 'PATCH', `${LIST}${p.id}/`, { payload });
      const steps: [string, number][] = [
        ['PLANNING', 200],
        ['PLANNED', 200],
        ['COMPLETED', 400],
        ['ON_HOLD', 200],
        ['COMPLETED', 400],
        ['PLANNED', 400],
        ['IN_PROGRESS', 200],
        ['PLANNED', 400],
        ['COMPLETED', 200],
        ['CANCELLED', 400],
        ['IN_PROGRESS', 200],
        ['CANCELLED', 200],
        ['IN_PROGRESS', 400],
        ['PLANNED', 200],
        ['CANCELLED', 200],
      ];
      let current = 'PLANNED';
      for (const [status, code] of steps) {
        const res = await patch({ status });
        expect(res.statusCode, `${current} → ${status}: ${res.body}`).toBe(code);
        if (code === 200) {
          expect(res.json().status).toBe(status);
          current = status;
        } else {
          expect(Object.keys(res.json().fields)).toEqual(['status']);
          expect(res.json().detail).toMatch(/^Changement de statut impossible/);
        }
      }
      // The same status again is no change at all.
      expect((await patch({ status: 'CANCELLED' })).statusCode).toBe(200);
      const stored = await call('chef', 'GET', `${LIST}${p.id}/`);
      expect(stored.json().status).toBe('CANCELLED');
    });

    it('checks the dates against the stored ones and keeps absent fields on PUT', async () => {
      const p = await create('chef', {
        name: 'Dates',
        description: 'Garder',
        priority: 'HIGH',
        start_date: '2030-06-01',
        deadline: '2030-06-30',
      });
      const early = await call('chef', 'PATCH', `${LIST}${p.id}/`, { payload: { deadline: '2030-05-31' } });
      expect(early.statusCode).toBe(400);
      expect(early.json().fields).toEqual({ deadline: ['L’échéance ne peut pas précéder la date de début.'] });
      const late = await call('chef', 'PATCH', `${LIST}${p.id}/`, { payload: { start_date: '2030-07-01' } });
      expect(late.statusCode).toBe(400);
      const cleared = await call('chef', 'PATCH', `${LIST}${p.id}/`, { payload: { deadline: null } });
      expect(cleared.json()).toMatchObject({ deadline: null, start_date: '2030-06-01' });
      const noName = await call('chef', 'PUT', `${LIST}${p.id}/`, { payload: { description: 'x' } });
      expect(noName.statusCode).toBe(400);
      expect(noName.json().fields).toEqual({ name: ['Le nom du projet est requis.'] });
      const put = await call('chef', 'PUT', `${LIST}${p.id}/`, { payload: { name: 'Dates v2', is_active: false } });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ name: 'Dates v2', description: 'Garder', priority: 'HIGH', is_active: false });
      expect(Date.parse(put.json().updated_at)).toBeGreaterThan(Date.parse(p.updated_at));
      // A Project sent back as read is accepted: its read-only fields are ignored.
      const roundTrip = await call('chef', 'PUT', `${LIST}${p.id}/`, {
        payload: { ...put.json<Project>(), name: 'Dates v3' },
      });
      expect(roundTrip.statusCode, roundTrip.body).toBe(200);
      expect(roundTrip.json().name).toBe('Dates v3');
    });
  });

  describe('who may do what', () => {
    let p: Project;
    beforeAll(async () => {
      p = await create('chef', { name: 'Droits d’accès' });
      await addMember(p.id, 'membre', 'MEMBER', 'chef');
      await addMember(p.id, 'observateur', 'VIEWER', 'chef');
      await addMember(p.id, 'auditeur', 'ADMIN', 'chef');
    });

    it('gives each caller the access of the contract’s table', async () => {
      const expected: [string, string | null][] = [
        ['chef', 'manage'], // owner
        ['membre', 'edit'],
        ['observateur', 'read'],
        ['auditeur', 'read'], // tenant readonly, even as team ADMIN
        ['intrus', null], // tenant user not on the team
        ['tadmin', 'manage'],
        ['tmanager', 'manage'],
        ['manager', 'manage'], // staff
        ['admin', 'manage'], // superuser
      ];
      for (const [username, access] of expected) {
        const res = await call(username, 'GET', `${LIST}${p.id}/`);
        const inList = (await list(username, '?text=Droits')).results.find((x) => x.id === p.id);
        if (access === null) {
          expect(res.statusCode, username).toBe(404);
          expect(res.json()).toEqual(NOT_FOUND);
          expect(inList, username).toBeUndefined();
        } else {
          expect(res.statusCode, username).toBe(200);
          expect(res.json().access, username).toBe(access);
          expect(inList?.access, username).toBe(access);
        }
      }
    });

    it('lets edit change fields, keeps owner and team changes to manage, and audits refusals', async () => {
      const patch = (username: string, payload: Record<string, unknown>) =>
        call(username, 'PATCH', `${LIST}${p.id}/`, { payload });
      expect((await patch('membre', { description: 'Par un membre' })).statusCode).toBe(200);
      const viewer = await patch('observateur', { description: 'Non' });
      expect(viewer.statusCode).toBe(403);
      expect(viewer.json()).toEqual(FORBIDDEN);
      expect((await patch('auditeur', { description: 'Non' })).statusCode).toBe(403);
      expect((await patch('intrus', { description: 'Non' })).statusCode).toBe(404);
      // The owner is for manage: a MEMBER may not change it, even to themselves.
      const owner = await patch('membre', { owner_id: userIds.get('membre') });
      expect(owner.statusCode).toBe(403);
      const teamChange = await call('membre', 'POST', `${LIST}${p.id}/add_team_member/`, {
        payload: { user_id: userIds.get('intrus') },
      });
      expect(teamChange.statusCode).toBe(403);
      expect((await call('membre', 'DELETE', `${LIST}${p.id}/`)).statusCode).toBe(403);
      expect((await call('observateur', 'GET', `${LIST}${p.id}/dashboard/`)).statusCode).toBe(200);
      expect((await call('observateur', 'GET', `${LIST}${p.id}/team-members/`)).statusCode).toBe(200);
      expect((await call('intrus', 'GET', `${LIST}${p.id}/dashboard/`)).statusCode).toBe(404);
      expect((await call('intrus', 'GET', `${LIST}${p.id}/team-members/`)).statusCode).toBe(404);
      expect((await call('intrus', 'DELETE', `${LIST}${p.id}/`)).statusCode).toBe(404);

      const refusals = await auditEventsOf(t.database.db, { eventType: 'permission_denied', username: 'membre' });
      expect(refusals.map((r) => r.details.need).sort()).toEqual(['manage', 'manage', 'manage']);
      expect(refusals[0]!.details).toMatchObject({ project_id: p.id, success: false });
      const stored = await call('chef', 'GET', `${LIST}${p.id}/`);
      expect(stored.json()).toMatchObject({ description: 'Par un membre', owner: { id: userIds.get('chef') } });
    });

    it('hides projects of another tenant and unknown ids behind 404', async () => {
      for (const url of [`${LIST}${p.id}/`, `${LIST}${p.id}/dashboard/`, `${LIST}${p.id}/team-members/`]) {
        const res = await call('manager', 'GET', url, { tenant: 'Banque Horizon' });
        expect(res.statusCode, url).toBe(404);
      }
      const patch = await call('manager', 'PATCH', `${LIST}${p.id}/`, {
        payload: { name: 'Piraté' },
        tenant: 'Banque Horizon',
      });
      expect(patch.statusCode).toBe(404);
      const del = await call('banquier', 'DELETE', `${LIST}${p.id}/`);
      expect(del.statusCode).toBe(404);
      expect((await list('manager', '?text=Droits', 'Banque Horizon')).count).toBe(0);
      for (const id of ['999999', 'abc', '0', '-1']) {
        expect((await call('admin', 'GET', `${LIST}${id}/`)).statusCode, id).toBe(404);
      }
      expect((await call('chef', 'GET', `${LIST}${p.id}/`)).json().name).toBe('Droits d’accès');
    });

    it('changes the owner (a tenant member only), who becomes an ADMIN member', async () => {
      const q = await create('chef', { name: 'Changement de propriétaire' });
      const outsider = await call('chef', 'PATCH', `${LIST}${q.id}/`, {
        payload: { owner_id: userIds.get('lecteur') },
      });
      expect(outsider.statusCode).toBe(400);
      expect(outsider.json().fields).toEqual({ owner_id: ['Cet utilisateur n’est pas membre de l’organisation.'] });
      for (const ownerId of [999_999, 99_999_999_999]) {
        const unknown = await call('chef', 'PATCH', `${LIST}${q.id}/`, { payload: { owner_id: ownerId } });
        expect(unknown.statusCode, String(ownerId)).toBe(400);
        expect(Object.keys(unknown.json().fields)).toEqual(['owner_id']);
      }
      const res = await call('chef', 'PATCH', `${LIST}${q.id}/`, { payload: { owner_id: userIds.get('observateur') } });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<Project>();
      expect(body.owner).toEqual({
        id: userIds.get('observateur'),
        name: 'Léa Martin',
        email: 'observateur@exemple.fr',
      });
      expect(body.team_members.map((m) => [m.id, m.role, m.is_owner])).toEqual([
        [userIds.get('observateur'), 'ADMIN', true],
        [userIds.get('chef'), 'ADMIN', false],
      ]);
      // The new owner manages it; the former one keeps their ADMIN seat.
      expect((await call('observateur', 'GET', `${LIST}${q.id}/`)).json().access).toBe('manage');
      const [activity] = await t.database.db
        .select()
        .from(projectActivity)
        .where(eq(projectActivity.projectId, q.id))
        .orderBy(desc(projectActivity.id))
        .limit(1);
      expect(activity!.summary).toBe('Projet « Changement de propriétaire » modifié (propriétaire : Léa Martin)');
    });
  });

  describe('team', () => {
    it('adds, updates, lists and removes members', async () => {
      const p = await create('chef', { name: 'Équipe' });
      const url = (action: string) => `${LIST}${p.id}/${action}/`;
      const added = await call('chef', 'POST', url('add_team_member'), { payload: { user_id: userIds.get('membre') } });
      expect(added.statusCode).toBe(201);
      expect(added.json()).toEqual({
        id: userIds.get('membre'),
        name: 'Karim Benali',
        email: 'membre@exemple.fr',
        role: 'MEMBER',
        is_owner: false,
        last_active: expect.any(String),
      });
      const again = await call('chef', 'POST', url('add_team_member'), {
        payload: { user_id: userIds.get('membre'), role: 'viewer' },
      });
      expect(again.statusCode).toBe(200);
      expect(again.json().role).toBe('VIEWER');
      expect((await call('membre', 'GET', `${LIST}${p.id}/`)).json().access).toBe('read');

      const bad: [Record<string, unknown> | undefined, string, string][] = [
        [{ user_id: userIds.get('lecteur') }, 'user_id', 'Cet utilisateur n’est pas membre de l’organisation.'],
        [{ user_id: userIds.get('banquier') }, 'user_id', 'Cet utilisateur n’est pas membre de l’organisation.'],
        [{ user_id: 999_999 }, 'user_id', 'Cet utilisateur n’est pas membre de l’organisation.'],
        [{ user_id: 99_999_999_999 }, 'user_id', 'Cet utilisateur n’est pas membre de l’organisation.'],
        [
          { user_id: '12' + '0'.repeat(20) },
          'user_id',
          'Identifiant d’utilisateur invalide : un entier positif est attendu.',
        ],
        [{ user_id: 1.5 }, 'user_id', 'Identifiant d’utilisateur invalide : un entier positif est attendu.'],
        [{}, 'user_id', 'L’utilisateur est requis.'],
        [{ user_id: 'abc' }, 'user_id', 'Identifiant d’utilisateur invalide : un entier positif est attendu.'],
        [
          { user_id: userIds.get('intrus'), role: 'OWNER' },
          'role',
          'Rôle invalide. Valeurs possibles : ADMIN, MEMBER, VIEWER.',
        ],
        [
          { user_id: userIds.get('chef'), role: 'MEMBER' },
          'role',
          'Le propriétaire du projet reste administrateur (ADMIN) de l’équipe.',
        ],
      ];
      // No body at all is a missing user, not a 500.
      const empty = await call('chef', 'POST', url('add_team_member'));
      expect(empty.statusCode).toBe(400);
      expect(empty.json().fields).toEqual({ user_id: ['L’utilisateur est requis.'] });
      for (const [payload, field, message] of bad) {
        const res = await call('chef', 'POST', url('add_team_member'), { payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().fields, JSON.stringify(payload)).toEqual({ [field]: [message] });
      }

      await addMember(p.id, 'observateur', 'ADMIN', 'chef');
      const team = await call('membre', 'GET', url('team-members'));
      expect(team.statusCode).toBe(200);
      expect(team.json().map((m: TeamMember) => [m.name, m.role, m.is_owner])).toEqual([
        ['Julie Garnier', 'ADMIN', true],
        ['Léa Martin', 'ADMIN', false],
        ['Karim Benali', 'VIEWER', false],
      ]);
      // A team ADMIN manages the team too.
      const owner = await call('observateur', 'POST', url('remove_team_member'), {
        payload: { user_id: userIds.get('chef') },
      });
      expect(owner.statusCode).toBe(400);
      expect(owner.json().fields).toEqual({
        user_id: ['Le propriétaire du projet ne peut pas être retiré de l’équipe.'],
      });
      const missing = await call('chef', 'POST', url('remove_team_member'), {
        payload: { user_id: userIds.get('intrus') },
      });
      expect(missing.statusCode).toBe(404);
      const removed = await call('observateur', 'POST', url('remove_team_member'), {
        payload: { user_id: userIds.get('membre') },
      });
      expect(removed.statusCode).toBe(204);
      expect((await call('membre', 'GET', `${LIST}${p.id}/`)).statusCode).toBe(404);
      expect((await call('chef', 'GET', url('team-members'))).json()).toHaveLength(2);

      const summaries = (
        await t.database.db
          .select({ summary: projectActivity.summary, userId: projectActivity.userId })
          .from(projectActivity)
          .where(eq(projectActivity.projectId, p.id))
          .orderBy(projectActivity.id)
      ).map((a) => a.summary);
      expect(summaries).toEqual([
        'Projet « Équipe » créé',
        'Membre Karim Benali ajouté (MEMBER)',
        'Rôle de Karim Benali : MEMBER → VIEWER',
        'Membre Léa Martin ajouté (ADMIN)',
        'Membre Karim Benali retiré',
      ]);
      const audits = await auditEventsOf(t.database.db, {
        description: 'Membre Karim Benali retiré de l’équipe d’un projet',
      });
      expect(audits).toHaveLength(1);
      expect(audits[0]!.details).toMatchObject({ project_id: p.id, user_id: userIds.get('membre') });
    });

    it('records activity and refreshes the acting member’s last_active', async () => {
      const p = await create('chef', { name: 'Activité' });
      await addMember(p.id, 'membre', 'MEMBER', 'chef');
      // Push the member's last action into the past, then act as them.
      const past = new Date('2024-01-02T03:04:05Z');
      await t.database.db
        .update(projectMembers)
        .set({ lastActiveAt: past })
        .where(and(eq(projectMembers.projectId, p.id), eq(projectMembers.userId, userIds.get('membre')!)));
      const before = (await call('chef', 'GET', `${LIST}${p.id}/team-members/`)).json<TeamMember[]>();
      expect(before.find((m) => m.id === userIds.get('membre'))!.last_active).toBe(past.toISOString());
      const res = await call('membre', 'PATCH', `${LIST}${p.id}/`, { payload: { priority: 'LOW' } });
      expect(res.statusCode).toBe(200);
      const after = res.json<Project>().team_members.find((m) => m.id === userIds.get('membre'))!;
      expect(Date.parse(after.last_active!)).toBeGreaterThan(Date.now() - 60_000);
      const dash = (await call('membre', 'GET', `${LIST}${p.id}/dashboard/`)).json();
      expect(dash.recent_activity[0]).toMatchObject({
        action: 'updated',
        object_type: 'project',
        object_id: p.id,
        summary: 'Projet « Activité » modifié',
        user: 'Karim Benali',
      });
      // Without any action in the project, last_active falls back to the last sign-in, else null.
      await addMember(p.id, 'tadmin', 'VIEWER', 'chef');
      const team = (await call('chef', 'GET', `${LIST}${p.id}/team-members/`)).json<TeamMember[]>();
      expect(team.find((m) => m.id === userIds.get('tadmin'))!.last_active).not.toBeNull();
      await t.database.db
        .insert(projectMembers)
        .values({ tenantId: acme, projectId: p.id, userId: userIds.get('tmanager')!, role: 'VIEWER' });
      await t.database.db.update(users).set({ lastLogin: null }).where(eq(users.username, 'tmanager'));
      const withNever = (await call('chef', 'GET', `${LIST}${p.id}/team-members/`)).json<TeamMember[]>();
      expect(withNever.find((m) => m.id === userIds.get('tmanager'))!.last_active).toBeNull();
    });
  });

  describe('completion_percentage', () => {
    it('is the rounded mean progress of the tasks and corrective actions, in lists and details', async () => {
      const p = await create('chef', { name: 'Avancement' });
      await insertTasks(p.id, [{ progress: 20 }, { progress: 85 }]);
      await insertRiskWithActions(p.id, [{ progress: 50 }, { progress: 0 }]);
      // (20 + 85 + 50 + 0) / 4 = 38.75
      const detail = (await call('chef', 'GET', `${LIST}${p.id}/`)).json<Project>();
      expect(detail.completion_percentage).toBe(39);
      expect(detail.tasks).toHaveLength(2);
      const listed = (await list('chef', '?text=Avancement')).results.find((x) => x.id === p.id)!;
      expect(listed.completion_percentage).toBe(39);

      // An action of another project's risk does not count here.
      const other = await create('chef', { name: 'Avancement bis' });
      await insertRiskWithActions(other.id, [{ progress: 100 }]);
      expect((await call('chef', 'GET', `${LIST}${p.id}/`)).json().completion_percentage).toBe(39);
      expect((await call('chef', 'GET', `${LIST}${other.id}/`)).json().completion_percentage).toBe(100);
    });

    it('is 100 for a completed project without work, 0 otherwise, and 0 for completed work at 0', async () => {
      const empty = await create('chef', { name: 'Sans travail', status: 'IN_PROGRESS' });
      expect(empty.completion_percentage).toBe(0);
      const done = await call('chef', 'PATCH', `${LIST}${empty.id}/`, { payload: { status: 'COMPLETED' } });
      expect(done.json().completion_percentage).toBe(100);
      await insertTasks(empty.id, [{ progress: 0 }]);
      expect((await call('chef', 'GET', `${LIST}${empty.id}/`)).json().completion_percentage).toBe(0);
    });
  });

  describe('dashboard', () => {
    it('counts the project’s links and work, groups them, and lists what is overdue', async () => {
      const p = await create('chef', { name: 'Tableau de bord' });
      await addMember(p.id, 'membre', 'MEMBER', 'chef');
      const [a1, a2] = await t.database.db
        .insert(assets)
        .values([
          { tenantId: acme, name: 'tdb-srv-01' },
          { tenantId: acme, name: 'tdb-srv-02' },
        ])
        .returning({ id: assets.id });
      const findings = await t.database.db
        .insert(vulnerabilities)
        .values(
          (
            [
              ['critical', false],
              ['high', true],
              ['high', false],
              ['info', false],
            ] as const
          ).map(([severity, isResolved], i) => ({
            tenantId: acme,
            assetId: a1!.id,
            findingKey: `tdb-${i}`,
            title: `Constat ${i}`,
            severity,
            isResolved,
            state: isResolved ? ('verified' as const) : ('new' as const),
          })),
        )
        .returning({ id: vulnerabilities.id });
      const threatRows = await t.database.db
        .insert(threats)
        .values([
          { tenantId: acme, title: 'Menace active', status: 'ACTIVE' },
          { tenantId: acme, title: 'Menace en analyse', status: 'INVESTIGATING' },
          { tenantId: acme, title: 'Menace atténuée', status: 'MITIGATED', isMitigated: true },
        ])
        .returning({ id: threats.id });
      await t.database.db
        .insert(projectAssets)
        .values([a1!, a2!].map((a) => ({ tenantId: acme, projectId: p.id, assetId: a.id })));
      await t.database.db
        .insert(projectVulnerabilities)
        .values(findings.map((f) => ({ tenantId: acme, projectId: p.id, vulnerabilityId: f.id })));
      await t.database.db
        .insert(projectThreats)
        .values(threatRows.map((x) => ({ tenantId: acme, projectId: p.id, threatId: x.id })));
      // Open risks by residual scores: 4×4 (critical), 3×1 (low, impact 1 likelihood 3), 2×3 (medium); one closed.
      const plan = await insertRiskWithActions(
        p.id,
        [
          { progress: 50, dueDate: '2020-01-01', title: 'Action en retard' },
          { progress: 100, dueDate: '2020-01-01', title: 'Action terminée' },
          { progress: 0, dueDate: '2999-01-01', title: 'Action future' },
          { progress: 0, dueDate: null, title: 'Action sans échéance' },
        ],
        { likelihood: 4, impact: 4, residualLikelihood: 4, residualImpact: 4 },
      );
      await insertRiskWithActions(p.id, [], { likelihood: 3, impact: 2, residualLikelihood: 3, residualImpact: 1 });
      await insertRiskWithActions(p.id, [], { likelihood: 2, impact: 3, residualLikelihood: 2, residualImpact: 3 });
      await insertRiskWithActions(p.id, [], {
        status: 'CLOSED',
        likelihood: 4,
        impact: 4,
        residualLikelihood: 4,
        residualImpact: 4,
      });
      const taskIds = await insertTasks(p.id, [
        { title: 'Tâche en retard', status: 'TODO', progress: 0, dueDate: '2020-02-01' },
        { title: 'Tâche en retard aussi', status: 'IN_PROGRESS', progress: 60, dueDate: '2020-01-15' },
        { title: 'Tâche faite', status: 'DONE', progress: 100, dueDate: '2020-01-01' },
        { title: 'Tâche bloquée', status: 'BLOCKED', progress: 10, dueDate: '2999-01-01' },
      ]);
      await t.database.db.insert(projectDocuments).values({
        tenantId: acme,
        projectId: p.id,
        name: 'rapport.pdf',
        originalName: 'rapport.pdf',
        fileType: 'application/pdf',
        fileSize: 10,
        sha256: '0'.repeat(64),
        storageKey: `documents/${acme}/tdb-${p.id}`,
      });

      const res = await call('membre', 'GET', `${LIST}${p.id}/dashboard/`);
      expect(res.statusCode).toBe(200);
      const d = res.json();
      expect(Object.keys(d).sort()).toEqual(
        [
          'project',
          'counts',
          'vulnerabilities_by_severity',
          'tasks_by_status',
          'risks_by_level',
          'risk_matrix',
          'overdue',
          'recent_activity',
        ].sort(),
      );
      // Tasks 0, 60, 100, 10 and actions 50, 100, 0, 0: 320 / 8.
      expect(d.project).toEqual({
        id: p.id,
        name: 'Tableau de bord',
        status: 'PLANNED',
        priority: 'MEDIUM',
        completion_percentage: 40,
        deadline: null,
      });
      expect(d.counts).toEqual({
        assets: 2,
        vulnerabilities: 4,
        open_vulnerabilities: 3,
        threats: 3,
        active_threats: 2,
        risks: 4,
        tasks: 4,
        corrective_actions: 4,
        documents: 1,
        team_members: 2,
      });
      expect(d.vulnerabilities_by_severity).toEqual({ critical: 1, high: 2, medium: 0, low: 0, info: 1, unrated: 0 });
      expect(d.tasks_by_status).toEqual({ TODO: 1, IN_PROGRESS: 1, BLOCKED: 1, DONE: 1 });
      expect(d.risks_by_level).toEqual({ low: 1, medium: 1, high: 0, critical: 1 });
      expect(d.risk_matrix).toEqual([
        [0, 0, 1, 0],
        [0, 0, 0, 0],
        [0, 1, 0, 0],
        [0, 0, 0, 1],
      ]);
      expect(d.overdue).toEqual({
        tasks: [
          { id: taskIds[1], title: 'Tâche en retard aussi', due_date: '2020-01-15', progress: 60 },
          { id: taskIds[0], title: 'Tâche en retard', due_date: '2020-02-01', progress: 0 },
        ],
        corrective_actions: [
          {
            id: plan.actionIds[0],
            title: 'Action en retard',
            due_date: '2020-01-01',
            progress: 50,
            plan_id: plan.planId,
          },
        ],
      });
      expect(d.recent_activity.map((a: { summary: string; user: string }) => [a.summary, a.user])).toEqual([
        ['Membre Karim Benali ajouté (MEMBER)', 'Julie Garnier'],
        ['Projet « Tableau de bord » créé', 'Julie Garnier'],
      ]);
      expect(Object.keys(d.recent_activity[0]).sort()).toEqual(
        ['id', 'action', 'object_type', 'object_id', 'summary', 'user', 'created_at'].sort(),
      );

      // Only the 20 newest entries, newest first.
      await t.database.db.insert(projectActivity).values(
        Array.from({ length: 25 }, (_, i) => ({
          tenantId: acme,
          projectId: p.id,
          userId: null,
          action: 'updated',
          objectType: 'task',
          objectId: taskIds[0]!,
          summary: `Entrée ${i}`,
          createdAt: new Date(Date.now() + (i + 1) * 1000),
        })),
      );
      const recent = (await call('membre', 'GET', `${LIST}${p.id}/dashboard/`)).json().recent_activity;
      expect(recent).toHaveLength(20);
      expect(recent[0]).toMatchObject({ summary: 'Entrée 24', user: null, object_id: taskIds[0] });
      expect(recent[19].summary).toBe('Entrée 5');
    });
  });

  describe('list filters, ordering and paging', () => {
    const names = ['Filtre Alpha', 'Filtre beta 100%', 'Filtre Gamma', 'Filtre Delta_x', 'Filtre epsilon'];
    const ids = new Map<string, number>();
    beforeAll(async () => {
      const specs: Record<string, unknown>[] = [
        { status: 'IN_PROGRESS', priority: 'HIGH', deadline: '2030-03-01', description: 'Périmètre industriel' },
        { status: 'ON_HOLD', priority: 'LOW', deadline: '2030-01-01' },
        { status: 'PLANNING', priority: 'CRITICAL' },
        { status: 'COMPLETED', priority: 'MEDIUM', deadline: '2030-02-01' },
        { status: 'PLANNED', priority: 'HIGH', deadline: '2029-12-01' },
      ];
      for (const [i, name] of names.entries()) {
        ids.set(name, (await create('chef', { name, ...specs[i] })).id);
      }
    });
    const namesOf = (page: Page) => page.results.map((p) => p.name);

    it('filters by status, priority and text', async () => {
      expect(namesOf(await list('chef', '?text=filtre&status=IN_PROGRESS,ON_HOLD&ordering=name'))).toEqual([
        'Filtre Alpha',
        'Filtre beta 100%',
      ]);
      expect(namesOf(await list('chef', '?text=filtre&priority=high&ordering=name'))).toEqual([
        'Filtre Alpha',
        'Filtre epsilon',
      ]);
      expect(namesOf(await list('chef', '?text=FILTRE%20GAMMA'))).toEqual(['Filtre Gamma']);
      // Matches the description too; LIKE wildcards are literal.
      expect(namesOf(await list('chef', '?text=industriel'))).toEqual(['Filtre Alpha']);
      expect(namesOf(await list('chef', '?text=100%25'))).toEqual(['Filtre beta 100%']);
      expect(namesOf(await list('chef', '?text=a_x'))).toEqual(['Filtre Delta_x']);
      expect((await list('chef', '?text=Filtre%25Gamma')).count).toBe(0);
      // Status PLANNING and PLANNED are different values, each kept as sent.
      expect(namesOf(await list('chef', '?text=filtre&status=PLANNING'))).toEqual(['Filtre Gamma']);
    });

    it('orders by the allowed fields, newest first by default', async () => {
      expect(namesOf(await list('chef', '?text=filtre'))).toEqual([...names].reverse());
      expect(namesOf(await list('chef', '?text=filtre&ordering=name'))).toEqual([
        'Filtre Alpha',
        'Filtre beta 100%',
        'Filtre Delta_x',
        'Filtre epsilon',
        'Filtre Gamma',
      ]);
      expect(namesOf(await list('chef', '?text=filtre&ordering=-priority'))).toEqual([
        'Filtre Gamma',
        'Filtre epsilon',
        'Filtre Alpha',
        'Filtre Delta_x',
        'Filtre beta 100%',
      ]);
      // Without a deadline last, in both directions.
      expect(namesOf(await list('chef', '?text=filtre&ordering=deadline'))).toEqual([
        'Filtre epsilon',
        'Filtre beta 100%',
        'Filtre Delta_x',
        'Filtre Alpha',
        'Filtre Gamma',
      ]);
      expect(namesOf(await list('chef', '?text=filtre&ordering=-deadline'))).toEqual([
        'Filtre Alpha',
        'Filtre Delta_x',
        'Filtre beta 100%',
        'Filtre epsilon',
        'Filtre Gamma',
      ]);
      expect(namesOf(await list('chef', '?text=filtre&ordering=status'))).toEqual([
        'Filtre Gamma',
        'Filtre epsilon',
        'Filtre Alpha',
        'Filtre beta 100%',
        'Filtre Delta_x',
      ]);
      await call('chef', 'PATCH', `${LIST}${ids.get('Filtre Gamma')}/`, { payload: { description: 'touché' } });
      expect(namesOf(await list('chef', '?text=filtre&ordering=-updated_at'))[0]).toBe('Filtre Gamma');
      expect(namesOf(await list('chef', '?text=filtre&ordering=created_at'))).toEqual(names);
    });

    it('pages 25 by default, at most 100, with links that keep the filters', async () => {
      const first = await list('chef', '?text=filtre&ordering=name&page_size=2');
      expect(first).toMatchObject({ count: 5, previous: null });
      expect(first.next).toBe('/api/projects/?page_size=2&text=filtre&ordering=name&page=2');
      expect(namesOf(first)).toEqual(['Filtre Alpha', 'Filtre beta 100%']);
      const last = await list('chef', '?text=filtre&ordering=name&page_size=2&page=3');
      expect(namesOf(last)).toEqual(['Filtre Gamma']);
      expect(last.next).toBeNull();
      expect(last.previous).toBe('/api/projects/?page_size=2&text=filtre&ordering=name&page=2');
      // Enough projects for a full default page.
      await t.database.db
        .insert(projects)
        .values(Array.from({ length: 30 }, (_, i) => ({ tenantId: acme, name: `Remplissage ${i}` })));
      const all = await list('admin', '?page_size=100');
      expect(all.results.length).toBe(Math.min(all.count, 100));
      const byDefault = await list('admin');
      expect(byDefault.results.length).toBe(Math.min(byDefault.count, 25));
      expect(byDefault.count).toBeGreaterThan(25);
    });

    it('refuses bad list parameters with field errors', async () => {
      const cases: [string, string][] = [
        ['?page_size=101', 'page_size'],
        ['?page=0', 'page'],
        ['?status=DONE', 'status'],
        ['?status=PLANNED,nope', 'status'],
        ['?priority=URGENT', 'priority'],
        ['?ordering=owner', 'ordering'],
        [`?text=${'x'.repeat(201)}`, 'text'],
      ];
      for (const [query, field] of cases) {
        const res = await call('chef', 'GET', `${LIST}${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(Object.keys(res.json().fields), query).toEqual([field]);
      }
    });
  });

  describe('delete', () => {
    it('removes the project and its work, keeps the tenant’s inventory', async () => {
      const p = await create('chef', { name: 'À supprimer' });
      await addMember(p.id, 'membre', 'MEMBER', 'chef');
      const [asset] = await t.database.db
        .insert(assets)
        .values({ tenantId: acme, name: 'suppr-srv-01' })
        .returning({ id: assets.id });
      const [finding] = await t.database.db
        .insert(vulnerabilities)
        .values({ tenantId: acme, assetId: asset!.id, findingKey: 'suppr-1', title: 'Constat conservé' })
        .returning({ id: vulnerabilities.id });
      const [threat] = await t.database.db
        .insert(threats)
        .values({ tenantId: acme, title: 'Menace conservée' })
        .returning({ id: threats.id });
      await t.database.db.insert(projectAssets).values({ tenantId: acme, projectId: p.id, assetId: asset!.id });
      await t.database.db
        .insert(projectVulnerabilities)
        .values({ tenantId: acme, projectId: p.id, vulnerabilityId: finding!.id });
      await t.database.db.insert(projectThreats).values({ tenantId: acme, projectId: p.id, threatId: threat!.id });
      const work = await insertRiskWithActions(p.id, [{ progress: 10 }], {
        assetId: asset!.id,
        threatId: threat!.id,
        vulnerabilityId: finding!.id,
      });
      await insertTasks(p.id, [{ progress: 5 }]);

      expect((await call('membre', 'DELETE', `${LIST}${p.id}/`)).statusCode).toBe(403);
      const res = await call('chef', 'DELETE', `${LIST}${p.id}/`);
      expect(res.statusCode).toBe(204);
      expect((await call('chef', 'GET', `${LIST}${p.id}/`)).statusCode).toBe(404);
      expect((await call('chef', 'DELETE', `${LIST}${p.id}/`)).statusCode).toBe(404);

      const db = t.database.db;
      const n = async (q: Promise<{ n: number }[]>) => (await q)[0]!.n;
      for (const [table, column] of [
        [projectMembers, projectMembers.projectId],
        [projectAssets, projectAssets.projectId],
        [projectVulnerabilities, projectVulnerabilities.projectId],
        [projectThreats, projectThreats.projectId],
        [risks, risks.projectId],
        [projectTasks, projectTasks.projectId],
        [projectActivity, projectActivity.projectId],
      ] as const) {
        expect(await n(db.select({ n: count() }).from(table).where(eq(column, p.id)))).toBe(0);
      }
      expect(
        await n(db.select({ n: count() }).from(remediationPlans).where(eq(remediationPlans.id, work.planId))),
      ).toBe(0);
      expect(
        await n(db.select({ n: count() }).from(correctiveActions).where(eq(correctiveActions.planId, work.planId))),
      ).toBe(0);
      expect(await n(db.select({ n: count() }).from(assets).where(eq(assets.id, asset!.id)))).toBe(1);
      expect(await n(db.select({ n: count() }).from(vulnerabilities).where(eq(vulnerabilities.id, finding!.id)))).toBe(
        1,
      );
      expect(await n(db.select({ n: count() }).from(threats).where(eq(threats.id, threat!.id)))).toBe(1);
      const [audit] = await auditEventsOf(db, { description: 'Projet « À supprimer » supprimé' });
      expect(audit).toMatchObject({ eventType: 'data_change', username: 'chef' });
      expect(audit!.details).toMatchObject({ project_id: p.id });
    });
  });
});
