import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/api-client.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { saveSession, session } from '../../src/lib/auth/session.ts';
import {
  changeProjectOwner,
  createAction,
  createPlan,
  createRisk,
  getProject,
  getRiskPlan,
  linkAsset,
  listAssetThreats,
  listAssetVulnerabilities,
  listPlanActions,
  updateAction,
  updatePlan,
  updateProject,
  updateProjectAsset,
  updateRisk,
} from '../../src/features/projects/projects-api.ts';
import type { Written } from '../../src/features/projects/project-http.ts';
import { assets } from '../../server/src/db/schema.ts';
import { signIn as serverSignIn, TEST_PASSWORD } from '../server/helpers.ts';
import { FORBIDDEN } from '../server/support/http.ts';
import { addAsset, addFinding, addProject, addThreat, addUser, seededTenants } from '../server/support/world.ts';
import { useVigieClient } from './harness.ts';

/**
 * The spec §7 calls of the projects area that the screens now make (rows 7.50, 7.54, 7.55, 7.56) and the spec §8
 * answers to a refusal (row 8.38), made by the real client modules against the real server.
 * docs/api-projects.md "PUT or PATCH" and "Timeouts and refusals" say why each call is what it is.
 */
const { t, seen } = useVigieClient('/projects', { runJobs: false });

const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as ApiError);
const signIn = (username: string) => login({ username, password: TEST_PASSWORD });
const calls = () => seen.requests.map((r) => `${r.method} ${r.path}`);
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newRisk = (title: string, likelihood: number, impact: number) => ({
  project: projectId,
  title,
  description: '',
  scenario: '',
  likelihood,
  impact,
  treatment: 'REDUCE' as const,
  status: 'IDENTIFIED' as const,
});
function done<T>(w: Written<T>): T {
  if (w.queued) throw new Error('unexpectedly queued');
  return w.data;
}

