import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { assets, cves, cwes, users, vulnerabilities } from '../../server/src/db/schema.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { CSV_HEADERS } from '../../server/src/presenters/vulnerability.ts';
import { apiFor, jsonOf, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN } from './support/http.ts';
import { auditEventsOf, seededTenants } from './support/world.ts';

const LIST = '/api/vulnerabilities/vulnerabilities/';
const FIELDS = [
  'id',
  'title',
  'description',
  'cve_id',
  'severity',
  'severity_source',
  'severity_reason',
  'rated_severity',
  'rated_source',
  'cvss_score',
  'cvss_vector',
  'kev',
  'epss_score',
  'cwe_ids',
  'asset',
  'asset_id',
  'scan_id',
  'port',
  'protocol',
  'service',
  'package_name',
  'installed_version',
  'fixed_version',
  'solution',
  'source',
  'is_resolved',
  'resolved_at',
  'resolved_by',
  'state',
  'state_changed_at',
  'state_reason',
  'accepted_by',
  'accepted_until',
  'assignee_id',
  'due_date',
  'ssvc_decision',
  'first_seen',
  'last_seen',
  'created_at',
  'updated_at',
].sort();
// « Non évaluée » sorts apart, after Info (docs/severity.md).
const RANK: Record<string, number> = { critical: 5, high: 4, medium: 3, low: 2, info: 1, unrated: 0 };

type Finding = Record<string, unknown> & { id: number };

