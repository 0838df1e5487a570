import { and, eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  auditEvents,
  correctiveActions,
  projectActivity,
  projectMembers,
  remediationPlans,
  risks,
  vulnerabilities,
} from '../../server/src/db/schema.ts';
import { apiFor, jsonOf, type Method } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addAsset, addProject, addThreat, addUser, seededTenants, userIdsOf } from './support/world.ts';

const RISKS = '/api/projects/risks/';
const PLANS = '/api/projects/remediation-plans/';
const ACTIONS = '/api/projects/corrective-actions/';
const TASKS = '/api/projects/tasks/';

const PROGRESS_MESSAGE = 'La progression doit être un entier entre 0 et 100.';

const RISK_FIELDS = [
  'id',
  'project',
  'title',
  'description',
  'scenario',
  'asset',
  'threat',
  'vulnerability',
  'likelihood',
  'impact',
  'initial_score',
  'initial_level',
  'residual_likelihood',
  'residual_impact',
  'residual_score',
  'residual_level',
  'treatment',
  'status',
  'owner',
  'remediation_plan',
  'created_at',
  'updated_at',
].sort();
const PLAN_FIELDS = [
  'id',
  'risk',
  'project',
  'title',
  'description',
  'status',
  'target_likelihood',
  'target_impact',
  'owner',
  'due_date',
  'progress',
  'actions_count',
  'created_at',
  'updated_at',
].sort();
const ACTION_FIELDS = [
  'id',
  'remediation_plan',
  'project',
  'title',
  'description',
  'assignee',
  'due_date',
  'progress',
  'status',
  'completed_at',
  'is_overdue',
  'created_at',
  'updated_at',
].sort();
const TASK_FIELDS = [
  'id',
  'project',
  'title',
  'description',
  'status',
  'priority',
  'assignee',
  'due_date',
  'progress',
  'completed_at',
  'is_overdue',
  'created_at',
  'updated_at',
].sort();

