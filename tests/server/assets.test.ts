import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { assets, vulnerabilities } from '../../server/src/db/schema.ts';
import { apiFor, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ASSET_ATTRIBUTES } from './support/contract.ts';
import { FORBIDDEN } from './support/http.ts';
import { seededTenants } from './support/world.ts';

const LIST = '/api/assets/';
const FIELDS = [
  'id',
  ...ASSET_ATTRIBUTES,
  'vulnerability_count',
  'open_vulnerability_count',
  'created_at',
  'updated_at',
].sort();
const RANK: Record<string, number> = { low: 1, medium: 2, high: 3, critical: 4 };

type AssetJson = Record<string, unknown> & { id: number; name: string };

describe(`assets API (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  beforeAll(async () => ({ acme, horizon } = await seededTenants(t.database.db)));
  const dbAssets = (tenant: string) => t.database.db.select().from(assets).where(eq(assets.tenantId, tenant));

  it('lists the tenant’s assets by name with counts of their findings', async () => {
    const rows = await dbAssets(acme);
    const res = await call('analyste', 'GET', LIST);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ count: rows.length, next: null, previous: null });
    for (const a of body.results) expect(Object.keys(a).sort()).toEqual(FIELDS);
    const names = body.results.map((a: AssetJson) => a.name);
    expect(names).toEqual([...names].sort());
    const findings = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.tenantId, acme));
    for (const a of body.results as AssetJson[]) {
      const mine = findings.filter((f) => f.assetId === a.id);
      expect(a.vulnerability_count, a.name).toBe(mine.length);
      expect(a.open_vulnerability_count, a.name).toBe(mine.filter((f) => !f.isResolved).length);
    }
    expect(body.results.some((a: AssetJson) => (a.vulnerability_count as number) > 0)).toBe(true);
  });

  it('filters by type, criticality and text, orders, pages and validates', async () => {
    const rows = await dbAssets(acme);
    const get = async (q: string) =>
      (await call('analyste', 'GET', `${LIST}?${q}`)).json<{
        count: number;
        next: string | null;
        previous: string | null;
        results: AssetJson[];
      }>();
    expect((await get('asset_type=network')).count).toBe(rows.filter((r) => r.assetType === 'network').length);
    expect((await get('criticality=CRITICAL')).count).toBe(rows.filter((r) => r.criticality === 'critical').length);
    const byText = await get('text=pare-feu');
    expect(byText.count).toBe(rows.filter((r) => r.description.toLowerCase().includes('pare-feu')).length);
    expect(byText.count).toBeGreaterThan(0);
    expect((await get('text=10.0.0.10')).results.map((a: AssetJson) => a.name)).toEqual(['vpn-gw-01']);
    const desc = (await get('ordering=-name')).results.map((a: AssetJson) => a.name);
    expect(desc).toEqual([...desc].sort().reverse());
    const byCrit = (await get('ordering=-criticality')).results.map((a: AssetJson) => RANK[a.criticality as string]!);
    expect(byCrit).toEqual([...byCrit].sort((a, b) => b - a));
    const byDate = (await get('ordering=created_at')).results.map((a: AssetJson) => a.created_at as string);
    expect(byDate).toEqual([...byDate].sort());
    const page = await get('page_size=5&page=2&asset_type=');
    expect(page.results).toHaveLength(5);
    expect(page.previous).toBe(`${LIST}?page_size=5&page=1`);
    expect(page.next).toBe(`${LIST}?page_size=5&page=3`);
    for (const q of ['asset_type=robot', 'criticality=extreme', 'ordering=ip_address', 'page=x', 'page_size=0']) {
      const res = await call('analyste', 'GET', `${LIST}?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().code).toBe('invalid');
    }
  });

  it('creates, reads, updates and deletes; names are unique per tenant (409)', async () => {
    const created = await call('analyste', 'POST', LIST, {
      payload: {
        name: ' srv-test-01 ',
        asset_type: 'server',
        ip_address: '192.0.2.10',
        criticality: 'high',
        tags: ['test', 'test', ' lab '],
        description: 'Serveur de test',
      },
    });
    const a = jsonWithFields(created, 201, FIELDS);
    expect(a).toMatchObject({
      name: 'srv-test-01',
      asset_type: 'server',
      ip_address: '192.0.2.10',
      criticality: 'high',
      tags: ['test', 'lab'],
      hostname: null,
      vulnerability_count: 0,
      open_vulnerability_count: 0,
    });
    const dup = await call('analyste', 'POST', LIST, { payload: { name: 'srv-test-01' } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().detail).toBe('Un actif porte déjà ce nom.');
    // The same name in another tenant is fine.
    const elsewhere = await call('manager', 'POST', LIST, {
      payload: { name: 'srv-test-01' },
      tenant: 'Banque Horizon',
    });
    expect(elsewhere.statusCode).toBe(201);
    expect(elsewhere.json()).toMatchObject({ asset_type: 'server', criticality: 'medium' });

    // Counts follow the findings.
    await call('analyste', 'POST', '/api/vulnerabilities/vulnerabilities/', {
      payload: { title: 'Faille 1', asset_id: a.id },
    });
    const f2 = await call('analyste', 'POST', '/api/vulnerabilities/vulnerabilities/', {
      payload: { title: 'Faille 2', asset_id: a.id },
    });
    await call('analyste', 'POST', `/api/vulnerabilities/vulnerabilities/${f2.json().id}/mark_resolved/`);
    expect((await call('analyste', 'GET', `${LIST}${a.id}/`)).json()).toMatchObject({
      vulnerability_count: 2,
      open_vulnerability_count: 1,
    });

    const patched = await call('analyste', 'PATCH', `${LIST}${a.id}/`, {
      payload: { owner: 'Équipe test', hostname: 'srv-test-01.interne', ip_address: null },
    });
    expect(patched.json()).toMatchObject({ owner: 'Équipe test', ip_address: null, name: 'srv-test-01' });
    expect((await call('analyste', 'PUT', `${LIST}${a.id}/`, { payload: { owner: 'x' } })).statusCode).toBe(400);
    const put = await call('analyste', 'PUT', `${LIST}${a.id}/`, { payload: { name: 'srv-test-02' } });
    expect(put.json().name).toBe('srv-test-02');
    const rename = await call('analyste', 'PATCH', `${LIST}${a.id}/`, { payload: { name: 'srv-web-01' } });
    expect(rename.statusCode).toBe(409);

    for (const [payload, field] of [
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x', asset_type: 'robot' }, 'asset_type'],
      [{ name: 'x', criticality: 'extreme' }, 'criticality'],
      [{ name: 'x', ip_address: '999.1.1.1' }, 'ip_address'],
      [{ name: 'x', vulnerability_count: 3 }, 'vulnerability_count'],
      [{ name: 'x', tags: 'a' }, 'tags'],
    ] as const) {
      const bad = await call('analyste', 'POST', LIST, { payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().fields[field], JSON.stringify(payload)).toBeDefined();
    }

    // Deleting an asset deletes its findings.
    expect((await call('analyste', 'DELETE', `${LIST}${a.id}/`)).statusCode).toBe(204);
    expect((await call('analyste', 'GET', `${LIST}${a.id}/`)).statusCode).toBe(404);
    const left = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.assetId, a.id));
    expect(left).toEqual([]);
    expect((await call('analyste', 'DELETE', `${LIST}${a.id}/`)).statusCode).toBe(404);
  });

  it('lets the viewer read, never write; another tenant’s asset is 404; lists never mix', async () => {
    const mine = await dbAssets(horizon);
    const body = (await call('lecteur', 'GET', `${LIST}?page_size=500`)).json();
    expect(body.count).toBe(mine.length);
    expect(body.results.every((a: AssetJson) => mine.some((m) => m.id === a.id))).toBe(true);
    const id = mine[0]!.id;
    expect((await call('lecteur', 'GET', `${LIST}${id}/`)).statusCode).toBe(200);
    for (const [method, url, payload] of [
      ['POST', LIST, { name: 'x' }],
      ['PATCH', `${LIST}${id}/`, { name: 'x' }],
      ['PUT', `${LIST}${id}/`, { name: 'x' }],
      ['DELETE', `${LIST}${id}/`, undefined],
    ] as const) {
      const res = await call('lecteur', method, url, payload ? { payload } : {});
      expect(res.statusCode, method).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }
    const acmeAsset = (await dbAssets(acme))[0]!;
    expect((await call('lecteur', 'GET', `${LIST}${acmeAsset.id}/`)).statusCode).toBe(404);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const res = await call('manager', method, `${LIST}${acmeAsset.id}/`, {
        tenant: 'Banque Horizon',
        ...(method === 'PATCH' ? { payload: { name: 'volé' } } : {}),
      });
      expect(res.statusCode, method).toBe(404);
    }
    const [still] = await t.database.db.select().from(assets).where(eq(assets.id, acmeAsset.id));
    expect(still!.name).toBe(acmeAsset.name);
    // A finding cannot be attached to another tenant's asset either.
    const cross = await call('manager', 'POST', '/api/vulnerabilities/vulnerabilities/', {
      payload: { title: 'x', asset_id: acmeAsset.id },
      tenant: 'Banque Horizon',
    });
    expect(cross.statusCode).toBe(400);
  });
});