/** Another person's write, straight to the server while the client's screen still shows what it read. */
async function elsewhere(username: string, method: 'PATCH' | 'PUT', url: string, payload: object) {
  const { access } = await serverSignIn(t.app, username);
  const res = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${access}` } });
  expect(res.statusCode, res.body).toBe(200);
}

let acme: string;
let horizon: string;
let projectId: number;
let equipierId: number;
let asset: { id: number; name: string };
let findingTitle: string;
let threatTitle: string;

beforeAll(async () => {
  const db = t.database.db;
  ({ acme, horizon } = await seededTenants(db));
  equipierId = await addUser(db, 'pc-equipier', [acme, 'user']);
  await addUser(db, 'pc-visiteur', [acme, 'user']);
  projectId = await addProject(db, acme, 'Audit des appels client', {
    owner: 'analyste',
    team: { analyste: 'ADMIN', 'pc-equipier': 'MEMBER', 'pc-visiteur': 'VIEWER' },
    description: 'Périmètre initial.',
  });
  asset = await addAsset(db, { tenantId: acme, name: 'pc-srv-01', criticality: 'medium', tags: ['dmz'] });
  findingTitle = (
    await addFinding(db, { tenantId: acme, assetId: asset.id, title: 'TLS 1.0 encore accepté', severity: 'medium' })
  ).title;
  threatTitle = (await addThreat(db, { tenantId: acme, title: 'Déni de service', severity: 'high', assetId: asset.id }))
    .title;
});

describe('a project (spec §7 GET/PUT/DELETE /projects/{id}/) from the client', () => {
  it('saves the edit form with PUT and the whole form', async () => {
    await signIn('analyste');
    seen.requests.length = 0;
    const saved = done(
      await updateProject(projectId, {
        name: 'Audit des appels client (v2)',
        description: 'Périmètre élargi.',
        status: 'IN_PROGRESS',
        priority: 'HIGH',
        start_date: '2026-01-05',
        deadline: '2026-12-18',
      }),
    );
    expect(calls()).toEqual([`PUT /api/projects/${projectId}/`]);
    expect(saved).toMatchObject({
      id: projectId,
      name: 'Audit des appels client (v2)',
      description: 'Périmètre élargi.',
      status: 'IN_PROGRESS',
      priority: 'HIGH',
      start_date: '2026-01-05',
      deadline: '2026-12-18',
    });
    expect((await getProject(projectId)).data.name).toBe('Audit des appels client (v2)');
  });

  it('changes the owner alone with PATCH, keeping what someone else changed meanwhile', async () => {
    await signIn('analyste');
    await elsewhere('manager', 'PATCH', `/api/projects/${projectId}/`, { description: 'Revu par la direction.' });
    seen.requests.length = 0;
    const saved = done(await changeProjectOwner(projectId, equipierId));
    expect(calls()).toEqual([`PATCH /api/projects/${projectId}/`]);
    expect(saved.owner?.id).toBe(equipierId);
    expect(saved.description).toBe('Revu par la direction.');
    expect(saved.name).toBe('Audit des appels client (v2)');
  });
});

describe('project assets (spec §7 /projects/assets/…) from the client', () => {
  let linkId: number | string;

  it('reads the findings and the threats on a linked asset through the link', async () => {
    await signIn('analyste');
    linkId = done(await linkAsset(projectId, asset.id)).id;
    await signIn('pc-visiteur');
    seen.requests.length = 0;
    const findings = await listAssetVulnerabilities(linkId);
    const threats = await listAssetThreats(linkId);
    expect(calls()).toEqual([
      `GET /api/projects/assets/${linkId}/vulnerabilities/`,
      `GET /api/projects/assets/${linkId}/threats/`,
    ]);
    expect(findings.error).toBeNull();
    expect(findings.data.results.map((f) => f.title)).toEqual([findingTitle]);
    expect(findings.data.results[0]).toMatchObject({ severity: 'medium', is_resolved: false });
    expect(threats.error).toBeNull();
    expect(threats.data.results.map((x) => x.title)).toEqual([threatTitle]);
    expect(threats.data.results[0]).toMatchObject({ severity: 'high', is_mitigated: false });
  });

  it('changes the asset in the inventory with PUT; the fields not sent (tags) stay', async () => {
    await signIn('pc-equipier');
    seen.requests.length = 0;
    const saved = done(
      await updateProjectAsset(linkId, {
        name: 'pc-srv-01',
        asset_type: 'server',
        criticality: 'critical',
        hostname: 'pc-srv-01.acme.local',
        ip_address: '192.0.2.41',
        operating_system: 'Debian 12',
        owner: 'Équipe réseau',
        description: 'Frontal exposé.',
      }),
    );
    expect(calls()).toEqual([`PUT /api/projects/assets/${linkId}/`]);
    expect(saved).toMatchObject({
      id: linkId,
      asset_id: asset.id,
      criticality: 'critical',
      hostname: 'pc-srv-01.acme.local',
      ip_address: '192.0.2.41',
      tags: ['dmz'],
    });
    const [row] = await t.database.db.select().from(assets).where(eq(assets.id, asset.id));
    expect(row).toMatchObject({ criticality: 'critical', operatingSystem: 'Debian 12', tags: ['dmz'] });
  });

  it('a PUT without a name is refused with the server’s field message', async () => {
    await signIn('pc-equipier');
    const err = await failure(updateProjectAsset(linkId, { name: ' ' }));
    expect(err?.status).toBe(400);
    expect(err?.fields).toEqual({ name: ['Le nom de l’actif est requis.'] });
  });
});

describe('risks, remediation plans and corrective actions (spec §7) from the client', () => {
  let riskId: number | string;
  let planId: number | string;

  it('reads a risk’s plan through the risk: none (the server’s 404) until it has one', async () => {
    await signIn('pc-equipier');
    riskId = done(await createRisk(newRisk('Interruption du portail', 3, 4))).id;
    seen.requests.length = 0;
    const none = await getRiskPlan(riskId);
    expect(calls()).toEqual([`GET /api/projects/risks/${riskId}/remediation-plan/`]);
    expect(none.data).toBeNull();

    planId = done(
      await createPlan({ risk: riskId, title: 'Redonder le portail', target_likelihood: 1, target_impact: 2 }),
    ).id;
    await signIn('pc-visiteur');
    const plan = await getRiskPlan(riskId);
    expect(plan.data).toMatchObject({
      id: planId,
      risk: riskId,
      project: projectId,
      title: 'Redonder le portail',
      target_likelihood: 1,
      target_impact: 2,
      actions_count: 0,
    });
  });

  it('lists a plan’s actions through the plan, unpaged', async () => {
    await signIn('pc-equipier');
    for (const title of ['Second frontal', 'Bascule DNS automatique'])
      done(await createAction(planId, { title, due_date: null }));
    // Another plan's action is not among them.
    const other = done(await createRisk(newRisk('Fuite de journaux', 2, 2)));
    const otherPlan = done(
      await createPlan({ risk: other.id, title: 'Filtrer', target_likelihood: 1, target_impact: 1 }),
    );
    done(await createAction(otherPlan.id, { title: 'Masquer les jetons', due_date: null }));

    await signIn('pc-visiteur');
    seen.requests.length = 0;
    const actions = await listPlanActions(planId);
    expect(calls()).toEqual([`GET /api/projects/remediation-plans/${planId}/actions/`]);
    expect(actions.error).toBeNull();
    expect(actions.data.results.map((a) => a.title).sort()).toEqual(['Bascule DNS automatique', 'Second frontal']);
    expect(actions.data.results.every((a) => String(a.remediation_plan) === String(planId))).toBe(true);
  });

  it('risk, plan and action edits send only the changed fields (PATCH) and keep a concurrent change', async () => {
    await signIn('pc-equipier');
    const [action] = (await listPlanActions(planId)).data.results;
    // Meanwhile the risk's owner renames it, retitles the plan and the action.
    await elsewhere('analyste', 'PATCH', `/api/projects/risks/${riskId}/`, { title: 'Indisponibilité du portail' });
    await elsewhere('analyste', 'PATCH', `/api/projects/remediation-plans/${planId}/`, { title: 'Plan de redondance' });
    await elsewhere('analyste', 'PATCH', `/api/projects/corrective-actions/${action!.id}/`, { title: 'Frontal n° 2' });
    seen.requests.length = 0;
    const savedRisk = done(await updateRisk(riskId, { status: 'IN_TREATMENT' }));
    const plan = done(await updatePlan(planId, { status: 'IN_PROGRESS' }));
    const saved = done(await updateAction(action!.id, { due_date: '2026-12-31' }));
    expect(calls()).toEqual([
      `PATCH /api/projects/risks/${riskId}/`,
      `PATCH /api/projects/remediation-plans/${planId}/`,
      `PATCH /api/projects/corrective-actions/${action!.id}/`,
    ]);
    expect(savedRisk).toMatchObject({ title: 'Indisponibilité du portail', status: 'IN_TREATMENT' });
    expect(plan).toMatchObject({ title: 'Plan de redondance', status: 'IN_PROGRESS' });
    expect(saved).toMatchObject({ title: 'Frontal n° 2', due_date: '2026-12-31' });
  });
});

describe('spec §8: a refusal on a project call', () => {
  it('a refused action (403, a team VIEWER’s PUT) is passed on with the server’s message, without a redirect', async () => {
    await signIn('pc-visiteur');
    const err = await failure(
      updateProject(projectId, { name: 'Renommé par un lecteur', status: 'IN_PROGRESS', priority: 'LOW' }),
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err?.status).toBe(403);
    expect(err?.message).toBe(FORBIDDEN.detail);
    await wait(150);
    expect(seen.navigations).toEqual([]);
    expect(session.value?.profile.username).toBe('pc-visiteur');
  });

  it('an expired session (401 without a refresh token) signs out and goes to the sign-in page', async () => {
    await signIn('analyste');
    await saveSession({
      ...session.value!,
      tokens: { ...session.value!.tokens, access_token: 'a.b.c', refresh_token: '' },
    });
    const err = await failure(getRiskPlan(1));
    expect(err?.status).toBe(401);
    expect(session.value).toBeNull();
    await wait(150);
    expect(seen.navigations).toEqual(['/login?session_expired=true']);
  });

  it('a refused session (403 tenant_forbidden: a tenant the user is not in) goes to the sign-in page', async () => {
    await signIn('analyste');
    await saveSession({ ...session.value!, tenantId: horizon });
    const err = await failure(getProject(projectId));
    expect(err?.status).toBe(403);
    await wait(150);
    expect(seen.navigations.length).toBe(1);
    expect(seen.navigations[0]).toMatch(/^\/login/);
  });
});