/** RFC 4180 reader, enough for the export (quoted cells, doubled quotes, CRLF and newlines inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

describe(`vulnerabilities API (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    // A CVE store record of our own, so the copy from the store is tested whatever the CVE seed holds.
    await t.database.db
      .insert(cwes)
      .values([
        { id: 'CWE-9901', name: 'Faiblesse de test A' },
        { id: 'CWE-9902', name: 'Faiblesse de test B' },
      ])
      .onConflictDoNothing();
    await t.database.db.insert(cves).values({
      cveId: 'CVE-2099-0001',
      title: 'Produit de test : exécution de code à distance',
      description: 'Description publique du CVE de test.',
      severity: 'critical',
      cvss3Score: 9.1,
      cvss3Vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N',
      cvss3Severity: 'CRITICAL',
      kev: true,
      kevDateAdded: '2099-01-02',
      cweIds: ['CWE-9901', 'CWE-9902'],
      epssScore: 0.42,
      epssPercentile: 0.97,
    });
  });

  const dbFindings = (tenant: string) =>
    t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.tenantId, tenant));
  const acmeAsset = async (name = 'srv-web-01') =>
    (
      await t.database.db
        .select({ id: assets.id })
        .from(assets)
        .where(and(eq(assets.tenantId, acme), eq(assets.name, name)))
    )[0]!.id;
  const list = async (query: string, user = 'analyste') =>
    jsonOf<{ count: number; results: Finding[] }>(await call(user, 'GET', `${LIST}?page_size=500&${query}`), 200);

  it('lists the tenant’s findings newest first with exactly the contract fields', async () => {
    const rows = await dbFindings(acme);
    expect(rows.length).toBeGreaterThanOrEqual(40);
    const res = await call('analyste', 'GET', LIST);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.count).toBe(rows.length);
    expect(body.results).toHaveLength(25);
    expect(body.previous).toBeNull();
    expect(body.next).toBe(`${LIST}?page=2`);
    for (const r of body.results) expect(Object.keys(r).sort()).toEqual(FIELDS);
    const dates = body.results.map((r: Finding) => r.created_at as string);
    expect([...dates].sort().reverse()).toEqual(dates);
    const withAsset = body.results.find((r: Finding) => r.asset_id !== null);
    expect(withAsset.asset).toEqual({ id: withAsset.asset_id, name: expect.any(String) });
  });

  it('pages with next/previous links that keep the filters', async () => {
    const first = (await call('analyste', 'GET', `${LIST}?page_size=10&severity=critical,high`)).json();
    expect(first.next).toBe(`${LIST}?page_size=10&severity=critical%2Chigh&page=2`);
    const second = (await call('analyste', 'GET', first.next)).json();
    expect(second.previous).toBe(`${LIST}?page_size=10&severity=critical%2Chigh&page=1`);
    const ids = new Set([...first.results, ...second.results].map((r: Finding) => r.id));
    expect(ids.size).toBe(first.results.length + second.results.length);
    const last = Math.ceil(first.count / 10);
    const end = (await call('analyste', 'GET', `${LIST}?page_size=10&severity=critical,high&page=${last}`)).json();
    expect(end.next).toBeNull();
    const beyond = (await call('analyste', 'GET', `${LIST}?page_size=10&page=${last + 50}`)).json();
    expect(beyond.results).toEqual([]);
    // The count rides on a page's rows; a page past the end still says how many there are.
    expect([second.count, end.count]).toEqual([first.count, first.count]);
    expect(beyond.count).toBe((await dbFindings(acme)).length);
    const pastFiltered = (
      await call('analyste', 'GET', `${LIST}?page_size=10&severity=critical,high&page=${last + 1}`)
    ).json();
    expect(pastFiltered).toMatchObject({ count: first.count, results: [] });
  });

  it('filters by severity (one or a list), resolution, asset, CVE, KEV, text and scan', async () => {
    const rows = await dbFindings(acme);
    const check = async (query: string, expected: typeof rows) => {
      const body = await list(query);
      expect(body.count, query).toBe(expected.length);
      expect(body.results.map((r) => r.id).sort((a, b) => a - b)).toEqual(
        expected.map((r) => r.id).sort((a, b) => a - b),
      );
    };
    await check(
      'severity=critical',
      rows.filter((r) => r.severity === 'critical'),
    );
    await check(
      'severity=critical,HIGH',
      rows.filter((r) => ['critical', 'high'].includes(r.severity)),
    );
    await check(
      'is_resolved=true',
      rows.filter((r) => r.isResolved),
    );
    await check(
      'is_resolved=false',
      rows.filter((r) => !r.isResolved),
    );
    const assetId = rows.find((r) => r.assetId !== null)!.assetId!;
    await check(
      `asset=${assetId}`,
      rows.filter((r) => r.assetId === assetId),
    );
    const cve = rows.find((r) => r.cveId !== null)!.cveId!;
    await check(
      `cve=${cve.toLowerCase()}`,
      rows.filter((r) => r.cveId === cve),
    );
    await check(
      'kev=true',
      rows.filter((r) => r.kev),
    );
    await check(
      'kev=false',
      rows.filter((r) => !r.kev),
    );
    const scanId = rows.find((r) => r.scanId !== null)!.scanId!;
    await check(
      `scan=${scanId}`,
      rows.filter((r) => r.scanId === scanId),
    );
    const word = 'smbv1';
    const byText = rows.filter((r) => `${r.cveId ?? ''} ${r.title} ${r.description}`.toLowerCase().includes(word));
    expect(byText.length).toBeGreaterThan(0);
    await check(`text=${word.toUpperCase()}`, byText);
    await check(
      `text=${cve.slice(4)}`,
      rows.filter((r) => r.cveId?.includes(cve.slice(4))),
    );
    // Combined, and a LIKE wildcard is taken literally.
    await check(
      'severity=critical&is_resolved=false&kev=true',
      rows.filter((r) => r.severity === 'critical' && !r.isResolved && r.kev),
    );
    await check('text=%25', []);
  });

  it('finds a finding by its new text after an edit, in one tenant only, without exposing the text store', async () => {
    const marker = `Zéphyr${Date.now().toString(36)}`;
    const id = (await call('analyste', 'POST', LIST, { payload: { title: 'Titre provisoire' } })).json().id;
    const found = async (user: string, q: string, tenant?: 'Banque Horizon') =>
      (await call(user, 'GET', `${LIST}?page_size=500&text=${encodeURIComponent(q)}`, tenant ? { tenant } : {})).json<{
        count: number;
        results: Finding[];
      }>();
    expect((await found('analyste', marker)).count).toBe(0);
    await call('analyste', 'PATCH', `${LIST}${id}/`, { payload: { description: `Détail ${marker} du correctif` } });
    // Case-insensitive, accents kept, the old text gone from the results.
    for (const q of [marker, marker.toUpperCase(), `${marker.toLowerCase()} du`]) {
      const body = await found('analyste', q);
      expect(body.count, q).toBe(1);
      expect(body.results[0]?.id).toBe(id);
    }
    await call('analyste', 'PATCH', `${LIST}${id}/`, { payload: { description: 'Autre détail' } });
    expect((await found('analyste', marker)).count).toBe(0);
    expect((await found('analyste', 'Titre provisoire')).results.map((r: { id: number }) => r.id)).toContain(id);
    // Another tenant with the same text does not see this one's finding, and sees its own.
    const other = (
      await call('manager', 'POST', LIST, { payload: { title: 'Titre provisoire' }, tenant: 'Banque Horizon' })
    ).json().id;
    const horizonIds = (await found('manager', 'Titre provisoire', 'Banque Horizon')).results.map(
      (r: { id: number }) => r.id,
    );
    expect(horizonIds).toEqual([other]);
    // The application role reaches the texts only through the matching function.
    await expect(
      withTenant(t.database.db, acme as TenantId, (tx) => tx.execute(sql`select count(*) from vulnerability_texts`)),
    ).rejects.toMatchObject({ cause: { message: expect.stringMatching(/permission denied/) } });
  });

  it('orders by every allowed field, both ways', async () => {
    for (const field of ['created_at', 'updated_at', 'severity', 'cvss_score', 'cve_id', 'title', 'last_seen']) {
      for (const dir of ['', '-']) {
        const { results } = await list(`ordering=${dir}${field}`);
        const keys = results
          .map((r) => (field === 'severity' ? RANK[r.severity as string] : r[field]))
          .filter((k) => k !== null) as (string | number)[];
        const sorted = [...keys].sort((a, b) =>
          typeof a === 'number' ? a - (b as number) : a < b ? -1 : a > b ? 1 : 0,
        );
        if (dir === '-') sorted.reverse();
        expect(keys, `${dir}${field}`).toEqual(sorted);
        // Nulls last both ways.
        const nullsAt = results.map((r) => r[field] === null);
        expect(nullsAt.indexOf(true) === -1 || nullsAt.slice(nullsAt.indexOf(true)).every(Boolean)).toBe(true);
      }
    }
  });

  it('refuses malformed filters, paging and ordering with French field errors', async () => {
    for (const [query, field] of [
      ['severity=urgent', 'severity'],
      ['severity=critical,,bogus', 'severity'],
      ['is_resolved=peut-etre', 'is_resolved'],
      ['kev=oui', 'kev'],
      ['asset=abc', 'asset'],
      ['scan=-1', 'scan'],
      ['page=0', 'page'],
      ['page_size=501', 'page_size'],
      ['ordering=password', 'ordering'],
      [`text=${'x'.repeat(201)}`, 'text'],
    ] as const) {
      const res = await call('analyste', 'GET', `${LIST}?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().fields[field], query).toBeDefined();
      expect(res.json().code).toBe('invalid');
    }
    expect((await call('analyste', 'GET', `${LIST}?page_size=500&_=123`)).statusCode).toBe(200);
  });

  it('creates a finding from a known CVE, copying its facts; same asset and CVE twice is a conflict', async () => {
    const assetId = await acmeAsset('srv-web-01');
    const res = await call('analyste', 'POST', LIST, { payload: { cve_id: 'cve-2099-0001', asset_id: assetId } });
    const created = jsonWithFields(res, 201, FIELDS);
    expect(created).toMatchObject({
      cve_id: 'CVE-2099-0001',
      title: 'Produit de test : exécution de code à distance',
      description: 'Description publique du CVE de test.',
      severity: 'critical',
      cvss_score: 9.1,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N',
      kev: true,
      epss_score: 0.42,
      cwe_ids: ['CWE-9901', 'CWE-9902'],
      asset: { id: assetId, name: 'srv-web-01' },
      source: 'manual',
      is_resolved: false,
      resolved_at: null,
    });
    const [row] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, created.id));
    expect(row!.findingKey).toBe('CVE-2099-0001');
    expect(row!.tenantId).toBe(acme);

    const again = await call('analyste', 'POST', LIST, { payload: { cve_id: 'CVE-2099-0001', asset_id: assetId } });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/déjà/);

    // Body values win over the store's; the detail adds the CVE record.
    const other = await call('analyste', 'POST', LIST, {
      payload: {
        cve_id: 'CVE-2099-0001',
        asset_id: await acmeAsset('db-prod-01'),
        severity: 'low',
        title: 'Mon titre',
      },
    });
    expect(other.statusCode).toBe(201);
    expect(other.json()).toMatchObject({ severity: 'low', title: 'Mon titre', kev: true });
    const detail = (await call('analyste', 'GET', `${LIST}${created.id}/`)).json();
    expect(detail.cve).toMatchObject({
      cve_id: 'CVE-2099-0001',
      severity: 'critical',
      cvss_v31: { score: 9.1 },
      cvss_v4: null,
      cwes: [
        { id: 'CWE-9901', name: 'Faiblesse de test A' },
        { id: 'CWE-9902', name: 'Faiblesse de test B' },
      ],
      kev: { date_added: '2099-01-02' },
      epss: { score: 0.42, percentile: 0.97 },
      affected_assets: 2,
    });
    expect(detail.cve.cvss_v31.metrics[0]).toEqual({
      key: 'AV',
      name: "Vecteur d'attaque",
      value: 'N',
      value_label: 'Réseau',
    });
  });

  it('creates manual findings with a generated key and validates the body', async () => {
    const res = await call('analyste', 'POST', LIST, {
      payload: { title: '  Service Telnet exposé  ', port: 23, protocol: 'tcp', service: 'telnet', cvss_score: 7.5 },
    });
    expect(res.statusCode, res.body).toBe(201);
    // No severity given: the score typed in rates it (7.5 is high on CVSS's scale), by the analyst.
    expect(res.json()).toMatchObject({
      title: 'Service Telnet exposé',
      severity: 'high',
      severity_source: 'analyst',
      cve_id: null,
      asset: null,
      kev: false,
      cwe_ids: [],
      port: 23,
    });
    const [row] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, res.json().id));
    expect(row!.findingKey).toMatch(/^manual:[0-9a-f-]{36}$/);
    // Two manual findings with the same title are two findings.
    expect((await call('analyste', 'POST', LIST, { payload: { title: 'Service Telnet exposé' } })).statusCode).toBe(
      201,
    );
    // An unknown CVE is accepted with a title, refused without.
    expect((await call('analyste', 'POST', LIST, { payload: { cve_id: 'CVE-2099-9999' } })).statusCode).toBe(400);
    const unknown = await call('analyste', 'POST', LIST, { payload: { cve_id: 'CVE-2099-9999', title: 'Inconnu' } });
    expect(unknown.statusCode).toBe(201);
    // Nothing rates it: « Non évaluée », not a made-up Medium.
    expect(unknown.json()).toMatchObject({ severity: 'unrated', kev: false });

    const horizonAsset = (
      await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.tenantId, horizon)).limit(1)
    )[0]!.id;
    for (const [payload, field] of [
      [{}, 'title'],
      [{ title: 'x', severity: 'urgent' }, 'severity'],
      [{ title: 'x', cve_id: 'CVE-99' }, 'cve_id'],
      [{ title: 'x', cvss_score: 11 }, 'cvss_score'],
      [{ title: 'x', port: 70000 }, 'port'],
      [{ title: 'x', asset_id: 999999 }, 'asset_id'],
      // Another tenant's asset is unknown here (the foreign key alone would accept it).
      [{ title: 'x', asset_id: horizonAsset }, 'asset_id'],
      [{ title: 'x', tenant_id: horizon }, 'tenant_id'],
      [{ title: 'x', is_resolved: true }, 'is_resolved'],
      [{ title: 42 }, 'title'],
    ] as const) {
      const bad = await call('analyste', 'POST', LIST, { payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().fields[field], JSON.stringify(payload)).toBeDefined();
    }
  });

  it('updates with PATCH and PUT; PUT requires a title', async () => {
    const id = (await call('analyste', 'POST', LIST, { payload: { title: 'À corriger' } })).json().id;
    const patched = await call('analyste', 'PATCH', `${LIST}${id}/`, {
      payload: { severity: 'high', description: 'détail', asset_id: await acmeAsset('fw-interne-02') },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ title: 'À corriger', severity: 'high', description: 'détail' });
    expect(patched.json().asset.name).toBe('fw-interne-02');
    expect(new Date(patched.json().updated_at) >= new Date(patched.json().created_at)).toBe(true);
    expect((await call('analyste', 'PUT', `${LIST}${id}/`, { payload: { severity: 'low' } })).statusCode).toBe(400);
    const put = await call('analyste', 'PUT', `${LIST}${id}/`, { payload: { title: 'Corrigé', severity: 'low' } });
    expect(put.json()).toMatchObject({ title: 'Corrigé', severity: 'low', description: 'détail' });
    // Attaching the known CVE copies its facts and re-keys the manual finding.
    const withCve = await call('analyste', 'PATCH', `${LIST}${id}/`, { payload: { cve_id: 'CVE-2099-0001' } });
    expect(withCve.json()).toMatchObject({ kev: true, cwe_ids: ['CWE-9901', 'CWE-9902'], title: 'Corrigé' });
    const [row] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, id));
    expect(row!.findingKey).toBe('CVE-2099-0001');
    // Moving it onto an asset that already has this CVE is a conflict.
    const clash = await call('analyste', 'PATCH', `${LIST}${id}/`, {
      payload: { asset_id: await acmeAsset('srv-web-01') },
    });
    expect(clash.statusCode).toBe(409);
    expect((await call('analyste', 'PATCH', `${LIST}abc/`, { payload: { title: 'x' } })).statusCode).toBe(404);
    expect((await call('analyste', 'PATCH', `${LIST}99999999/`, { payload: { title: 'x' } })).statusCode).toBe(404);
  });

  it('marks resolved (who and when) and reopens', async () => {
    const id = (await call('analyste', 'POST', LIST, { payload: { title: 'À résoudre' } })).json().id;
    const [analyste] = await t.database.db.select({ id: users.id }).from(users).where(eq(users.username, 'analyste'));
    const resolved = await call('analyste', 'POST', `${LIST}${id}/mark_resolved/`);
    expect(resolved.statusCode, resolved.body).toBe(200);
    expect(resolved.json()).toMatchObject({ is_resolved: true, resolved_by: analyste!.id });
    expect(Date.now() - new Date(resolved.json().resolved_at).getTime()).toBeLessThan(60_000);
    // Resolving again keeps the first resolution.
    const twice = await call('manager', 'POST', `${LIST}${id}/mark_resolved/`, { payload: { is_resolved: true } });
    expect(twice.json()).toMatchObject({ resolved_by: analyste!.id, resolved_at: resolved.json().resolved_at });
    const reopened = await call('analyste', 'POST', `${LIST}${id}/mark_resolved/`, { payload: { is_resolved: false } });
    expect(reopened.json()).toMatchObject({ is_resolved: false, resolved_at: null, resolved_by: null });
    expect(
      (await call('analyste', 'POST', `${LIST}${id}/mark_resolved/`, { payload: { resolved: true } })).statusCode,
    ).toBe(400);
    // PATCH may resolve too.
    const patched = await call('analyste', 'PATCH', `${LIST}${id}/`, { payload: { is_resolved: true } });
    expect(patched.json()).toMatchObject({ is_resolved: true, resolved_by: analyste!.id });
  });

  it('deletes (204, then 404)', async () => {
    const id = (await call('analyste', 'POST', LIST, { payload: { title: 'À supprimer' } })).json().id;
    expect((await call('analyste', 'DELETE', `${LIST}${id}/`)).statusCode).toBe(204);
    expect((await call('analyste', 'DELETE', `${LIST}${id}/`)).statusCode).toBe(404);
    expect((await call('analyste', 'GET', `${LIST}${id}/`)).statusCode).toBe(404);
  });

  it('lets the Horizon viewer read but never write (403, audited)', async () => {
    const body = (await call('lecteur', 'GET', LIST)).json();
    const mine = await dbFindings(horizon);
    expect(body.count).toBe(mine.length);
    const id = mine[0]!.id;
    expect((await call('lecteur', 'GET', `${LIST}${id}/`)).statusCode).toBe(200);
    for (const [method, url, payload] of [
      ['POST', LIST, { title: 'x' }],
      ['POST', LIST, { bogus: true }],
      ['PATCH', `${LIST}${id}/`, { title: 'x' }],
      ['PUT', `${LIST}${id}/`, { title: 'x' }],
      ['DELETE', `${LIST}${id}/`, undefined],
      ['POST', `${LIST}${id}/mark_resolved/`, undefined],
    ] as const) {
      const res = await call('lecteur', method, url, payload ? { payload } : {});
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }
    const denied = await auditEventsOf(t.database.db, { eventType: 'permission_denied', username: 'lecteur' });
    expect(denied.length).toBeGreaterThanOrEqual(6);
    const [after] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, id));
    expect(after!.title).toBe(mine[0]!.title);
  });

  it('keeps tenants apart: another tenant’s finding is 404, lists never mix, X-Tenant-ID selects', async () => {
    const acmeRow = (await dbFindings(acme))[0]!;
    for (const [method, payload] of [
      ['GET', undefined],
      ['PATCH', { title: 'piraté' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call('lecteur', method, `${LIST}${acmeRow.id}/`, payload ? { payload } : {});
      expect(res.statusCode).toBe(method === 'GET' ? 404 : 403);
      const staff = await call('manager', method, `${LIST}${acmeRow.id}/`, {
        tenant: 'Banque Horizon',
        ...(payload ? { payload } : {}),
      });
      expect(staff.statusCode, method).toBe(404);
    }
    expect(
      (await call('manager', 'POST', `${LIST}${acmeRow.id}/mark_resolved/`, { tenant: 'Banque Horizon' })).statusCode,
    ).toBe(404);
    const horizonIds = new Set((await dbFindings(horizon)).map((r) => r.id));
    const acmeIds = new Set((await dbFindings(acme)).map((r) => r.id));
    const asHorizon = (await call('manager', 'GET', `${LIST}?page_size=500`, { tenant: 'Banque Horizon' })).json();
    expect(asHorizon.count).toBe(horizonIds.size);
    expect(asHorizon.results.every((r: Finding) => horizonIds.has(r.id))).toBe(true);
    const asAcme = (await call('manager', 'GET', `${LIST}?page_size=500`, { tenant: 'Acme Sécurité' })).json();
    expect(asAcme.count).toBe(acmeIds.size);
    expect(asAcme.results.every((r: Finding) => acmeIds.has(r.id))).toBe(true);
    // Text search goes through the owner-rights function: it must stay inside the tenant too.
    const horizonCve = (await dbFindings(horizon)).find((r) => r.cveId)!.cveId!;
    const searched = (await call('lecteur', 'GET', `${LIST}?page_size=500&text=${horizonCve}`)).json();
    expect(searched.results.length).toBeGreaterThan(0);
    expect(searched.results.every((r: Finding) => horizonIds.has(r.id))).toBe(true);
    // A tenant the caller does not belong to is refused.
    expect((await call('analyste', 'GET', LIST, { tenant: 'Banque Horizon' })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: LIST })).statusCode).toBe(401);
  });

  it('exports every filtered row as CSV and JSON, streamed, audited', async () => {
    const query = 'severity=critical,high&is_resolved=false';
    const expected = (await list(query)).count;
    expect(expected).toBeGreaterThan(0);

    const csv = await call('analyste', 'GET', `/api/vulnerabilities/export/?format=csv&${query}`);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const day = new Date().toISOString().slice(0, 10);
    expect(csv.headers['content-disposition']).toBe(`attachment; filename="vulnerabilites-${day}.csv"`);
    const rows = parseCsv(csv.body.replace(/^\uFEFF/, ''));
    // Spreadsheet users read French column names; every column has one.
    expect(rows[0]!.slice(0, 7)).toEqual([
      'Identifiant',
      'CVE',
      'Titre',
      'Sévérité',
      'Source de la sévérité',
      'Motif de la sévérité',
      'Score CVSS',
    ]);
    expect(rows[0]!.every((h) => /^[A-ZÉ]/.test(h) && !h.includes('_'))).toBe(true);
    expect(rows.length - 1).toBe(expected);
    expect(rows.every((r) => r.length === rows[0]!.length)).toBe(true);

    const json = await call('analyste', 'GET', `/api/vulnerabilities/export/?format=json&${query}`);
    expect(json.headers['content-disposition']).toBe(`attachment; filename="vulnerabilites-${day}.json"`);
    const items = json.json<Finding[]>();
    expect(items).toHaveLength(expected);
    expect(Object.keys(items[0]!).sort()).toEqual(FIELDS);
    expect(items.every((r) => ['critical', 'high'].includes(r.severity as string) && r.is_resolved === false)).toBe(
      true,
    );

    // The export reads its own query: every value equals what the list answers, and the CSV says the same.
    const all = await call('analyste', 'GET', '/api/vulnerabilities/export/?format=json');
    const everything = all.json<Finding[]>();
    expect(everything).toHaveLength((await dbFindings(acme)).length);
    expect(everything.length).toBeLessThanOrEqual(500);
    const byId = (a: Finding, b: Finding) => a.id - b.id;
    const listed = (await list('')).results;
    expect([...everything].sort(byId)).toEqual([...listed].sort(byId));
    expect(everything.some((r) => r.resolved_at !== null && r.asset !== null && r.epss_score !== null)).toBe(true);
    const header = rows[0]!;
    for (const item of items.slice(0, 5)) {
      const line = rows.find((r) => r[0] === String(item.id))!;
      const cell = (name: keyof typeof CSV_HEADERS) => line[header.indexOf(CSV_HEADERS[name])];
      expect(cell('created_at')).toBe(item.created_at);
      expect(cell('asset_name')).toBe((item.asset as { name: string } | null)?.name ?? '');
      expect(cell('cwe_ids')).toBe((item.cwe_ids as string[]).join(';'));
      expect(cell('cvss_score')).toBe(item.cvss_score === null ? '' : String(item.cvss_score as number));
    }
    const empty = await call('analyste', 'GET', '/api/vulnerabilities/export/?format=json&cve=CVE-1999-0000');
    expect(empty.json()).toEqual([]);

    const bad = await call('analyste', 'GET', '/api/vulnerabilities/export/?format=xlsx');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.format).toBeDefined();
    expect((await call('analyste', 'GET', '/api/vulnerabilities/export/?format=csv&severity=x')).statusCode).toBe(400);

    const audited = await auditEventsOf(t.database.db, { eventType: 'sensitive_data_access', username: 'analyste' });
    expect(audited.length).toBeGreaterThanOrEqual(4);
    expect(audited[0]).toMatchObject({ tenantId: acme, severity: 'INFO' });
    expect(audited[0]!.description).toMatch(/Export des vulnérabilités/);
    expect(audited[0]!.details).toMatchObject({ format: 'csv', filters: { severity: 'critical,high' } });
  });

  it('writes CSV cells safely: quotes, commas, newlines and formula injection', async () => {
    const tricky = [
      '=HYPERLINK("http://evil.example","clic")',
      '+cmd|calc',
      '-2+3',
      '@SUM(A1)',
      '\tindent',
      'virgule, "guillemets"\net retour',
    ];
    const ids: number[] = [];
    for (const title of tricky) {
      // The body trims titles; the description keeps them verbatim.
      const res = await call('analyste', 'POST', LIST, { payload: { title: `CSV ${ids.length}`, description: title } });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id);
    }
    const csv = await call('analyste', 'GET', '/api/vulnerabilities/export/?format=csv&text=CSV');
    const rows = parseCsv(csv.body.replace(/^\uFEFF/, ''));
    const header = rows[0]!;
    const byId = new Map(rows.slice(1).map((r) => [Number(r[header.indexOf('Identifiant')]), r]));
    const description = (id: number) => byId.get(id)![header.indexOf('Description')];
    expect(description(ids[0]!)).toBe(`'${tricky[0]}`);
    expect(description(ids[1]!)).toBe(`'${tricky[1]}`);
    expect(description(ids[2]!)).toBe(`'${tricky[2]}`);
    expect(description(ids[3]!)).toBe(`'${tricky[3]}`);
    expect(description(ids[4]!)).toBe(`'${tricky[4]}`);
    expect(description(ids[5]!)).toBe(tricky[5]);
    expect(csv.body).toContain('"virgule, ""guillemets""\net retour"');
  });

  it('keeps the counters equal to the findings after inserts, updates, deletes and bulk inserts', async () => {
    const compare = async () => {
      const q = async (text: string) => (await t.database.executeSql(text)).rows;
      const actual = await q(`
        select tenant_id, coalesce(asset_id, 0) as asset_id, severity, is_resolved, kev, count(*)::int as n
        from vulnerabilities group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
      const counted = await q(`
        select tenant_id, asset_id, severity, is_resolved, kev, n::int as n
        from vulnerability_counts where n <> 0 order by 1, 2, 3, 4, 5`);
      expect(counted).toEqual(actual);
      const daily = await q(`
        select tenant_id, (created_at at time zone 'UTC')::date::text as day, severity, is_resolved, kev, count(*)::int as n
        from vulnerabilities group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
      const dailyCounted = await q(`
        select tenant_id, day::text as day, severity, is_resolved, kev, n::int as n
        from vulnerability_daily_counts where n <> 0 order by 1, 2, 3, 4, 5`);
      expect(dailyCounted).toEqual(daily);
      const cwe = await q(`
        select v.tenant_id, w.cwe_id, v.severity, v.is_resolved, v.kev, count(*)::int as n
        from vulnerabilities v cross join lateral (select distinct u as cwe_id from unnest(v.cwe_ids) u) w
        group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
      const cweCounted = await q(`
        select tenant_id, cwe_id, severity, is_resolved, kev, n::int as n
        from vulnerability_cwe_counts where n <> 0 order by 1, 2, 3, 4, 5`);
      expect(cweCounted).toEqual(cwe);
      // The totals count by SSVC decision too (migration 0029; 0: none, a resolved finding).
      const totals = await q(`
        select tenant_id, severity, is_resolved, kev, coalesce(ssvc_decision, 0)::int as ssvc, count(*)::int as n
        from vulnerabilities group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`);
      const totalsCounted = await q(`
        select tenant_id, severity, is_resolved, kev, ssvc_decision::int as ssvc, n::int as n
        from vulnerability_totals where n <> 0 order by 1, 2, 3, 4, 5`);
      expect(totalsCounted).toEqual(totals);
      expect((await q('select count(*)::int as n from vulnerability_totals where n < 0'))[0]!.n).toBe(0);
    };
    await compare();
    const id = (
      await call('analyste', 'POST', LIST, {
        payload: { cve_id: 'CVE-2099-0001', asset_id: await acmeAsset('poste-dev-12') },
      })
    ).json().id;
    await compare();
    await call('analyste', 'POST', `${LIST}${id}/mark_resolved/`);
    await call('analyste', 'PATCH', `${LIST}${id}/`, { payload: { severity: 'info', asset_id: null } });
    await compare();
    await call('analyste', 'DELETE', `${LIST}${id}/`);
    await compare();
    // A bulk insert (one statement, many rows), a bulk update and deleting an asset (cascade).
    const assetId = await acmeAsset('srv-sig-01');
    await t.database.db.execute(sql`
      insert into vulnerabilities (tenant_id, asset_id, finding_key, title, severity, kev, cwe_ids, is_resolved, state,
                                   created_at)
      select ${acme}, ${assetId}, 'bulk:' || g, 'Bulk ' || g, (array['critical','high','medium','low','info'])[1 + g % 5],
             g % 7 = 0, array['CWE-9901', 'CWE-' || (g % 3)], g % 4 = 0, case when g % 4 = 0 then 'fixed' else 'new' end,
             now() - (g % 40) * interval '1 day'
      from generate_series(1, 500) g`);
    await compare();
    await t.database.db.execute(
      sql`update vulnerabilities set is_resolved = not is_resolved,
                                     state = case when is_resolved then 'confirmed' else 'fixed' end
          where finding_key like 'bulk:%'`,
    );
    await compare();
    expect((await call('analyste', 'DELETE', `/api/assets/${assetId}/`)).statusCode).toBe(204);
    await compare();
    const summary = (await call('analyste', 'GET', LIST)).json();
    expect(summary.count).toBe((await dbFindings(acme)).length);
  });

  it('counts the list from the tenant totals, exactly, for every countable filter; the totals stay in their tenant', async () => {
    // Findings spread over every counter key, some without an asset, then moved and partly deleted in bulk.
    const assetId = await acmeAsset('srv-web-01');
    await t.database.db.execute(sql`
      insert into vulnerabilities (tenant_id, asset_id, finding_key, title, severity, kev, is_resolved, state)
      select ${acme}, case when g % 3 = 0 then null else ${assetId}::bigint end, 'totals:' || g, 'Totaux ' || g,
             (array['critical','high','medium','low','info'])[1 + g % 5], g % 4 = 0, g % 6 = 0,
             case when g % 6 = 0 then 'verified' else 'new' end
      from generate_series(1, 120) g`);
    await t.database.db.execute(
      sql`update vulnerabilities set kev = not kev, severity = 'low' where finding_key like 'totals:%' and id % 5 = 0`,
    );
    await t.database.db.execute(sql`delete from vulnerabilities where finding_key like 'totals:%' and id % 7 = 0`);
    const rows = await dbFindings(acme);
    const queries: [string, (r: (typeof rows)[number]) => boolean][] = [
      ['', () => true],
      ['severity=critical', (r) => r.severity === 'critical'],
      ['severity=critical,low', (r) => r.severity === 'critical' || r.severity === 'low'],
      ['is_resolved=false', (r) => !r.isResolved],
      ['is_resolved=true&kev=true', (r) => r.isResolved && r.kev],
      ['severity=low&is_resolved=false&kev=false', (r) => r.severity === 'low' && !r.isResolved && !r.kev],
      [`asset=${assetId}&severity=high`, (r) => r.assetId === assetId && r.severity === 'high'],
    ];
    for (const [query, keep] of queries) {
      expect((await call('analyste', 'GET', `${LIST}?page_size=1&${query}`)).json().count, query).toBe(
        rows.filter(keep).length,
      );
    }
    // Under the application role, row-level security shows this tenant's totals only and refuses writing another's.
    const visible = await withTenant(t.database.db, acme as TenantId, (tx) =>
      tx.execute(sql`select distinct tenant_id::text as tenant_id from vulnerability_totals`),
    );
    expect((visible as { rows: { tenant_id: string }[] }).rows.map((r) => r.tenant_id)).toEqual([acme]);
    await expect(
      withTenant(t.database.db, acme as TenantId, (tx) =>
        tx.execute(
          sql`insert into vulnerability_totals (tenant_id, severity, is_resolved, kev, n) values (${horizon}, 'info', false, false, 1)`,
        ),
      ),
    ).rejects.toThrow();
  });
});