type Json = Record<string, unknown> & { id: number };

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe(`project risks, plans, actions and tasks (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let userIds = new Map<string, number>();
  let acme: string;
  let horizon: string;
  /** The audited project: owner analyste; membre MEMBER, spectateur VIEWER, acmelecteur (tenant readonly) MEMBER. */
  let project: number;
  /** A project of the same tenant with no team but its owner (manager). */
  let otherProject: number;
  let horizonProject: number;
  const refs = {} as Record<'asset' | 'threat' | 'vulnerability' | 'hAsset' | 'hThreat' | 'hVulnerability', number>;

  const created = async (username: string, url: string, payload: object) =>
    jsonOf<Json>(await call(username, 'POST', url, { payload }), 201);
  const get = async (username: string, url: string) => jsonOf<Json>(await call(username, 'GET', url), 200);
  const progress = async (username: string, url: string, value: unknown) =>
    jsonOf<Json>(await call(username, 'POST', `${url}update_progress/`, { payload: { progress: value } }), 200);
  const newRisk = (payload: object = {}) =>
    created('membre', RISKS, { project, title: 'Risque', likelihood: 4, impact: 4, ...payload });
  /** A remediation plan of the risk, with the same target likelihood and impact. */
  const newPlan = (risk: number, title = 'Plan', target = 1) =>
    created('membre', PLANS, { risk, title, target_likelihood: target, target_impact: target });

  beforeAll(async () => {
    const db = t.database.db;
    ({ acme, horizon } = await seededTenants(db));
    for (const [username, role] of [
      ['membre', 'user'],
      ['spectateur', 'user'],
      ['horsequipe', 'user'],
      ['acmelecteur', 'readonly'],
    ] as const) {
      await addUser(db, username, [acme, role]);
    }
    userIds = await userIdsOf(db);
    project = await addProject(db, acme, 'Audit SI', {
      owner: 'analyste',
      team: { analyste: 'ADMIN', membre: 'MEMBER', spectateur: 'VIEWER', acmelecteur: 'MEMBER' },
    });
    otherProject = await addProject(db, acme, 'Projet de la direction', {
      owner: 'manager',
      team: { manager: 'ADMIN' },
    });
    horizonProject = await addProject(db, horizon, 'Audit Horizon', { owner: 'manager', team: { manager: 'ADMIN' } });
    const finding = async (tenantId: string) =>
      (
        await db
          .select({ id: vulnerabilities.id })
          .from(vulnerabilities)
          .where(eq(vulnerabilities.tenantId, tenantId))
          .limit(1)
      )[0]!.id;
    refs.asset = (await addAsset(db, { tenantId: acme, name: 'srv-risques-01' })).id;
    refs.threat = (await addThreat(db, { tenantId: acme, title: 'Rançongiciel' })).id;
    refs.vulnerability = await finding(acme);
    refs.hAsset = (await addAsset(db, { tenantId: horizon, name: 'srv-horizon-risques' })).id;
    refs.hThreat = (await addThreat(db, { tenantId: horizon, title: 'Fraude au président' })).id;
    refs.hVulnerability = await finding(horizon);
  });

  describe('risks', () => {
    it('creates a risk with exactly the Risk fields, scored and linked in the tenant', async () => {
      const risk = await created('membre', RISKS, {
        project,
        title: '  Fuite de données clients ',
        description: 'Exfiltration de la base clients',
        scenario: 'Un attaquant exploite une injection SQL',
        asset: refs.asset,
        threat: refs.threat,
        vulnerability: refs.vulnerability,
        likelihood: 3,
        impact: 4,
        owner: userIds.get('analyste'),
      });
      expect(Object.keys(risk).sort()).toEqual(RISK_FIELDS);
      expect(risk).toMatchObject({
        project,
        title: 'Fuite de données clients',
        asset: refs.asset,
        threat: refs.threat,
        vulnerability: refs.vulnerability,
        likelihood: 3,
        impact: 4,
        initial_score: 12,
        initial_level: 'critical',
        residual_likelihood: 3,
        residual_impact: 4,
        residual_score: 12,
        residual_level: 'critical',
        treatment: 'REDUCE',
        status: 'IDENTIFIED',
        owner: userIds.get('analyste'),
        remediation_plan: null,
      });
      expect(await get('spectateur', `${RISKS}${risk.id}/`)).toEqual(risk);
      const minimal = await newRisk({ likelihood: 1, impact: 2 });
      expect(minimal).toMatchObject({ asset: null, threat: null, vulnerability: null, owner: null, description: '' });
      expect(minimal).toMatchObject({ initial_score: 2, initial_level: 'low' });
    });

    it('validates a risk with French field errors', async () => {
      const cases: [object, string, string][] = [
        [{ title: 'x', likelihood: 2, impact: 2 }, 'project', 'Le projet est requis.'],
        [{ project, likelihood: 2, impact: 2 }, 'title', 'Le titre est requis.'],
        [{ project, title: 'x', impact: 2 }, 'likelihood', 'La vraisemblance est requise.'],
        [
          { project, title: 'x', likelihood: 5, impact: 2 },
          'likelihood',
          'La vraisemblance doit être un entier entre 1 et 4.',
        ],
        [
          { project, title: 'x', likelihood: '2', impact: 2 },
          'likelihood',
          'La vraisemblance doit être un entier entre 1 et 4.',
        ],
        [{ project, title: 'x', likelihood: 2, impact: 0 }, 'impact', 'La gravité doit être un entier entre 1 et 4.'],
        [{ project, title: 'x', likelihood: 2, impact: 1.5 }, 'impact', 'La gravité doit être un entier entre 1 et 4.'],
        [
          { project, title: 'x', likelihood: 2, impact: 2, treatment: 'IGNORE' },
          'treatment',
          'Traitement invalide. Valeurs possibles : REDUCE, ACCEPT, SHARE, AVOID.',
        ],
        [
          { project, title: 'x', likelihood: 2, impact: 2, status: 'OPEN' },
          'status',
          'Statut invalide. Valeurs possibles : IDENTIFIED, ASSESSED, IN_TREATMENT, MONITORED, CLOSED.',
        ],
        [
          { project: 'abc', title: 'x', likelihood: 2, impact: 2 },
          'project',
          'Identifiant invalide : un entier positif est attendu.',
        ],
        [{ project: 999_999, title: 'x', likelihood: 2, impact: 2 }, 'project', 'Projet introuvable.'],
      ];
      for (const [payload, field, message] of cases) {
        const res = await call('membre', 'POST', RISKS, { payload });
        expect(res.statusCode, JSON.stringify(payload)).toBe(400);
        expect(res.json().fields[field], JSON.stringify(payload)).toEqual([message]);
      }
    });

    it('refuses an asset, threat, finding or owner of another tenant as unknown', async () => {
      const base = { project, title: 'Risque croisé', likelihood: 2, impact: 2 };
      const cases: [object, string, string][] = [
        [{ asset: refs.hAsset }, 'asset', 'Actif introuvable.'],
        [{ threat: refs.hThreat }, 'threat', 'Menace introuvable.'],
        [{ vulnerability: refs.hVulnerability }, 'vulnerability', 'Vulnérabilité introuvable.'],
        [{ owner: userIds.get('lecteur') }, 'owner', 'Utilisateur introuvable dans cette organisation.'],
        [{ asset: 987_654_321 }, 'asset', 'Actif introuvable.'],
      ];
      const before = await t.database.db.select({ id: risks.id }).from(risks);
      for (const [extra, field, message] of cases) {
        const res = await call('membre', 'POST', RISKS, { payload: { ...base, ...extra } });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().fields).toEqual({ [field]: [message] });
      }
      const risk = await newRisk();
      const patched = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { asset: refs.hAsset } });
      expect(patched.statusCode).toBe(400);
      expect(patched.json().fields).toEqual({ asset: ['Actif introuvable.'] });
      expect((await get('membre', `${RISKS}${risk.id}/`)).asset).toBeNull();
      expect((await t.database.db.select({ id: risks.id }).from(risks)).length).toBe(before.length + 1);
    });

    it('updates with PUT and PATCH, keeps the project, and deletes', async () => {
      const risk = await newRisk({ title: 'À revoir', likelihood: 2, impact: 3 });
      const put = await call('membre', 'PUT', `${RISKS}${risk.id}/`, {
        payload: { ...risk, title: 'Revu', likelihood: 1, impact: 3, status: 'ASSESSED' },
      });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json()).toMatchObject({
        title: 'Revu',
        likelihood: 1,
        residual_likelihood: 1,
        initial_score: 3,
        status: 'ASSESSED',
      });
      const noTitle = await call('membre', 'PUT', `${RISKS}${risk.id}/`, { payload: { likelihood: 1, impact: 1 } });
      expect(noTitle.json().fields).toEqual({ title: ['Le titre est requis.'] });
      const patch = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { treatment: 'share' } });
      expect(patch.json()).toMatchObject({ title: 'Revu', treatment: 'SHARE', likelihood: 1 });
      const moved = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { project: otherProject } });
      expect(moved.statusCode).toBe(400);
      expect(moved.json().fields).toEqual({ project: ['Le projet ne peut pas être changé.'] });
      expect((await call('membre', 'DELETE', `${RISKS}${risk.id}/`)).statusCode).toBe(204);
      expect((await call('membre', 'GET', `${RISKS}${risk.id}/`)).json()).toEqual(NOT_FOUND);
      expect((await call('membre', 'DELETE', `${RISKS}${risk.id}/`)).statusCode).toBe(404);
      expect((await call('membre', 'GET', `${RISKS}abc/`)).statusCode).toBe(404);
    });
  });

  describe('remediation plans and residual scores', () => {
    it('moves the residual scores as the corrective actions progress (16 → 9 → 4)', async () => {
      const risk = await newRisk({ title: 'Compromission de l’AD' });
      expect(risk).toMatchObject({ residual_score: 16, residual_level: 'critical' });
      const plan = await created('membre', PLANS, {
        risk: risk.id,
        title: 'Durcir l’AD',
        target_likelihood: 2,
        target_impact: 2,
        owner: userIds.get('membre'),
        due_date: '2030-06-30',
      });
      expect(Object.keys(plan).sort()).toEqual(PLAN_FIELDS);
      expect(plan).toMatchObject({
        risk: risk.id,
        project,
        status: 'DRAFT',
        target_likelihood: 2,
        target_impact: 2,
        owner: userIds.get('membre'),
        due_date: '2030-06-30',
        progress: 0,
        actions_count: 0,
      });
      expect((await get('spectateur', `${RISKS}${risk.id}/`)).remediation_plan).toBe(plan.id);
      expect(await get('spectateur', `${RISKS}${risk.id}/remediation-plan/`)).toEqual(plan);

      const mfa = await created('membre', `${PLANS}${plan.id}/actions/`, { title: 'Activer MFA' });
      expect(Object.keys(mfa).sort()).toEqual(ACTION_FIELDS);
      expect(mfa).toMatchObject({
        remediation_plan: plan.id,
        project,
        progress: 0,
        status: 'TODO',
        completed_at: null,
        is_overdue: false,
        assignee: null,
        due_date: null,
      });
      const tiering = await created('membre', ACTIONS, {
        remediation_plan: plan.id,
        title: 'Modèle en tiers',
        assignee: userIds.get('analyste'),
        due_date: '2030-01-15',
      });
      expect(tiering).toMatchObject({ assignee: userIds.get('analyste'), due_date: '2030-01-15' });
      const residual = async () => {
        const r = await get('spectateur', `${RISKS}${risk.id}/`);
        return [r.residual_likelihood, r.residual_impact, r.residual_score, r.residual_level];
      };
      expect(await residual()).toEqual([4, 4, 16, 'critical']);

      expect(await progress('membre', `${ACTIONS}${mfa.id}/`, 50)).toMatchObject({
        progress: 50,
        status: 'IN_PROGRESS',
      });
      await progress('membre', `${ACTIONS}${tiering.id}/`, 50);
      expect(await get('spectateur', `${PLANS}${plan.id}/`)).toMatchObject({ progress: 50, actions_count: 2 });
      expect(await residual()).toEqual([3, 3, 9, 'high']);

      const done = await progress('membre', `${ACTIONS}${mfa.id}/`, 100);
      expect(done).toMatchObject({ progress: 100, status: 'DONE' });
      expect(done.completed_at).toEqual(expect.any(String));
      expect(await residual()).toEqual([3, 3, 9, 'high']); // mean 75: 2.5 rounds up to 3
      await progress('membre', `${ACTIONS}${tiering.id}/`, 100);
      expect(await get('spectateur', `${PLANS}${plan.id}/`)).toMatchObject({ progress: 100 });
      expect(await residual()).toEqual([2, 2, 4, 'medium']);

      // Leaving 100 clears the completion; the residual follows at once.
      const reopened = await progress('membre', `${ACTIONS}${mfa.id}/`, 40);
      expect(reopened).toMatchObject({ progress: 40, status: 'IN_PROGRESS', completed_at: null });
      expect(await residual()).toEqual([3, 3, 9, 'high']); // mean 70: 4 - 1.4 = 2.6 → 3

      const actions = await get('spectateur', `${PLANS}${plan.id}/actions/`);
      expect((actions as unknown as Json[]).map((a) => [a.title, a.progress])).toEqual([
        ['Activer MFA', 40],
        ['Modèle en tiers', 100],
      ]);

      // Deleting an action, a plan's targets and the plan itself all recompute the residual.
      expect((await call('membre', 'DELETE', `${ACTIONS}${mfa.id}/`)).statusCode).toBe(204);
      expect(await residual()).toEqual([2, 2, 4, 'medium']);
      const retarget = await call('membre', 'PATCH', `${PLANS}${plan.id}/`, { payload: { target_impact: 1 } });
      expect(retarget.statusCode, retarget.body).toBe(200);
      expect(await residual()).toEqual([2, 1, 2, 'low']);
      expect((await call('membre', 'DELETE', `${PLANS}${plan.id}/`)).statusCode).toBe(204);
      expect(await residual()).toEqual([4, 4, 16, 'critical']);
      expect((await get('membre', `${RISKS}${risk.id}/`)).remediation_plan).toBeNull();
      expect((await call('membre', 'GET', `${RISKS}${risk.id}/remediation-plan/`)).statusCode).toBe(404);
    });

    it('keeps the initial scores of an accepted risk, and recomputes when the risk changes', async () => {
      const risk = await newRisk({ title: 'Risque accepté' });
      const plan = await newPlan(risk.id);
      const action = await created('membre', `${PLANS}${plan.id}/actions/`, { title: 'Tout corriger', progress: 100 });
      expect(action).toMatchObject({ status: 'DONE', completed_at: expect.any(String) });
      expect(await get('membre', `${RISKS}${risk.id}/`)).toMatchObject({ residual_score: 1, residual_level: 'low' });
      const accepted = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { treatment: 'ACCEPT' } });
      expect(accepted.json()).toMatchObject({ residual_likelihood: 4, residual_impact: 4, residual_score: 16 });
      await progress('membre', `${ACTIONS}${action.id}/`, 50);
      expect(await get('membre', `${RISKS}${risk.id}/`)).toMatchObject({ residual_score: 16 });
      const reduced = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { treatment: 'REDUCE' } });
      expect(reduced.json()).toMatchObject({ residual_likelihood: 3, residual_impact: 3 }); // 50 %: 2.5 → 3
      const rescored = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { likelihood: 2 } });
      expect(rescored.json()).toMatchObject({ likelihood: 2, residual_likelihood: 2, residual_impact: 3 }); // 1.5 → 2
    });

    it('refuses targets above the initial scores, a second plan, and scores below the targets', async () => {
      const risk = await newRisk({ title: 'Risque modéré', likelihood: 2, impact: 3 });
      const above = await call('membre', 'POST', PLANS, {
        payload: { risk: risk.id, title: 'Trop ambitieux', target_likelihood: 3, target_impact: 4 },
      });
      expect(above.statusCode).toBe(400);
      expect(above.json().fields).toEqual({
        target_likelihood: ['La vraisemblance cible ne peut pas dépasser la vraisemblance initiale du risque (2).'],
        target_impact: ['La gravité cible ne peut pas dépasser la gravité initiale du risque (3).'],
      });
      const missing = await call('membre', 'POST', PLANS, { payload: { risk: risk.id, title: 'Sans cible' } });
      expect(missing.json().fields).toEqual({
        target_likelihood: ['La vraisemblance cible est requise.'],
        target_impact: ['La gravité cible est requise.'],
      });
      const plan = await newPlan(risk.id, 'Plan', 2);
      const second = await call('membre', 'POST', PLANS, {
        payload: { risk: risk.id, title: 'Deuxième', target_likelihood: 1, target_impact: 1 },
      });
      expect(second.statusCode).toBe(409);
      expect(second.json()).toMatchObject({ code: 'duplicate', detail: 'Ce risque a déjà un plan de remédiation.' });
      const lower = await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { impact: 1 } });
      expect(lower.statusCode).toBe(400);
      expect(lower.json().fields).toEqual({
        impact: ['La gravité ne peut pas être inférieure à la gravité cible du plan de remédiation (2).'],
      });
      const raise = await call('membre', 'PATCH', `${PLANS}${plan.id}/`, { payload: { target_impact: 4 } });
      expect(raise.statusCode).toBe(400);
      const otherRisk = await newRisk();
      const moved = await call('membre', 'PATCH', `${PLANS}${plan.id}/`, { payload: { risk: otherRisk.id } });
      expect(moved.json().fields).toEqual({ risk: ['Le risque d’un plan de remédiation ne peut pas être changé.'] });
      const unknown = await call('membre', 'POST', PLANS, {
        payload: { risk: 999_999, title: 'x', target_likelihood: 1, target_impact: 1 },
      });
      expect(unknown.json().fields).toEqual({ risk: ['Risque introuvable.'] });
      const badDate = await call('membre', 'PATCH', `${PLANS}${plan.id}/`, { payload: { due_date: '2025-02-30' } });
      expect(badDate.json().fields).toEqual({ due_date: ['Date invalide : format AAAA-MM-JJ attendu.'] });
      const badStatus = await call('membre', 'PATCH', `${PLANS}${plan.id}/`, { payload: { status: 'DONE' } });
      expect(badStatus.statusCode).toBe(400);
      const ok = await call('membre', 'PUT', `${PLANS}${plan.id}/`, {
        payload: { title: 'Plan revu', target_likelihood: 1, target_impact: 2, status: 'in_progress', due_date: null },
      });
      expect(ok.json()).toMatchObject({
        title: 'Plan revu',
        status: 'IN_PROGRESS',
        target_likelihood: 1,
        due_date: null,
      });
    });

    it('update_progress accepts only an integer 0–100 and changes nothing otherwise', async () => {
      const risk = await newRisk({ title: 'Progression stricte' });
      const plan = await newPlan(risk.id);
      const action = await created('membre', `${PLANS}${plan.id}/actions/`, { title: 'Activer MFA', progress: 30 });
      const task = await created('membre', TASKS, { project, title: 'Tâche stricte', progress: 30 });
      const riskBefore = await get('membre', `${RISKS}${risk.id}/`);
      const activityBefore = (await t.database.db.select().from(projectActivity)).length;
      for (const value of ['50', 50.5, -1, 101, null, true]) {
        for (const url of [`${ACTIONS}${action.id}/`, `${TASKS}${task.id}/`]) {
          const res = await call('membre', 'POST', `${url}update_progress/`, { payload: { progress: value } });
          expect(res.statusCode, `${url} ${JSON.stringify(value)}`).toBe(400);
          expect(res.json()).toEqual({
            detail: PROGRESS_MESSAGE,
            code: 'invalid',
            fields: { progress: [PROGRESS_MESSAGE] },
          });
        }
      }
      const empty = await call('membre', 'POST', `${ACTIONS}${action.id}/update_progress/`, { payload: {} });
      expect(empty.json().fields).toEqual({ progress: [PROGRESS_MESSAGE] });
      const inBody = await call('membre', 'PATCH', `${ACTIONS}${action.id}/`, { payload: { progress: '80' } });
      expect(inBody.json().fields).toEqual({ progress: [PROGRESS_MESSAGE] });
      expect(await get('membre', `${ACTIONS}${action.id}/`)).toEqual(action);
      expect(await get('membre', `${TASKS}${task.id}/`)).toEqual(task);
      expect(await get('membre', `${RISKS}${risk.id}/`)).toEqual(riskBefore);
      expect((await t.database.db.select().from(projectActivity)).length).toBe(activityBefore);
    });

    it('deleting a risk deletes its plan and actions', async () => {
      const risk = await newRisk({ title: 'Risque éphémère' });
      const plan = await newPlan(risk.id);
      const action = await created('membre', ACTIONS, { remediation_plan: plan.id, title: 'Action' });
      expect((await call('membre', 'DELETE', `${RISKS}${risk.id}/`)).statusCode).toBe(204);
      expect((await call('membre', 'GET', `${PLANS}${plan.id}/`)).statusCode).toBe(404);
      expect((await call('membre', 'GET', `${ACTIONS}${action.id}/`)).statusCode).toBe(404);
      const db = t.database.db;
      expect(await db.select().from(remediationPlans).where(eq(remediationPlans.id, plan.id))).toEqual([]);
      expect(await db.select().from(correctiveActions).where(eq(correctiveActions.id, action.id))).toEqual([]);
    });
  });

  describe('tasks', () => {
    it('creates a task with exactly the ProjectTask fields and moves its status with its progress', async () => {
      const task = await created('membre', TASKS, {
        project,
        title: 'Inventorier les comptes à privilèges',
        priority: 'high',
        assignee: userIds.get('spectateur'),
        due_date: '2030-03-01',
      });
      expect(Object.keys(task).sort()).toEqual(TASK_FIELDS);
      expect(task).toMatchObject({
        project,
        status: 'TODO',
        priority: 'HIGH',
        assignee: userIds.get('spectateur'),
        due_date: '2030-03-01',
        progress: 0,
        completed_at: null,
        is_overdue: false,
      });
      const url = `${TASKS}${task.id}/`;
      expect(await progress('membre', url, 30)).toMatchObject({ status: 'IN_PROGRESS', progress: 30 });
      expect(await progress('membre', url, 0)).toMatchObject({ status: 'IN_PROGRESS', progress: 0 });
      const done = await progress('membre', url, 100);
      expect(done).toMatchObject({ status: 'DONE', progress: 100, completed_at: expect.any(String) });
      expect(await progress('membre', url, 100)).toMatchObject({ completed_at: done.completed_at });
      expect(await progress('membre', url, 60)).toMatchObject({ status: 'IN_PROGRESS', completed_at: null });
      const blocked = await call('membre', 'PATCH', url, { payload: { status: 'BLOCKED' } });
      expect(blocked.json()).toMatchObject({ status: 'BLOCKED', progress: 60 });
      expect(await progress('membre', url, 70)).toMatchObject({ status: 'BLOCKED', progress: 70 });
      const finished = await call('membre', 'PATCH', url, { payload: { status: 'DONE' } });
      expect(finished.json()).toMatchObject({ status: 'DONE', progress: 100, completed_at: expect.any(String) });
      const contradiction = await call('membre', 'PATCH', url, { payload: { status: 'DONE', progress: 50 } });
      expect(contradiction.statusCode).toBe(400);
      expect(Object.keys(contradiction.json().fields)).toEqual(['status']);
      const put = await call('membre', 'PUT', url, { payload: { title: 'Renommée' } });
      expect(put.json()).toMatchObject({ title: 'Renommée', status: 'DONE', progress: 100 });
      expect((await call('membre', 'PATCH', url, { payload: { project: otherProject } })).statusCode).toBe(400);
      const badAssignee = await call('membre', 'PATCH', url, { payload: { assignee: userIds.get('lecteur') } });
      expect(badAssignee.json().fields).toEqual({ assignee: ['Utilisateur introuvable dans cette organisation.'] });
      expect((await call('membre', 'DELETE', url)).statusCode).toBe(204);
      expect((await call('membre', 'GET', url)).statusCode).toBe(404);
    });

    it('filters tasks and corrective actions by overdue, status, assignee and project', async () => {
      const yesterday = dayOffset(-1);
      const tomorrow = dayOffset(1);
      const scope = await addProject(t.database.db, acme, 'Échéances', {
        owner: 'membre',
        team: { membre: 'ADMIN' },
      });
      const task = (title: string, extra: object) => created('membre', TASKS, { project: scope, title, ...extra });
      const late = await task('En retard', { due_date: yesterday, progress: 10 });
      await task('Finie en retard', { due_date: yesterday, progress: 100 });
      await task('À venir', { due_date: tomorrow });
      await task('Sans échéance', { assignee: userIds.get('analyste') });
      expect(late).toMatchObject({ is_overdue: true, status: 'IN_PROGRESS' });
      const titles = async (url: string) =>
        ((await get('membre', url)).results as { title: string }[]).map((r) => r.title).sort();
      expect(await titles(`${TASKS}?project=${scope}&overdue=true`)).toEqual(['En retard']);
      expect(await titles(`${TASKS}?project=${scope}&overdue=false`)).toEqual(
        ['Finie en retard', 'Sans échéance', 'À venir'].sort(),
      );
      expect(await titles(`${TASKS}?project=${scope}&status=DONE`)).toEqual(['Finie en retard']);
      expect(await titles(`${TASKS}?project=${scope}&status=TODO,IN_PROGRESS`)).toEqual(
        ['En retard', 'Sans échéance', 'À venir'].sort(),
      );
      expect(await titles(`${TASKS}?project=${scope}&assignee=${userIds.get('analyste')}`)).toEqual(['Sans échéance']);
      const paged = await get('membre', `${TASKS}?project=${scope}&page_size=2`);
      expect(paged).toMatchObject({ count: 4, previous: null, next: `${TASKS}?page_size=2&project=${scope}&page=2` });
      expect((await call('membre', 'GET', `${TASKS}?overdue=maybe`)).json().fields).toEqual({
        overdue: ['Valeur invalide : true ou false attendu.'],
      });
      expect((await call('membre', 'GET', `${TASKS}?page_size=101`)).statusCode).toBe(400);

      const risk = await created('membre', RISKS, { project: scope, title: 'Risque daté', likelihood: 3, impact: 3 });
      const plan = await newPlan(risk.id, 'Plan daté');
      const action = (title: string, extra: object) =>
        created('membre', `${PLANS}${plan.id}/actions/`, { title, ...extra });
      const lateAction = await action('Action en retard', { due_date: yesterday, progress: 99 });
      await action('Action finie', { due_date: yesterday, progress: 100 });
      await action('Action à venir', { due_date: tomorrow });
      expect(lateAction.is_overdue).toBe(true);
      expect(await titles(`${ACTIONS}?project=${scope}&overdue=true`)).toEqual(['Action en retard']);
      expect(await titles(`${ACTIONS}?plan=${plan.id}&overdue=false`)).toEqual(
        ['Action finie', 'Action à venir'].sort(),
      );
      expect((await get('membre', `${ACTIONS}?project=${scope}`)).count).toBe(3);
      expect((await get('membre', `${PLANS}?project=${scope}`)).count).toBe(1);
      expect((await get('membre', `${PLANS}?risk=${risk.id}`)).results).toEqual([
        await get('membre', `${PLANS}${plan.id}/`),
      ]);
    });
  });

  describe('risk lists', () => {
    it('orders by residual score then id, descending, and filters by project, level, status and treatment', async () => {
      const scope = await addProject(t.database.db, acme, 'Cartographie', {
        owner: 'membre',
        team: { membre: 'ADMIN' },
      });
      const mk = (title: string, likelihood: number, impact: number, extra: object = {}) =>
        created('membre', RISKS, { project: scope, title, likelihood, impact, ...extra });
      const a = await mk('A', 2, 2); // 4 medium
      const b = await mk('B', 4, 4, { status: 'ASSESSED' }); // 16 critical
      const c = await mk('C', 1, 1, { treatment: 'ACCEPT' }); // 1 low
      const d = await mk('D', 2, 2); // 4 medium
      const e = await mk('E', 3, 3); // 9 high
      const ids = async (query: string) =>
        ((await get('membre', `${RISKS}?project=${scope}${query}`)).results as Json[]).map((r) => r.id);
      expect(await ids('')).toEqual([b.id, e.id, d.id, a.id, c.id]);
      expect(await ids('&level=medium')).toEqual([d.id, a.id]);
      expect(await ids('&level=CRITICAL,low')).toEqual([b.id, c.id]);
      expect(await ids('&status=ASSESSED')).toEqual([b.id]);
      expect(await ids('&treatment=ACCEPT')).toEqual([c.id]);
      // The level filter reads the residual score.
      const plan = await newPlan(b.id);
      await created('membre', ACTIONS, { remediation_plan: plan.id, title: 'Fait', progress: 100 });
      expect(await ids('&level=critical')).toEqual([]);
      expect(await ids('&level=low')).toEqual([c.id, b.id]);
      const bad = await call('membre', 'GET', `${RISKS}?level=extreme&status=OPEN&project=x`);
      expect(bad.statusCode).toBe(400);
      expect(Object.keys(bad.json().fields).sort()).toEqual(['level', 'project', 'status']);
    });
  });

  describe('permissions', () => {
    let risk: Json;
    let plan: Json;
    let action: Json;
    let task: Json;
    let hidden: Json;

    beforeAll(async () => {
      risk = await newRisk({ title: 'Risque de l’équipe' });
      plan = await newPlan(risk.id, 'Plan de l’équipe');
      action = await created('membre', ACTIONS, { remediation_plan: plan.id, title: 'Action de l’équipe' });
      task = await created('membre', TASKS, { project, title: 'Tâche de l’équipe' });
      hidden = await created('manager', RISKS, {
        project: otherProject,
        title: 'Risque de la direction',
        likelihood: 1,
        impact: 1,
      });
    });

    const urls = () => [`${RISKS}${risk.id}/`, `${PLANS}${plan.id}/`, `${ACTIONS}${action.id}/`, `${TASKS}${task.id}/`];

    it('lets a VIEWER and a tenant readonly team member read but not write (403, audited)', async () => {
      for (const user of ['spectateur', 'acmelecteur']) {
        for (const url of urls()) expect((await call(user, 'GET', url)).statusCode, `${user} ${url}`).toBe(200);
        expect((await call(user, 'GET', `${PLANS}${plan.id}/actions/`)).statusCode).toBe(200);
        expect((await call(user, 'GET', `${RISKS}${risk.id}/remediation-plan/`)).statusCode).toBe(200);
        const writes: [Method, string, object | undefined][] = [
          ['POST', RISKS, { project, title: 'x', likelihood: 1, impact: 1 }],
          ['PATCH', `${RISKS}${risk.id}/`, { title: 'x' }],
          ['DELETE', `${RISKS}${risk.id}/`, undefined],
          ['POST', PLANS, { risk: risk.id, title: 'x', target_likelihood: 1, target_impact: 1 }],
          ['PUT', `${PLANS}${plan.id}/`, { title: 'x', target_likelihood: 1, target_impact: 1 }],
          ['POST', `${PLANS}${plan.id}/actions/`, { title: 'x' }],
          ['PATCH', `${ACTIONS}${action.id}/`, { title: 'x' }],
          ['POST', `${ACTIONS}${action.id}/update_progress/`, { progress: 10 }],
          ['DELETE', `${ACTIONS}${action.id}/`, undefined],
          ['POST', TASKS, { project, title: 'x' }],
          ['POST', `${TASKS}${task.id}/update_progress/`, { progress: 10 }],
          ['DELETE', `${TASKS}${task.id}/`, undefined],
        ];
        for (const [method, url, payload] of writes) {
          const res = await call(user, method, url, payload ? { payload } : {});
          expect(res.statusCode, `${user} ${method} ${url}`).toBe(403);
          expect(res.json()).toEqual(FORBIDDEN);
        }
      }
      expect(await get('membre', `${ACTIONS}${action.id}/`)).toEqual(action);
      const denied = await t.database.db
        .select({ n: auditEvents.id })
        .from(auditEvents)
        .where(and(eq(auditEvents.eventType, 'permission_denied'), eq(auditEvents.username, 'spectateur')));
      expect(denied.length).toBeGreaterThanOrEqual(8);
    });

    it('lets a MEMBER edit, and the tenant’s managers edit every project', async () => {
      const res = await call('membre', 'PATCH', `${TASKS}${task.id}/`, {
        payload: { description: 'Vue par l’équipe' },
      });
      expect(res.statusCode).toBe(200);
      expect(
        (await call('manager', 'PATCH', `${RISKS}${risk.id}/`, { payload: { status: 'ASSESSED' } })).statusCode,
      ).toBe(200);
      expect((await call('admin', 'GET', `${RISKS}${hidden.id}/`)).statusCode).toBe(200);
    });

    it('hides the team’s objects from a tenant user outside the team (404, absent from lists)', async () => {
      for (const url of urls()) {
        const res = await call('horsequipe', 'GET', url);
        expect(res.statusCode, url).toBe(404);
        expect(res.json()).toEqual(NOT_FOUND);
        expect((await call('horsequipe', 'PATCH', url, { payload: { title: 'x' } })).statusCode, url).toBe(404);
      }
      expect((await call('horsequipe', 'GET', `${PLANS}${plan.id}/actions/`)).statusCode).toBe(404);
      for (const list of [RISKS, PLANS, ACTIONS, TASKS]) {
        const body = await get('horsequipe', `${list}?project=${project}`);
        expect(body, list).toMatchObject({ count: 0, results: [] });
        expect((await get('horsequipe', list)).count, list).toBe(0);
      }
      const sneaky = await call('horsequipe', 'POST', RISKS, {
        payload: { project, title: 'x', likelihood: 1, impact: 1 },
      });
      expect(sneaky.statusCode).toBe(400);
      expect(sneaky.json().fields).toEqual({ project: ['Projet introuvable.'] });
      const sneakyPlan = await call('horsequipe', 'POST', ACTIONS, {
        payload: { remediation_plan: plan.id, title: 'x' },
      });
      expect(sneakyPlan.json().fields).toEqual({ remediation_plan: ['Plan de remédiation introuvable.'] });
      // A team member does not see the projects they are not on either.
      const seen = ((await get('membre', `${RISKS}?page_size=100`)).results as Json[]).map((r) => r.id);
      expect(seen).toContain(risk.id);
      expect(seen).not.toContain(hidden.id);
      expect((await call('membre', 'GET', `${RISKS}${hidden.id}/`)).statusCode).toBe(404);
      const managerSees = ((await get('manager', `${RISKS}?page_size=100`)).results as Json[]).map((r) => r.id);
      expect(managerSees).toEqual(expect.arrayContaining([risk.id, hidden.id]));
    });

    it('answers 404 for another tenant’s objects and never lists them', async () => {
      for (const url of urls()) {
        expect((await call('manager', 'GET', url, { tenant: 'Banque Horizon' })).statusCode, url).toBe(404);
        expect((await call('lecteur', 'GET', url)).statusCode, url).toBe(404);
        const del = await call('admin', 'DELETE', url, { tenant: 'Banque Horizon' });
        expect(del.statusCode, url).toBe(404);
      }
      const inAcme = await get('manager', `${RISKS}?project=${project}`);
      expect(inAcme.count).toBeGreaterThan(0); // the manager's default tenant is Acme
      const fromHorizon = await call('manager', 'GET', `${RISKS}?project=${project}`, { tenant: 'Banque Horizon' });
      expect(fromHorizon.json()).toMatchObject({ count: 0, results: [] });
      const crossProject = await call('manager', 'POST', RISKS, {
        payload: { project, title: 'x', likelihood: 1, impact: 1 },
        tenant: 'Banque Horizon',
      });
      expect(crossProject.json().fields).toEqual({ project: ['Projet introuvable.'] });
      const crossPlan = await call('manager', 'POST', PLANS, {
        payload: { risk: risk.id, title: 'x', target_likelihood: 1, target_impact: 1 },
        tenant: 'Banque Horizon',
      });
      expect(crossPlan.json().fields).toEqual({ risk: ['Risque introuvable.'] });
      // In its own tenant, Horizon works as usual with Horizon's references.
      const own = await call('manager', 'POST', RISKS, {
        payload: { project: horizonProject, title: 'Fraude', likelihood: 2, impact: 2, asset: refs.hAsset },
        tenant: 'Banque Horizon',
      });
      expect(own.statusCode, own.body).toBe(201);
      const foreignAsset = await call('manager', 'POST', RISKS, {
        payload: { project: horizonProject, title: 'Fraude', likelihood: 2, impact: 2, asset: refs.asset },
        tenant: 'Banque Horizon',
      });
      expect(foreignAsset.json().fields).toEqual({ asset: ['Actif introuvable.'] });
      expect((await get('membre', `${RISKS}${risk.id}/`)).title).toBe('Risque de l’équipe');
    });
  });

  describe('robustness', () => {
    it('answers 400, never 500, to odd bodies and ids', async () => {
      const risk = await newRisk({ title: 'Robuste' });
      const plan = await newPlan(risk.id);
      const action = await created('membre', ACTIONS, { remediation_plan: plan.id, title: 'Action' });
      const cases: [Method, string, unknown][] = [
        ['POST', `${ACTIONS}${action.id}/update_progress/`, undefined],
        ['POST', `${ACTIONS}${action.id}/update_progress/`, [50]],
        ['POST', `${ACTIONS}${action.id}/update_progress/`, { progress: 50, extra: 1 }],
        ['POST', RISKS, { project, title: 'Nul\u0000', likelihood: 1, impact: 1 }],
        ['POST', RISKS, { project, title: 'x', description: 'a\u0000b', likelihood: 1, impact: 1 }],
        ['POST', RISKS, { project, title: 'x', likelihood: 1, impact: 1, owner: 2 ** 40 }],
        ['POST', RISKS, { project, title: 'x', likelihood: 1, impact: 1, asset: Number.MAX_SAFE_INTEGER }],
        ['POST', RISKS, { project: 2 ** 60, title: 'x', likelihood: 1, impact: 1 }],
        ['POST', TASKS, { project, title: 'x', assignee: 2 ** 31 }],
        ['POST', TASKS, { project, title: 'x', due_date: '2025-13-01' }],
        ['POST', TASKS, { project, title: 'x', due_date: 20250101 }],
        ['PATCH', `${TASKS}999999/`, { title: { nested: true } }],
        ['POST', PLANS, { risk: risk.id, title: 'x'.repeat(301), target_likelihood: 1, target_impact: 1 }],
      ];
      for (const [method, url, payload] of cases) {
        const res = await call('membre', method, url, payload === undefined ? {} : { payload });
        expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)} ${res.body}`).toBe(400);
        expect(res.json().code).toBe('invalid');
      }
      const unknownAssignee = await get('membre', `${TASKS}?assignee=${2 ** 40}`);
      expect(unknownAssignee.count).toBe(0);
      expect((await call('membre', 'GET', `${RISKS}99999999999999999999/`)).statusCode).toBe(404);
      expect(await get('membre', `${ACTIONS}${action.id}/`)).toEqual(action);
    });
  });

  describe('activity and audit', () => {
    it('records one activity row per write, in French, and audits it', async () => {
      const scope = await addProject(t.database.db, acme, 'Journal', { owner: 'membre', team: { membre: 'ADMIN' } });
      const risk = await created('membre', RISKS, {
        project: scope,
        title: 'Fuite de données clients',
        likelihood: 3,
        impact: 3,
      });
      await call('membre', 'PATCH', `${RISKS}${risk.id}/`, { payload: { status: 'ASSESSED' } });
      const plan = await newPlan(risk.id, 'Plan MFA');
      const action = await created('membre', `${PLANS}${plan.id}/actions/`, { title: 'Activer MFA' });
      await progress('membre', `${ACTIONS}${action.id}/`, 40);
      const task = await created('membre', TASKS, { project: scope, title: 'Former les équipes' });
      await progress('membre', `${TASKS}${task.id}/`, 100);
      await call('membre', 'DELETE', `${TASKS}${task.id}/`);
      await call('membre', 'DELETE', `${RISKS}${risk.id}/`);
      const rows = await t.database.db
        .select()
        .from(projectActivity)
        .where(eq(projectActivity.projectId, scope))
        .orderBy(projectActivity.id);
      expect(rows.map((r) => [r.action, r.objectType, r.summary])).toEqual([
        ['created', 'risk', 'Risque « Fuite de données clients » créé'],
        ['updated', 'risk', 'Risque « Fuite de données clients » modifié'],
        ['created', 'remediation_plan', 'Plan de remédiation « Plan MFA » créé'],
        ['created', 'corrective_action', 'Action « Activer MFA » créée'],
        ['progress', 'corrective_action', 'Action « Activer MFA » : progression 40 %'],
        ['created', 'task', 'Tâche « Former les équipes » créée'],
        ['progress', 'task', 'Tâche « Former les équipes » : progression 100 %'],
        ['deleted', 'task', 'Tâche « Former les équipes » supprimée'],
        ['deleted', 'risk', 'Risque « Fuite de données clients » supprimé'],
      ]);
      expect(new Set(rows.map((r) => r.userId))).toEqual(new Set([userIds.get('membre')]));
      expect(rows[4]!.objectId).toBe(action.id);
      const [seat] = await t.database.db
        .select({ lastActiveAt: projectMembers.lastActiveAt })
        .from(projectMembers)
        .where(and(eq(projectMembers.projectId, scope), eq(projectMembers.userId, userIds.get('membre')!)));
      expect(seat!.lastActiveAt).toBeInstanceOf(Date);
      const audited = await t.database.db
        .select({ description: auditEvents.description, tenantId: auditEvents.tenantId })
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.eventType, 'data_change'),
            inArray(auditEvents.description, [
              `Projet ${scope} : Risque « Fuite de données clients » créé`,
              `Projet ${scope} : Action « Activer MFA » : progression 40 %`,
            ]),
          ),
        );
      expect(audited).toHaveLength(2);
      expect(audited.every((a) => a.tenantId === acme)).toBe(true);
    });
  });
});
