import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { threats, users } from '../../server/src/db/schema.ts';
import { DEMO_THREATS } from '../../server/src/db/seed-vulnerabilities.ts';
import { THREAT_TYPES } from '../../src/features/threats/threat-rules.ts';
import { apiFor } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addAsset, seededTenants } from './support/world.ts';

const URL_LIST = '/api/threats/';
const THREAT_FIELDS = [
  'id',
  'title',
  'description',
  'threat_type',
  'severity',
  'status',
  'is_mitigated',
  'mitigated_at',
  'source',
  'cve_id',
  'asset_id',
  'asset',
  'created_at',
  'updated_at',
].sort();

describe(`threats (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acmeAsset: { id: number; name: string };
  let horizonAsset: { id: number };
  const created: { id: number; title: string; severity: string; status: string }[] = [];

  // Twelve threats in Acme, oldest first: severities and statuses cycle so every count is known.
  const SEVERITY_CYCLE = ['critical', 'high', 'medium', 'low', 'info', 'high'] as const;
  const STATUS_CYCLE = ['ACTIVE', 'INVESTIGATING', 'ACTIVE', 'CLOSED'] as const;

  beforeAll(async () => {
    const { acme, horizon } = await seededTenants(t.database.db);
    // The demo seed's threats would blur the counts: start from none.
    await t.database.db.delete(threats);
    acmeAsset = await addAsset(t.database.db, { tenantId: acme, name: 'menaces-srv-01' });
    horizonAsset = await addAsset(t.database.db, { tenantId: horizon, name: 'menaces-horizon-01' });
    for (let i = 0; i < 12; i++) {
      const body = {
        title: `Menace ${i + 1}${i === 3 ? ' : campagne 100% hameçonnage' : ''}`,
        description: i === 7 ? 'Exploitation de Log4Shell observée' : '',
        threat_type: i % 2 === 0 ? 'malware' : 'phishing',
        severity: SEVERITY_CYCLE[i % SEVERITY_CYCLE.length],
        status: STATUS_CYCLE[i % STATUS_CYCLE.length],
        ...(i === 5 ? { cve_id: 'cve-2021-44228', asset_id: acmeAsset.id, source: 'CERT-FR' } : {}),
      };
      const res = await call('analyste', 'POST', URL_LIST, { payload: body });
      expect(res.statusCode, res.body).toBe(201);
      created.push(res.json());
    }
    await call('admin', 'POST', URL_LIST, {
      payload: { title: 'Menace Horizon', severity: 'critical' },
      tenant: 'Banque Horizon',
    });
  });

  it('creates a threat with exactly the Threat fields and its asset', async () => {
    const sixth = (await call('analyste', 'GET', `${URL_LIST}${created[5]!.id}/`)).json();
    expect(Object.keys(sixth).sort()).toEqual(THREAT_FIELDS);
    expect(sixth).toMatchObject({
      title: 'Menace 6',
      threat_type: 'phishing',
      severity: 'high',
      status: 'INVESTIGATING',
      is_mitigated: false,
      mitigated_at: null,
      source: 'CERT-FR',
      cve_id: 'CVE-2021-44228',
      asset_id: acmeAsset.id,
      asset: { id: acmeAsset.id, name: 'menaces-srv-01' },
    });
    expect(created[0]).toMatchObject({ asset_id: null, asset: null, source: '', description: '' });
  });

  it('summarises counts by severity and status, with the five newest threats', async () => {
    const res = await call('analyste', 'GET', `${URL_LIST}summary/`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.threats_count).toBe(12);
    expect(body.by_severity).toEqual([
      { severity: 'critical', count: 2 },
      { severity: 'high', count: 4 },
      { severity: 'medium', count: 2 },
      { severity: 'low', count: 2 },
      { severity: 'info', count: 2 },
    ]);
    expect(body.by_status).toEqual([
      { status: 'ACTIVE', count: 6 },
      { status: 'INVESTIGATING', count: 3 },
      { status: 'MITIGATED', count: 0 },
      { status: 'CLOSED', count: 3 },
    ]);
    expect(body.recent_threats.map((r: { title: string }) => r.title)).toEqual([
      'Menace 12',
      'Menace 11',
      'Menace 10',
      'Menace 9',
      'Menace 8',
    ]);
    const horizon = (await call('admin', 'GET', `${URL_LIST}summary/`, { tenant: 'Banque Horizon' })).json();
    expect(horizon.threats_count).toBe(1);
    expect(horizon.recent_threats[0].title).toBe('Menace Horizon');
  });

  it('pages newest first with total, page, size and pages', async () => {
    const first = (await call('analyste', 'GET', URL_LIST)).json();
    expect(first).toMatchObject({ total: 12, page: 1, size: 10, pages: 2 });
    expect(first.results).toHaveLength(10);
    expect(first.results[0].title).toBe('Menace 12');
    const third = (await call('analyste', 'GET', `${URL_LIST}?page=3&size=5`)).json();
    expect(third).toMatchObject({ total: 12, page: 3, size: 5, pages: 3 });
    expect(third.results.map((r: { title: string }) => r.title)).toEqual(['Menace 2', 'Menace 1']);
    expect((await call('analyste', 'GET', `${URL_LIST}?page=9`)).json()).toMatchObject({ results: [], total: 12 });
    for (const [q, detail] of [
      ['size=101', 'Taille de page invalide : un entier entre 1 et 100 est attendu.'],
      ['size=0', 'Taille de page invalide : un entier entre 1 et 100 est attendu.'],
      ['page=0', 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.'],
      ['severity=urgent', 'Sévérité invalide. Valeurs possibles : critical, high, medium, low, info.'],
      ['status=OPEN', 'Statut invalide. Valeurs possibles : ACTIVE, INVESTIGATING, MITIGATED, CLOSED.'],
      ['is_mitigated=yes', 'Valeur invalide pour is_mitigated : true ou false attendu.'],
    ] as const) {
      const res = await call('analyste', 'GET', `${URL_LIST}?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().detail, q).toBe(detail);
    }
    expect((await call('analyste', 'GET', `${URL_LIST}?size=100`)).json().results).toHaveLength(12);
  });

  it('filters by severity, status, text and is_mitigated', async () => {
    const titles = async (q: string) =>
      (await call('analyste', 'GET', `${URL_LIST}?size=100&${q}`))
        .json<{ results: { title: string }[] }>()
        .results.map((r) => r.title);
    expect(await titles('severity=critical')).toEqual(['Menace 7', 'Menace 1']);
    expect((await titles('severity=critical,info')).length).toBe(4);
    expect((await titles('status=CLOSED')).sort()).toEqual([
      'Menace 12',
      'Menace 4 : campagne 100% hameçonnage',
      'Menace 8',
    ]);
    expect(await titles('text=log4shell')).toEqual(['Menace 8']);
    expect(await titles('text=cve-2021')).toEqual(['Menace 6']);
    expect(await titles(`text=${encodeURIComponent('100%')}`)).toEqual(['Menace 4 : campagne 100% hameçonnage']);
    expect(await titles(`text=${encodeURIComponent('%')}`)).toEqual(['Menace 4 : campagne 100% hameçonnage']);
    expect(await titles('text=_')).toEqual([]);
    expect((await titles('is_mitigated=false')).length).toBe(12);
    expect(await titles('is_mitigated=true')).toEqual([]);
  });

  it('marks a threat mitigated, and reopening clears the mitigation', async () => {
    const id = created[1]!.id;
    const res = await call('analyste', 'POST', `${URL_LIST}${id}/mark_mitigated/`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, is_mitigated: true, status: 'MITIGATED' });
    expect(new Date(res.json().mitigated_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const [row] = await t.database.db.select().from(threats).where(eq(threats.id, id));
    const [analyste] = await t.database.db.select().from(users).where(eq(users.username, 'analyste'));
    expect(row?.mitigatedBy).toBe(analyste!.id);

    const again = await call('manager', 'POST', `${URL_LIST}${id}/mark_mitigated/`);
    expect(again.json().mitigated_at).toBe(res.json().mitigated_at);
    const summary = (await call('analyste', 'GET', `${URL_LIST}summary/`)).json();
    expect(summary.by_status).toContainEqual({ status: 'MITIGATED', count: 1 });
    expect((await call('analyste', 'GET', `${URL_LIST}?is_mitigated=true`)).json().total).toBe(1);

    const reopened = await call('analyste', 'PATCH', `${URL_LIST}${id}/`, { payload: { status: 'ACTIVE' } });
    expect(reopened.json()).toMatchObject({ status: 'ACTIVE', is_mitigated: false, mitigated_at: null });
    const viaFlag = await call('analyste', 'PATCH', `${URL_LIST}${id}/`, { payload: { is_mitigated: true } });
    expect(viaFlag.json()).toMatchObject({ status: 'MITIGATED', is_mitigated: true });
    const contradiction = await call('analyste', 'PATCH', `${URL_LIST}${id}/`, {
      payload: { status: 'MITIGATED', is_mitigated: false },
    });
    expect(contradiction.statusCode).toBe(400);
    expect((await call('analyste', 'POST', `${URL_LIST}999999/mark_mitigated/`)).statusCode).toBe(404);
  });

  it('updates with PUT and PATCH, validates in French, and deletes', async () => {
    const id = created[2]!.id;
    const current = (await call('analyste', 'GET', `${URL_LIST}${id}/`)).json();
    const put = await call('analyste', 'PUT', `${URL_LIST}${id}/`, {
      payload: { ...current, title: 'Menace 3 révisée', severity: 'low', asset_id: acmeAsset.id },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ title: 'Menace 3 révisée', severity: 'low', asset: { id: acmeAsset.id } });
    const patch = await call('analyste', 'PATCH', `${URL_LIST}${id}/`, { payload: { description: 'Détails' } });
    expect(patch.json()).toMatchObject({ title: 'Menace 3 révisée', description: 'Détails', severity: 'low' });

    for (const [payload, field, detail] of [
      [{ title: '  ' }, 'title', 'Le titre est requis.'],
      [
        { title: 'x', severity: 'urgent' },
        'severity',
        'Sévérité invalide. Valeurs possibles : critical, high, medium, low, info.',
      ],
      [
        { title: 'x', status: 'OPEN' },
        'status',
        'Statut invalide. Valeurs possibles : ACTIVE, INVESTIGATING, MITIGATED, CLOSED.',
      ],
      [{ title: 'x', cve_id: 'log4shell' }, 'cve_id', 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).'],
      // Another tenant's asset does not exist here.
      [{ title: 'x', asset_id: horizonAsset.id }, 'asset_id', 'Actif introuvable.'],
    ] as const) {
      const res = await call('analyste', 'POST', URL_LIST, { payload });
      expect(res.statusCode, detail).toBe(400);
      expect(res.json()).toEqual({ detail, code: 'invalid', fields: { [field]: [detail] } });
    }
    expect((await call('analyste', 'POST', URL_LIST, { payload: { title: 'x', tenant_id: 'y' } })).statusCode).toBe(
      400,
    );

    const doomed = (await call('analyste', 'POST', URL_LIST, { payload: { title: 'À supprimer' } })).json();
    expect((await call('analyste', 'DELETE', `${URL_LIST}${doomed.id}/`)).statusCode).toBe(204);
    expect((await call('analyste', 'GET', `${URL_LIST}${doomed.id}/`)).json()).toEqual(NOT_FOUND);
  });

  it('lets viewers read only, and keeps another tenant’s threats out of reach', async () => {
    const horizon = { tenant: 'Banque Horizon' as const };
    const list = await call('lecteur', 'GET', URL_LIST, horizon);
    expect(list.statusCode).toBe(200);
    expect(list.json().total).toBe(1);
    const own = list.json().results[0].id as number;
    expect((await call('lecteur', 'GET', `${URL_LIST}summary/`, horizon)).statusCode).toBe(200);
    expect((await call('lecteur', 'GET', `${URL_LIST}${own}/`, horizon)).statusCode).toBe(200);
    for (const [method, url, payload] of [
      ['POST', URL_LIST, { title: 'x' }],
      ['PUT', `${URL_LIST}${own}/`, { title: 'x' }],
      ['PATCH', `${URL_LIST}${own}/`, { title: 'x' }],
      ['DELETE', `${URL_LIST}${own}/`, undefined],
      ['POST', `${URL_LIST}${own}/mark_mitigated/`, undefined],
    ] as const) {
      const res = await call('lecteur', method, url, { ...horizon, payload });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }

    const acmeThreat = created[0]!.id;
    for (const [method, suffix, payload] of [
      ['GET', '', undefined],
      ['PATCH', '', { title: 'Pirate' }],
      ['DELETE', '', undefined],
      ['POST', 'mark_mitigated/', undefined],
    ] as const) {
      const res = await call('admin', method, `${URL_LIST}${acmeThreat}/${suffix}`, { ...horizon, payload });
      expect(res.statusCode, `${method} ${suffix}`).toBe(404);
      expect(res.json()).toEqual(NOT_FOUND);
    }
    const [row] = await t.database.db.select().from(threats).where(eq(threats.id, acmeThreat));
    expect(row).toMatchObject({ title: 'Menace 1', isMitigated: false });
  });
});

describe('the demo threats in French', () => {
  it('has a French label for every threat type the demo data uses (no « brute_force » on screen)', () => {
    const types = new Set(Object.values(DEMO_THREATS).flatMap((list) => list.map((t) => t.type)));
    const missing = [...types].filter((type) => !Object.hasOwn(THREAT_TYPES, type));
    expect(missing).toEqual([]);
    expect(THREAT_TYPES.brute_force).toBe('Force brute');
  });
});
