import { and, desc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assets,
  cves,
  projectActivity,
  projectAssets,
  projectMembers,
  projects,
  projectThreats,
  projectVulnerabilities,
} from '../../server/src/db/schema.ts';
import { apiFor, jsonWithFields, type Method } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ASSET_ATTRIBUTES } from './support/contract.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import {
  addAsset,
  addFinding,
  addProject,
  addThreat,
  addUser,
  auditEventsOf,
  seededTenants,
  userIdsOf,
} from './support/world.ts';

const ASSET_FIELDS = [
  'id',
  'project',
  'asset_id',
  ...ASSET_ATTRIBUTES,
  'vulnerabilities_count',
  'created_at',
  'updated_at',
].sort();

describe(`project links to assets, findings and threats (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let userIds = new Map<string, number>();
  let acme: string;
  let horizon: string;
  // P1: owned by analyste, with a team; P2: Acme, no team (managers only); PH: Horizon.
  let p1: number;
  let p2: number;
  let ph: number;
  let assetA: { id: number; name: string };
  let assetH: number;
  let findingA: number;
  let findingH: number;
  let threatA: number;
  let threatH: number;
  let knownCve: { cveId: string; severity: string; kev: boolean; title: string };

  const db = () => t.database.db;

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(db()));
    await addUser(db(), 'membre', [acme, 'user']);
    await addUser(db(), 'spectateur', [acme, 'user']);
    await addUser(db(), 'etranger', [acme, 'user']);
    await addUser(db(), 'lectrice', [acme, 'readonly']);
    userIds = await userIdsOf(db());
    // The demo seed's projects would blur the counts: start from none.
    await db().delete(projects);

    p1 = await addProject(db(), acme, 'Audit du SI', {
      owner: 'analyste',
      team: { analyste: 'ADMIN', membre: 'MEMBER', spectateur: 'VIEWER', lectrice: 'ADMIN' },
    });
    p2 = await addProject(db(), acme, 'Projet de direction', { owner: 'manager' });
    ph = await addProject(db(), horizon, 'Audit Horizon', { owner: 'manager', team: { lecteur: 'VIEWER' } });

    assetA = await addAsset(db(), { tenantId: acme, name: 'lien-srv-01', criticality: 'high' });
    assetH = (await addAsset(db(), { tenantId: horizon, name: 'lien-horizon-01' })).id;
    findingA = (
      await addFinding(db(), {
        tenantId: acme,
        assetId: assetA.id,
        findingKey: 'manual:lien-1',
        title: 'Service SSH exposé',
        severity: 'high',
      })
    ).id;
    findingH = (
      await addFinding(db(), {
        tenantId: horizon,
        assetId: assetH,
        findingKey: 'manual:lien-h',
        title: 'Faille Horizon',
      })
    ).id;
    threatA = (
      await addThreat(db(), { tenantId: acme, title: 'Hameçonnage ciblé', severity: 'high', assetId: assetA.id })
    ).id;
    threatH = (await addThreat(db(), { tenantId: horizon, title: 'Menace Horizon' })).id;
    const [cve] = await db()
      .select({ cveId: cves.cveId, severity: cves.severity, kev: cves.kev, title: cves.title })
      .from(cves)
      .where(and(eq(cves.kev, true), sql`${cves.title} <> ''`))
      .orderBy(cves.cveId)
      .limit(1);
    knownCve = cve!;
  });

  const activityOf = (projectId: number) =>
    db()
      .select()
      .from(projectActivity)
      .where(eq(projectActivity.projectId, projectId))
      .orderBy(desc(projectActivity.id));

  describe('assets', () => {
    let linkId: number;

    it('links an existing asset with the contract fields, once (a second link is 409)', async () => {
      const res = await call('membre', 'POST', '/api/projects/assets/', {
        payload: { project: p1, asset_id: assetA.id },
      });
      const body = jsonWithFields(res, 201, ASSET_FIELDS);
      expect(body).toMatchObject({
        project: p1,
        asset_id: assetA.id,
        name: 'lien-srv-01',
        criticality: 'high',
        asset_type: 'server',
        vulnerabilities_count: 1,
        tags: [],
      });
      linkId = body.id;

      const again = await call('analyste', 'POST', '/api/projects/assets/', {
        payload: { project: p1, asset_id: assetA.id },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().fields).toEqual({ asset_id: ['Cet actif est déjà lié à ce projet.'] });

      const [activity] = await activityOf(p1);
      expect(activity).toMatchObject({
        action: 'linked',
        objectType: 'project_asset',
        objectId: linkId,
        userId: userIds.get('membre'),
        summary: 'Actif « lien-srv-01 » lié au projet',
      });
      const [member] = await db()
        .select({ lastActiveAt: projectMembers.lastActiveAt })
        .from(projectMembers)
        .where(and(eq(projectMembers.projectId, p1), eq(projectMembers.userId, userIds.get('membre')!)));
      expect(member?.lastActiveAt).not.toBeNull();
      const audits = await auditEventsOf(db(), { eventType: 'data_change', userId: userIds.get('membre')! });
      expect(audits.map((a) => a.details)).toContainEqual(
        expect.objectContaining({ action: 'linked', project_id: p1, object_id: linkId }),
      );
    });

    it('creates an asset in the inventory and links it, with the inventory’s validation', async () => {
      const res = await call('membre', 'POST', '/api/projects/assets/', {
        payload: {
          project: p1,
          name: '  base-clients  ',
          asset_type: 'Database',
          ip_address: '10.0.0.9',
          tags: ['pci', 'pci', ' prod '],
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      const link = res.json();
      expect(link).toMatchObject({ project: p1, name: 'base-clients', asset_type: 'database', tags: ['pci', 'prod'] });
      const inventory = await call('membre', 'GET', `/api/assets/${link.asset_id}/`);
      expect(inventory.statusCode).toBe(200);
      expect(inventory.json()).toMatchObject({ name: 'base-clients', ip_address: '10.0.0.9', asset_type: 'database' });
      expect((await activityOf(p1))[0]).toMatchObject({
        action: 'created',
        summary: 'Actif « base-clients » créé et lié au projet',
      });

      const before = await db().select().from(assets);
      const cases: [unknown, number, Record<string, string[]>][] = [
        [{ project: p1, name: 'x', ip_address: 'pas-une-ip' }, 400, { ip_address: ['Adresse IP invalide.'] }],
        [{ project: p1 }, 400, { name: ['Le nom de l’actif est requis.'] }],
        [{ project: p1, name: 'y', asset_type: 'grille-pain' }, 400, { asset_type: [expect.stringContaining('Type')] }],
        [{ project: p1, name: 'lien-srv-01' }, 409, { name: ['Un actif porte déjà ce nom.'] }],
        [{ asset_id: assetA.id }, 400, { project: ['Le projet est requis.'] }],
      ];
      for (const [payload, status, fields] of cases) {
        const refused = await call('membre', 'POST', '/api/projects/assets/', { payload });
        expect(refused.statusCode, JSON.stringify(payload)).toBe(status);
        expect(refused.json().fields).toEqual(fields);
      }
      const wrongType = await call('membre', 'POST', '/api/projects/assets/', {
        payload: { project: String(p1), asset_id: assetA.id },
      });
      expect(wrongType.statusCode).toBe(400);
      expect(wrongType.json().fields.project).toBeDefined();
      // Nothing was created by the refused requests.
      expect((await db().select().from(assets)).length).toBe(before.length);
    });

    it('changes the asset itself through PUT/PATCH, and DELETE only removes the link', async () => {
      const patched = await call('membre', 'PATCH', `/api/projects/assets/${linkId}/`, {
        payload: { criticality: 'critical', owner: 'Équipe infra', id: 999, vulnerabilities_count: 7 },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json()).toMatchObject({ id: linkId, name: 'lien-srv-01', criticality: 'critical' });
      expect((await call('membre', 'GET', `/api/assets/${assetA.id}/`)).json()).toMatchObject({
        criticality: 'critical',
        owner: 'Équipe infra',
      });

      const noName = await call('membre', 'PUT', `/api/projects/assets/${linkId}/`, {
        payload: { criticality: 'low' },
      });
      expect(noName.statusCode).toBe(400);
      expect(noName.json().fields).toEqual({ name: ['Le nom de l’actif est requis.'] });
      const put = await call('membre', 'PUT', `/api/projects/assets/${linkId}/`, {
        payload: { name: 'lien-srv-01', criticality: 'high', owner: null },
      });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ criticality: 'high', owner: null });
      expect((await activityOf(p1))[0]).toMatchObject({ action: 'updated', summary: 'Actif « lien-srv-01 » modifié' });

      const fetched = await call('spectateur', 'GET', `/api/projects/assets/${linkId}/`);
      expect(fetched.statusCode).toBe(200);
      expect(fetched.json()).toEqual(put.json());
    });

    it('lists the tenant’s findings and threats on a linked asset as their own APIs show them', async () => {
      const found = await call('spectateur', 'GET', `/api/projects/assets/${linkId}/vulnerabilities/`);
      expect(found.statusCode).toBe(200);
      // The detail's own additions (its CVE, its SSVC decision) are not part of a linked finding.
      const {
        cve: _cve,
        ssvc: _ssvc,
        ...finding
      } = (
        await call('admin', 'GET', `/api/vulnerabilities/vulnerabilities/${findingA}/`, { tenant: 'Acme Sécurité' })
      ).json();
      expect(found.json()).toEqual([finding]);

      const threatList = await call('spectateur', 'GET', `/api/projects/assets/${linkId}/threats/`);
      expect(threatList.statusCode).toBe(200);
      const threat = (await call('admin', 'GET', `/api/threats/${threatA}/`, { tenant: 'Acme Sécurité' })).json();
      expect(threatList.json()).toEqual([threat]);
    });

    it('pages the links of readable projects, optionally of one project', async () => {
      const other = await call('manager', 'POST', '/api/projects/assets/', {
        payload: { project: p2, name: 'actif-direction' },
      });
      expect(other.statusCode).toBe(201);

      const mine = await call('membre', 'GET', '/api/projects/assets/?page_size=1');
      expect(mine.statusCode).toBe(200);
      expect(mine.json()).toMatchObject({
        count: 2,
        next: '/api/projects/assets/?page_size=1&page=2',
        previous: null,
      });
      expect(mine.json().results).toHaveLength(1);
      const all = await call('manager', 'GET', '/api/projects/assets/');
      expect(all.json().count).toBe(3);
      const one = await call('manager', 'GET', `/api/projects/assets/?project=${p2}`);
      expect(one.json().results.map((r: { name: string }) => r.name)).toEqual(['actif-direction']);
      // A team member does not see the links of a project they are not on.
      expect((await call('membre', 'GET', `/api/projects/assets/?project=${p2}`)).json()).toMatchObject({
        count: 0,
        results: [],
      });
      expect((await call('membre', 'GET', `/api/projects/assets/${other.json().id}/`)).statusCode).toBe(404);
      const bad = await call('membre', 'GET', '/api/projects/assets/?project=abc&page_size=1000');
      expect(bad.statusCode).toBe(400);
      expect(Object.keys(bad.json().fields).sort()).toEqual(['page_size', 'project']);
    });

    it('removes the link on DELETE and keeps the asset in the inventory', async () => {
      const res = await call('analyste', 'DELETE', `/api/projects/assets/${linkId}/`);
      expect(res.statusCode).toBe(204);
      expect((await call('analyste', 'GET', `/api/projects/assets/${linkId}/`)).statusCode).toBe(404);
      expect((await call('analyste', 'GET', `/api/assets/${assetA.id}/`)).statusCode).toBe(200);
      expect((await activityOf(p1))[0]).toMatchObject({
        action: 'unlinked',
        summary: 'Actif « lien-srv-01 » retiré du projet',
      });
      // Linkable again afterwards.
      const relinked = await call('analyste', 'POST', '/api/projects/assets/', {
        payload: { project: p1, asset_id: assetA.id },
      });
      expect(relinked.statusCode).toBe(201);
    });
  });

  describe('findings', () => {
    let linkId: number;
    let createdLink: { id: number; vulnerability_id: number };

    it('links a finding and shows it exactly as the vulnerability API does', async () => {
      const res = await call('membre', 'POST', '/api/projects/vulnerabilities/', {
        payload: { project: p1, vulnerability_id: findingA },
      });
      expect(res.statusCode, res.body).toBe(201);
      linkId = res.json().id;
      const {
        id,
        cve: _cve,
        ssvc: _ssvc,
        ...finding
      } = (await call('membre', 'GET', `/api/vulnerabilities/vulnerabilities/${findingA}/`)).json();
      expect(res.json()).toEqual({ id: linkId, project: p1, vulnerability_id: id, ...finding });
      expect(Object.keys(res.json()).slice(0, 3)).toEqual(['id', 'project', 'vulnerability_id']);

      const again = await call('membre', 'POST', '/api/projects/vulnerabilities/', {
        payload: { project: p1, vulnerability_id: findingA },
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().fields).toEqual({ vulnerability_id: ['Cette vulnérabilité est déjà liée à ce projet.'] });
    });

    it('creates a finding from a known CVE (copying the store’s facts) and links it', async () => {
      const res = await call('membre', 'POST', '/api/projects/vulnerabilities/', {
        payload: { project: p1, cve_id: knownCve.cveId.toLowerCase(), asset_id: assetA.id },
      });
      expect(res.statusCode, res.body).toBe(201);
      createdLink = res.json();
      expect(res.json()).toMatchObject({
        project: p1,
        cve_id: knownCve.cveId,
        title: knownCve.title,
        severity: knownCve.severity,
        kev: knownCve.kev,
        asset: { id: assetA.id, name: 'lien-srv-01' },
        is_resolved: false,
      });
      const direct = await call(
        'membre',
        'GET',
        `/api/vulnerabilities/vulnerabilities/${createdLink.vulnerability_id}/`,
      );
      expect(direct.statusCode).toBe(200);
      expect(direct.json()).toMatchObject({ cve_id: knownCve.cveId, severity: knownCve.severity, kev: knownCve.kev });
      expect((await activityOf(p1))[0]).toMatchObject({ action: 'created', objectType: 'project_vulnerability' });

      const duplicate = await call('membre', 'POST', '/api/projects/vulnerabilities/', {
        payload: { project: p1, cve_id: knownCve.cveId, asset_id: assetA.id },
      });
      expect(duplicate.statusCode).toBe(409);

      const manual = await call('membre', 'POST', '/api/projects/vulnerabilities/', {
        payload: { project: p1, title: 'Mot de passe par défaut', severity: 'CRITICAL', port: 8080 },
      });
      expect(manual.statusCode, manual.body).toBe(201);
      expect(manual.json()).toMatchObject({
        title: 'Mot de passe par défaut',
        severity: 'critical',
        port: 8080,
        cve_id: null,
      });

      for (const [payload, field] of [
        [{ project: p1, title: '   ' }, 'title'],
        [{ project: p1, title: 'x', cve_id: 'CVE-12' }, 'cve_id'],
        [{ project: p1, title: 'x', cvss_score: 11 }, 'cvss_score'],
        [{ project: p1, title: 'x', severity: 'énorme' }, 'severity'],
        [{ project: p1, title: 'x', asset_id: 999_999 }, 'asset_id'],
      ] as const) {
        const refused = await call('membre', 'POST', '/api/projects/vulnerabilities/', { payload });
        expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
        expect(Object.keys(refused.json().fields)).toEqual([field]);
      }
    });

    it('filters the list by project, severity and resolution', async () => {
      const all = await call('spectateur', 'GET', `/api/projects/vulnerabilities/?project=${p1}`);
      expect(all.statusCode).toBe(200);
      expect(all.json().count).toBe(3);
      const critical = await call('spectateur', 'GET', '/api/projects/vulnerabilities/?severity=critical');
      expect(critical.json().results.map((r: { title: string }) => r.title)).toEqual(['Mot de passe par défaut']);
      const highOrCritical = await call('spectateur', 'GET', '/api/projects/vulnerabilities/?severity=high,critical');
      expect(highOrCritical.json().count).toBe(1 + (['high', 'critical'].includes(knownCve.severity) ? 1 : 0) + 1);
      const bad = await call(
        'spectateur',
        'GET',
        '/api/projects/vulnerabilities/?severity=enorme&is_resolved=peut-etre',
      );
      expect(bad.statusCode).toBe(400);
      expect(Object.keys(bad.json().fields).sort()).toEqual(['is_resolved', 'severity']);
    });

    it('mark_resolved resolves the finding itself, and is_resolved false reopens it', async () => {
      const res = await call('membre', 'POST', `/api/projects/vulnerabilities/${linkId}/mark_resolved/`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: linkId, vulnerability_id: findingA, is_resolved: true });
      const direct = (await call('membre', 'GET', `/api/vulnerabilities/vulnerabilities/${findingA}/`)).json();
      expect(direct).toMatchObject({ is_resolved: true, resolved_by: userIds.get('membre') });
      expect(direct.resolved_at).not.toBeNull();
      expect((await activityOf(p1))[0]).toMatchObject({
        action: 'resolved',
        summary: 'Vulnérabilité « Service SSH exposé » résolue',
      });
      const resolvedList = await call('membre', 'GET', `/api/projects/vulnerabilities/?project=${p1}&is_resolved=true`);
      expect(resolvedList.json().results.map((r: { id: number }) => r.id)).toEqual([linkId]);

      // Resolving again keeps the first resolution.
      const twice = await call('analyste', 'POST', `/api/projects/vulnerabilities/${linkId}/mark_resolved/`, {
        payload: { is_resolved: true },
      });
      expect(twice.json().resolved_by).toBe(userIds.get('membre'));

      const reopened = await call('membre', 'POST', `/api/projects/vulnerabilities/${linkId}/mark_resolved/`, {
        payload: { is_resolved: false },
      });
      expect(reopened.statusCode).toBe(200);
      expect((await call('membre', 'GET', `/api/vulnerabilities/vulnerabilities/${findingA}/`)).json()).toMatchObject({
        is_resolved: false,
        resolved_at: null,
        resolved_by: null,
      });
      expect((await activityOf(p1))[0]).toMatchObject({ action: 'reopened' });
    });

    it('DELETE removes the link; the finding stays', async () => {
      const res = await call('membre', 'DELETE', `/api/projects/vulnerabilities/${createdLink.id}/`);
      expect(res.statusCode).toBe(204);
      expect((await call('membre', 'GET', `/api/projects/vulnerabilities/${createdLink.id}/`)).statusCode).toBe(404);
      expect(
        (await call('membre', 'GET', `/api/vulnerabilities/vulnerabilities/${createdLink.vulnerability_id}/`))
          .statusCode,
      ).toBe(200);
    });
  });

  describe('threats', () => {
    let linkId: number;

    it('links a threat, creates one, and shows them as /api/threats/ does', async () => {
      const res = await call('membre', 'POST', '/api/projects/threats/', {
        payload: { project: p1, threat_id: threatA },
      });
      expect(res.statusCode, res.body).toBe(201);
      linkId = res.json().id;
      const { id, ...threat } = (await call('membre', 'GET', `/api/threats/${threatA}/`)).json();
      expect(res.json()).toEqual({ id: linkId, project: p1, threat_id: id, ...threat });
      expect(
        (await call('membre', 'POST', '/api/projects/threats/', { payload: { project: p1, threat_id: threatA } }))
          .statusCode,
      ).toBe(409);

      const created = await call('membre', 'POST', '/api/projects/threats/', {
        payload: {
          project: p1,
          title: 'Rançongiciel',
          severity: 'critical',
          asset_id: assetA.id,
          cve_id: 'cve-2024-3094',
        },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({
        title: 'Rançongiciel',
        severity: 'critical',
        status: 'ACTIVE',
        is_mitigated: false,
        cve_id: 'CVE-2024-3094',
        asset: { id: assetA.id, name: 'lien-srv-01' },
      });
      const direct = await call('membre', 'GET', `/api/threats/${created.json().threat_id}/`);
      expect(direct.json()).toMatchObject({ title: 'Rançongiciel', severity: 'critical' });

      for (const [payload, field] of [
        [{ project: p1, title: '' }, 'title'],
        [{ project: p1, title: 'x', status: 'OUVERT' }, 'status'],
        [{ project: p1, title: 'x', status: 'ACTIVE', is_mitigated: true }, 'is_mitigated'],
        [{ project: p1, title: 'x', asset_id: assetH }, 'asset_id'],
      ] as const) {
        const refused = await call('membre', 'POST', '/api/projects/threats/', { payload });
        expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
        expect(Object.keys(refused.json().fields)).toEqual([field]);
      }
      const list = await call('spectateur', 'GET', `/api/projects/threats/?project=${p1}`);
      expect(list.json().count).toBe(2);
    });

    it('mark_mitigated mitigates the threat itself', async () => {
      const res = await call('membre', 'POST', `/api/projects/threats/${linkId}/mark_mitigated/`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id: linkId, threat_id: threatA, is_mitigated: true, status: 'MITIGATED' });
      const direct = (await call('membre', 'GET', `/api/threats/${threatA}/`)).json();
      expect(direct).toMatchObject({ is_mitigated: true, status: 'MITIGATED' });
      expect(direct.mitigated_at).not.toBeNull();
      expect((await activityOf(p1))[0]).toMatchObject({
        action: 'mitigated',
        summary: 'Menace « Hameçonnage ciblé » atténuée',
      });
    });

    it('DELETE removes the link; the threat stays', async () => {
      expect((await call('membre', 'DELETE', `/api/projects/threats/${linkId}/`)).statusCode).toBe(204);
      expect((await call('membre', 'GET', `/api/projects/threats/${linkId}/`)).statusCode).toBe(404);
      expect((await call('membre', 'GET', `/api/threats/${threatA}/`)).statusCode).toBe(200);
    });
  });

  describe('tenant isolation', () => {
    it('refuses another tenant’s asset, finding or threat as unknown (400), and links nothing', async () => {
      const counts = async () => ({
        assets: (await db().select().from(projectAssets)).length,
        vulnerabilities: (await db().select().from(projectVulnerabilities)).length,
        threats: (await db().select().from(projectThreats)).length,
      });
      const before = await counts();
      for (const [path, payload, field, message] of [
        ['assets', { asset_id: assetH }, 'asset_id', 'Actif introuvable.'],
        ['vulnerabilities', { vulnerability_id: findingH }, 'vulnerability_id', 'Vulnérabilité introuvable.'],
        ['threats', { threat_id: threatH }, 'threat_id', 'Menace introuvable.'],
        ['vulnerabilities', { title: 'x', asset_id: assetH }, 'asset_id', 'Actif introuvable.'],
      ] as const) {
        const res = await call('admin', 'POST', `/api/projects/${path}/`, {
          payload: { project: p1, ...payload },
          tenant: 'Acme Sécurité',
        });
        expect(res.statusCode, `${path} ${JSON.stringify(payload)}`).toBe(400);
        expect(res.json()).toEqual({ detail: message, code: 'invalid', fields: { [field]: [message] } });
      }
      expect(await counts()).toEqual(before);
    });

    it('treats another tenant’s project and links as unknown (404)', async () => {
      const inHorizon = await call('admin', 'POST', '/api/projects/assets/', {
        payload: { project: ph, asset_id: assetH },
        tenant: 'Banque Horizon',
      });
      expect(inHorizon.statusCode, inHorizon.body).toBe(201);
      const horizonLink = inHorizon.json().id;

      // From Acme: the Horizon project and its link do not exist.
      const intoHorizon = await call('admin', 'POST', '/api/projects/assets/', {
        payload: { project: ph, asset_id: assetA.id },
        tenant: 'Acme Sécurité',
      });
      expect(intoHorizon.statusCode).toBe(404);
      expect(intoHorizon.json()).toEqual(NOT_FOUND);
      for (const [method, url] of [
        ['GET', `/api/projects/assets/${horizonLink}/`],
        ['PATCH', `/api/projects/assets/${horizonLink}/`],
        ['DELETE', `/api/projects/assets/${horizonLink}/`],
        ['GET', `/api/projects/assets/${horizonLink}/vulnerabilities/`],
        ['GET', `/api/projects/assets/${horizonLink}/threats/`],
      ] as const) {
        const res = await call('admin', method, url, {
          tenant: 'Acme Sécurité',
          ...(method === 'PATCH' ? { payload: { criticality: 'low' } } : {}),
        });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
      }
      const acmeList = await call('admin', 'GET', '/api/projects/assets/', { tenant: 'Acme Sécurité' });
      expect(acmeList.json().results.map((r: { id: number }) => r.id)).not.toContain(horizonLink);
      // Horizon's own viewer reads it; the link still points at the Horizon asset.
      const lecteur = await call('lecteur', 'GET', `/api/projects/assets/${horizonLink}/`);
      expect(lecteur.statusCode).toBe(200);
      expect(lecteur.json()).toMatchObject({ project: ph, asset_id: assetH });
      expect((await call('lecteur', 'DELETE', `/api/projects/assets/${horizonLink}/`)).statusCode).toBe(403);
    });
  });

  describe('permissions', () => {
    let assetLink: number;
    let findingLink: number;
    let threatLink: number;

    beforeAll(async () => {
      const rows = await db()
        .select({ id: projectAssets.id })
        .from(projectAssets)
        .where(and(eq(projectAssets.projectId, p1), eq(projectAssets.assetId, assetA.id)));
      assetLink = rows[0]!.id;
      findingLink = (
        await db()
          .select({ id: projectVulnerabilities.id })
          .from(projectVulnerabilities)
          .where(eq(projectVulnerabilities.vulnerabilityId, findingA))
      )[0]!.id;
      const linked = await call('analyste', 'POST', '/api/projects/threats/', {
        payload: { project: p1, threat_id: threatA },
      });
      threatLink = linked.json().id;
    });

    it('lets a team VIEWER read everything and refuses every write with an audited 403', async () => {
      for (const url of [
        `/api/projects/assets/${assetLink}/`,
        `/api/projects/vulnerabilities/${findingLink}/`,
        `/api/projects/threats/${threatLink}/`,
        `/api/projects/assets/${assetLink}/vulnerabilities/`,
      ]) {
        expect((await call('spectateur', 'GET', url)).statusCode, url).toBe(200);
      }
      const writes: [Method, string, unknown][] = [
        ['POST', '/api/projects/assets/', { project: p1, name: 'interdit' }],
        ['PATCH', `/api/projects/assets/${assetLink}/`, { criticality: 'low' }],
        ['DELETE', `/api/projects/assets/${assetLink}/`, undefined],
        ['POST', '/api/projects/vulnerabilities/', { project: p1, title: 'interdit' }],
        ['POST', `/api/projects/vulnerabilities/${findingLink}/mark_resolved/`, undefined],
        ['DELETE', `/api/projects/vulnerabilities/${findingLink}/`, undefined],
        ['POST', '/api/projects/threats/', { project: p1, title: 'interdit' }],
        ['POST', `/api/projects/threats/${threatLink}/mark_mitigated/`, undefined],
        ['DELETE', `/api/projects/threats/${threatLink}/`, undefined],
      ];
      for (const [method, url, payload] of writes) {
        const res = await call('spectateur', method, url, payload === undefined ? {} : { payload });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      const denied = await auditEventsOf(db(), { eventType: 'permission_denied', userId: userIds.get('spectateur')! });
      expect(denied).toHaveLength(writes.length);
      expect(denied[0]!.details).toMatchObject({ project_id: p1, need: 'edit', success: false });
      // Nothing changed.
      expect((await call('spectateur', 'GET', `/api/threats/${threatA}/`)).json().status).toBe('MITIGATED');
      expect((await db().select().from(assets).where(eq(assets.name, 'interdit'))).length).toBe(0);
    });

    it('keeps a tenant viewer on the team read-only', async () => {
      expect((await call('lectrice', 'GET', `/api/projects/assets/${assetLink}/`)).statusCode).toBe(200);
      expect((await call('lectrice', 'GET', '/api/projects/assets/')).json().count).toBeGreaterThan(0);
      const res = await call('lectrice', 'DELETE', `/api/projects/assets/${assetLink}/`);
      expect(res.statusCode).toBe(403);
    });

    it('hides the project from a tenant user who is not on its team (404, empty lists)', async () => {
      for (const path of ['assets', 'vulnerabilities', 'threats']) {
        const list = await call('etranger', 'GET', `/api/projects/${path}/`);
        expect(list.statusCode).toBe(200);
        expect(list.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
      }
      for (const [method, url, payload] of [
        ['GET', `/api/projects/assets/${assetLink}/`, undefined],
        ['GET', `/api/projects/vulnerabilities/${findingLink}/`, undefined],
        ['GET', `/api/projects/threats/${threatLink}/`, undefined],
        ['DELETE', `/api/projects/threats/${threatLink}/`, undefined],
        ['POST', '/api/projects/assets/', { project: p1, asset_id: assetA.id }],
        ['POST', `/api/projects/vulnerabilities/${findingLink}/mark_resolved/`, undefined],
        ['GET', '/api/projects/assets/abc/', undefined],
      ] as const) {
        const res = await call('etranger', method, url, payload === undefined ? {} : { payload });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual(NOT_FOUND);
      }
      // A MEMBER writes; the owner and tenant managers too.
      expect((await call('membre', 'POST', `/api/projects/threats/${threatLink}/mark_mitigated/`)).statusCode).toBe(
        200,
      );
      expect((await call('manager', 'DELETE', `/api/projects/threats/${threatLink}/`)).statusCode).toBe(204);
    });
  });
});
