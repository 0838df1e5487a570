import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { assets, cves, triageSettings, vulnerabilities } from '../../server/src/db/schema.ts';
import { nvdRecord } from '../../server/src/importers/nvd.ts';
import { cve5Record } from '../../server/src/importers/cve5.ts';
import { applyKevEntries, upsertCveRecords } from '../../server/src/repositories/cves.ts';
import { severityFromName, severityFromScore } from '../../server/src/scan-reports/severity.ts';
import { MESSAGES } from '../../server/src/schemas/vulnerabilities.ts';
import { processScanReport } from '../../server/src/services/scan-import.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { multipart } from './support/http.ts';
import { addFinding, addUser, auditEventsOf, seededTenants } from './support/world.ts';

const LIST = '/api/vulnerabilities/vulnerabilities/';
const V31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const V31_MEDIUM = 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N';
const CISA_ADP = '134c704f-9b21-4f2e-91b3-4a467353bcc0';

const nvdItem = (metrics: Record<string, unknown>) => ({
  cve: {
    id: 'CVE-2099-7001',
    published: '2024-01-01T00:00:00.000',
    lastModified: '2024-02-01T00:00:00.000',
    vulnStatus: 'Analyzed',
    descriptions: [{ lang: 'en', value: 'A flaw.' }],
    metrics,
  },
});
const nvdMetric = (type: string, source: string, vector = V31) => ({
  cvssMetricV31: [{ source, type, cvssData: { version: '3.1', vectorString: vector, baseScore: 9.8 } }],
});
const cve5 = (cna: Record<string, unknown>, adp: Record<string, unknown>[] = []) => ({
  dataType: 'CVE_RECORD',
  cveMetadata: {
    cveId: 'CVE-2099-7002',
    state: 'PUBLISHED',
    datePublished: '2024-01-01T00:00:00Z',
    dateUpdated: '2024-02-01T00:00:00Z',
  },
  containers: { cna: { descriptions: [{ lang: 'en', value: 'A flaw.' }], ...cna }, adp },
});
const cvssV31 = (vector: string) => ({ metrics: [{ cvssV3_1: { vectorString: vector, baseScore: 9.8 } }] });

describe('who scored a CVE, and « Non évaluée » (importers)', () => {
  it('names NVD for its own (Primary) score, CISA ADP and the CNA for a Secondary one', () => {
    expect(nvdRecord(nvdItem(nvdMetric('Primary', 'nvd@nist.gov')))).toMatchObject({
      severity: 'critical',
      cvss_source: 'nvd',
    });
    expect(nvdRecord(nvdItem(nvdMetric('Secondary', CISA_ADP)))).toMatchObject({ cvss_source: 'adp' });
    expect(nvdRecord(nvdItem(nvdMetric('Secondary', 'security@apache.org')))).toMatchObject({ cvss_source: 'cna' });
  });

  it('reads a CVE 5 record’s CNA score first, then CISA ADP’s (Vulnrichment)', () => {
    expect(
      cve5Record(cve5(cvssV31(V31), [{ providerMetadata: { shortName: 'CISA-ADP' }, ...cvssV31(V31_MEDIUM) }])),
    ).toMatchObject({ severity: 'critical', cvss_source: 'cna' });
    expect(
      cve5Record(cve5({}, [{ providerMetadata: { shortName: 'CISA-ADP' }, ...cvssV31(V31_MEDIUM) }])),
    ).toMatchObject({ severity: 'medium', cvss_source: 'adp' });
  });

  it('calls a record without any CVSS unrated, not Info', () => {
    expect(nvdRecord(nvdItem({}))).toMatchObject({ severity: 'unrated', cvss_source: null });
    expect(cve5Record(cve5({}))).toMatchObject({ severity: 'unrated', cvss_source: null });
  });

  it('keeps Info for a score of 0 and a scanner’s « informational », and « unknown » unrated', () => {
    expect(severityFromScore(0)).toBe('info');
    expect(severityFromScore(undefined)).toBe('unrated');
    expect(severityFromName('informational')).toBe('info');
    expect(severityFromName('UNKNOWN')).toBe('unrated');
  });
});

describe(`a finding's severity, its source and an analyst's override (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  let assetIds: number[] = [];
  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    await addUser(t.database.db, 'lecteur-gravite', [acme, 'readonly']);
    assetIds = (
      await t.database.db.select({ id: assets.id }).from(assets).where(eq(assets.tenantId, acme)).limit(20)
    ).map((a) => a.id);
    await upsertCveRecords(t.database.db, [
      nvdRecord({ cve: { ...nvdItem(nvdMetric('Primary', 'nvd@nist.gov')).cve, id: 'CVE-2099-7101' } }),
      cve5Record({
        ...cve5({}, [{ providerMetadata: { shortName: 'CISA-ADP' }, ...cvssV31(V31_MEDIUM) }]),
        cveMetadata: { ...cve5({}).cveMetadata, cveId: 'CVE-2099-7102' },
      }),
    ]);
    // Known exploited, and nothing else known: a KEV stub without CVSS (Log4Shell's case in the demo store).
    await applyKevEntries(t.database.db, [
      {
        cve_id: 'CVE-2099-7103',
        title: 'Exploitée sans score',
        description: '',
        cwe_ids: [],
        date_added: '2026-11-01',
        due_date: '2026-11-22',
        required_action: 'Appliquer le correctif.',
        vendor: 'Exemple',
        product: 'Produit',
        name: 'Exemple Produit',
        known_ransomware: 'Unknown',
      },
    ]);
  });

  // Each on its own asset: one finding per asset and CVE.
  let created = 0;
  const create = (body: Record<string, unknown>, user = 'analyste') =>
    call(user, 'POST', LIST, { payload: { asset_id: assetIds[created++ % assetIds.length], ...body } });
  const override = (id: number, body: Record<string, unknown>, user = 'analyste') =>
    call(user, 'POST', `${LIST}${id}/severity/`, { payload: body });
  const history = async (id: number) =>
    jsonOf<{ kind: string; from_value: string | null; to_value: string | null; comment: string }[]>(
      await call('analyste', 'GET', `${LIST}${id}/history/`),
      200,
    );

  it('rates a new finding from its CVE and says who scored it; without any rating it is « Non évaluée »', async () => {
    expect(jsonOf(await create({ cve_id: 'CVE-2099-7101' }), 201)).toMatchObject({
      severity: 'critical',
      severity_source: 'nvd',
      rated_severity: null,
    });
    expect(jsonOf(await create({ cve_id: 'CVE-2099-7102' }), 201)).toMatchObject({
      severity: 'medium',
      severity_source: 'adp',
    });
    expect(jsonOf(await create({ cve_id: 'CVE-2099-7103' }), 201)).toMatchObject({
      severity: 'unrated',
      cvss_score: null,
      kev: true,
    });
    expect(jsonOf(await create({ title: 'Constat sans CVE ni gravité' }), 201)).toMatchObject({
      severity: 'unrated',
      severity_source: 'analyst',
    });
    expect(jsonOf(await create({ title: 'Constat noté à la main', severity: 'low' }), 201)).toMatchObject({
      severity: 'low',
      severity_source: 'analyst',
    });
    const { id } = jsonOf<{ id: number }>(await create({ title: 'Détail', cve_id: 'CVE-2099-7102' }), 201);
    const detail = jsonOf<{ cve: unknown }>(await call('analyste', 'GET', `${LIST}${id}/`), 200);
    expect(detail.cve).toMatchObject({ severity: 'medium', cvss_source: 'adp' });
  });

  it('overrides with a reason, keeps the source’s rating under it, and restores it when withdrawn', async () => {
    const { id } = jsonOf<{ id: number }>(await create({ title: 'Surcote', cve_id: 'CVE-2099-7101' }), 201);
    const lowered = jsonOf<Record<string, unknown>>(
      await override(id, { severity: 'medium', reason: ' Service joignable seulement depuis le bastion ' }),
      200,
    );
    expect(lowered).toMatchObject({
      severity: 'medium',
      severity_source: 'analyst',
      severity_reason: 'Service joignable seulement depuis le bastion',
      rated_severity: 'critical',
      rated_source: 'nvd',
    });
    // A second override keeps the source's rating, not the first override's.
    expect(jsonOf(await override(id, { severity: 'low', reason: 'Compensé par le WAF' }), 200)).toMatchObject({
      severity: 'low',
      rated_severity: 'critical',
      rated_source: 'nvd',
    });
    const audit = await auditEventsOf(t.database.db, {
      eventType: 'data_change',
      description: `Vulnérabilité #${id} : gravité « Critique » → « Moyenne » (analyste)`,
    });
    expect(audit).toHaveLength(1);
    const withdrawn = jsonOf<Record<string, unknown>>(await call('analyste', 'DELETE', `${LIST}${id}/severity/`), 200);
    expect(withdrawn).toMatchObject({
      severity: 'critical',
      severity_source: 'nvd',
      severity_reason: null,
      rated_severity: null,
      rated_source: null,
    });
    expect(
      (await history(id)).filter((l) => l.kind === 'severity').map((l) => [l.from_value, l.to_value, l.comment]),
    ).toEqual([
      ['critical', 'medium', 'Service joignable seulement depuis le bastion'],
      ['medium', 'low', 'Compensé par le WAF'],
      ['low', 'critical', ''],
    ]);
    const again = await call('analyste', 'DELETE', `${LIST}${id}/severity/`);
    expect(again.statusCode).toBe(400);
    expect(again.json().detail).toBe(MESSAGES.noOverride);
  });

  it('refuses an override without a reason or with an unknown severity (French), to a reader, and across tenants', async () => {
    const { id } = jsonOf<{ id: number }>(await create({ title: 'Refus', severity: 'high' }), 201);
    for (const reason of [undefined, '   ']) {
      const res = await override(id, { severity: 'low', ...(reason === undefined ? {} : { reason }) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ detail: MESSAGES.severityReason, fields: { reason: expect.any(Array) } });
    }
    const unknown = await override(id, { severity: 'grave', reason: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail).toBe(MESSAGES.severity);
    expect((await override(id, { severity: 'low', reason: 'lecture seule' }, 'lecteur-gravite')).statusCode).toBe(403);
    const elsewhere = await addFinding(t.database.db, { tenantId: horizon, title: 'Ailleurs', severity: 'high' });
    expect((await override(elsewhere.id, { severity: 'low', reason: 'autre organisation' })).statusCode).toBe(404);
    expect((await call('analyste', 'DELETE', `${LIST}${elsewhere.id}/severity/`)).statusCode).toBe(404);
    const [row] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, id));
    expect(row).toMatchObject({ severity: 'high', severitySource: 'analyst', severityReason: null });
    const [theirs] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, elsewhere.id));
    expect(theirs!.severity).toBe('high');
  });

  it('takes a PATCH of the severity as the analyst’s rating, with severity_reason', async () => {
    const { id } = jsonOf<{ id: number }>(await create({ title: 'Par PATCH', cve_id: 'CVE-2099-7102' }), 201);
    const patched = jsonOf<Record<string, unknown>>(
      await call('analyste', 'PATCH', `${LIST}${id}/`, {
        payload: { severity: 'high', severity_reason: 'Exposé sur Internet' },
      }),
      200,
    );
    expect(patched).toMatchObject({
      severity: 'high',
      severity_source: 'analyst',
      severity_reason: 'Exposé sur Internet',
      rated_severity: 'medium',
      rated_source: 'adp',
    });
    expect((await history(id)).at(-1)).toMatchObject({
      kind: 'severity',
      from_value: 'medium',
      to_value: 'high',
      comment: 'Exposé sur Internet',
    });
  });

  it('lists « Non évaluée » apart from Info: its own filter, its place after Info, its own count', async () => {
    const tag = 'Tri-non-evaluee';
    const info = await addFinding(t.database.db, { tenantId: acme, title: `${tag} info`, severity: 'info' });
    const unrated = await addFinding(t.database.db, { tenantId: acme, title: `${tag} inconnue`, severity: 'unrated' });
    const low = await addFinding(t.database.db, { tenantId: acme, title: `${tag} faible`, severity: 'low' });
    const ids = async (query: string) =>
      jsonOf<{ results: { id: number; severity: string }[] }>(
        await call('analyste', 'GET', `${LIST}?text=${tag}&page_size=50&${query}`),
        200,
      ).results.map((r) => r.id);
    expect(await ids('severity=unrated')).toEqual([unrated.id]);
    expect(await ids('severity=info')).toEqual([info.id]);
    expect(await ids('ordering=-severity')).toEqual([low.id, info.id, unrated.id]);
    expect(await ids('ordering=severity')).toEqual([unrated.id, info.id, low.id]);
    // Without the text filter the list walks the severity cells: the unrated one is found there too.
    const cells = jsonOf<{ results: { id: number }[] }>(
      await call('analyste', 'GET', `${LIST}?severity=unrated&page_size=100`),
      200,
    ).results.map((r) => r.id);
    expect(cells).toContain(unrated.id);
    expect(cells).not.toContain(info.id);
    const summary = jsonOf<{ severity_distribution: Record<string, number> }>(
      await call('analyste', 'GET', '/api/vulnerabilities/summary/'),
      200,
    );
    expect(summary.severity_distribution.unrated).toBe(
      (
        await t.database.db
          .select({ id: vulnerabilities.id })
          .from(vulnerabilities)
          .where(
            and(
              eq(vulnerabilities.tenantId, acme),
              eq(vulnerabilities.severity, 'unrated'),
              eq(vulnerabilities.isResolved, false),
            ),
          )
      ).length,
    );
    expect(summary.severity_distribution.info).toBeGreaterThanOrEqual(1);
  });

  it('gives an unrated finding the tenant’s « Non évaluée » deadline, none by default', async () => {
    const bare = await addFinding(t.database.db, { tenantId: acme, title: 'Sans délai', severity: 'unrated' });
    expect(bare.dueDate).toBeNull();
    await t.database.db
      .insert(triageSettings)
      .values({ tenantId: horizon, slaUnratedDays: 14, slaInfoDays: 300 })
      .onConflictDoUpdate({ target: triageSettings.tenantId, set: { slaUnratedDays: 14, slaInfoDays: 300 } });
    const timed = await addFinding(t.database.db, {
      tenantId: horizon,
      title: 'À noter sous 14 jours',
      severity: 'unrated',
    });
    const firstSeen = timed.firstSeen.toISOString().slice(0, 10);
    const expected = new Date(`${firstSeen}T00:00:00Z`);
    expected.setUTCDate(expected.getUTCDate() + 14);
    expect(timed.dueDate).toBe(expected.toISOString().slice(0, 10));
  });

  it('keeps an analyst’s override through a re-scan, the scanner’s new rating going under it', async () => {
    const image = 'registry.exemple.fr/gravite:1.0';
    const report = (severity: string) =>
      JSON.stringify({
        SchemaVersion: 2,
        ArtifactName: image,
        ArtifactType: 'container_image',
        Results: [
          {
            Target: image,
            Class: 'os-pkgs',
            Type: 'alpine',
            Vulnerabilities: [
              { VulnerabilityID: 'CVE-2099-7201', PkgName: 'p1', InstalledVersion: '1', Severity: severity },
              { VulnerabilityID: 'CVE-2099-7202', PkgName: 'p2', InstalledVersion: '1', Severity: 'UNKNOWN' },
            ],
          },
        ],
      });
    let n = 0;
    const scan = async (content: string) => {
      const res = await call('analyste', 'POST', '/api/vulnerabilities/scans/import/', {
        ...multipart([
          { name: 'start', value: 'false' },
          { name: 'name', value: `Gravité ${++n}` },
          { name: 'file', value: Buffer.from(content), filename: 'trivy.json' },
        ]),
      });
      expect(res.statusCode, res.body).toBe(201);
      const outcome = await processScanReport(t.database, {
        tenantId: acme,
        scanId: res.json().id,
        filesDir: t.filesDir,
      });
      if (outcome.status !== 'COMPLETED') throw new Error(`scan not completed: ${JSON.stringify(outcome)}`);
      return outcome.summary;
    };
    const rows = async () => {
      const [asset] = await t.database.db
        .select({ id: assets.id })
        .from(assets)
        .where(and(eq(assets.tenantId, acme), eq(assets.name, image)));
      const found = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.assetId, asset!.id));
      return new Map(found.map((r) => [r.cveId, r]));
    };
    const first = await scan(report('HIGH'));
    expect(first.by_severity).toMatchObject({ high: 1, unrated: 1, info: 0 });
    const before = await rows();
    expect(before.get('CVE-2099-7201')).toMatchObject({ severity: 'high', severitySource: 'scanner' });
    expect(before.get('CVE-2099-7202')).toMatchObject({ severity: 'unrated', severitySource: 'scanner' });
    jsonOf(await override(before.get('CVE-2099-7201')!.id, { severity: 'low', reason: 'Paquet jamais chargé' }), 200);
    await scan(report('CRITICAL'));
    expect((await rows()).get('CVE-2099-7201')).toMatchObject({
      severity: 'low',
      severitySource: 'analyst',
      severityReason: 'Paquet jamais chargé',
      ratedSeverity: 'critical',
      ratedSource: 'scanner',
    });
    // Withdrawn: the scanner's latest rating is back.
    expect(
      jsonOf(await call('analyste', 'DELETE', `${LIST}${before.get('CVE-2099-7201')!.id}/severity/`), 200),
    ).toMatchObject({ severity: 'critical', severity_source: 'scanner' });
    const [store] = await t.database.db.select().from(cves).where(eq(cves.cveId, 'CVE-2099-7103'));
    expect(store).toMatchObject({ severity: 'unrated', cvssSource: null, kev: true });
  });
});

describe(`a newer CVE record rates the findings on it (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  beforeAll(async () => {
    ({ acme } = await seededTenants(t.database.db));
  });

  it('rates « Non évaluée » and scanner-rated findings, goes under an override, and leaves a hand rating alone', async () => {
    const cveId = 'CVE-2099-7301';
    const add = (title: string, values: Partial<typeof vulnerabilities.$inferInsert>) =>
      addFinding(t.database.db, { tenantId: acme, title, cveId, findingKey: `${cveId}:${title}`, ...values });
    const unrated = await add('Inconnue', { severity: 'unrated', severitySource: 'scanner' });
    const byScanner = await add('Scanner', { severity: 'low', severitySource: 'scanner' });
    const typedIn = await add('Saisie sans note', { severity: 'unrated', severitySource: 'analyst' });
    const byHand = await add('À la main', { severity: 'medium', severitySource: 'analyst' });
    const overridden = await add('Surcharge', {
      severity: 'high',
      severitySource: 'analyst',
      severityReason: 'Exposé',
      ratedSeverity: 'low',
      ratedSource: 'scanner',
    });
    await upsertCveRecords(t.database.db, [
      nvdRecord({ cve: { ...nvdItem(nvdMetric('Primary', 'nvd@nist.gov')).cve, id: cveId } }),
    ]);
    const rows = new Map(
      (await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.cveId, cveId))).map((r) => [
        r.id,
        r,
      ]),
    );
    for (const f of [unrated, byScanner, typedIn])
      expect(rows.get(f.id), f.title).toMatchObject({
        severity: 'critical',
        severitySource: 'nvd',
        cvssScore: 9.8,
        cvssVector: V31,
      });
    expect(rows.get(byHand.id)).toMatchObject({ severity: 'medium', severitySource: 'analyst', cvssVector: null });
    expect(rows.get(overridden.id)).toMatchObject({
      severity: 'high',
      severitySource: 'analyst',
      ratedSeverity: 'critical',
      ratedSource: 'nvd',
      cvssVector: V31,
    });
    // Its page reads the new rating.
    expect(jsonOf(await call('analyste', 'GET', `${LIST}${unrated.id}/`), 200)).toMatchObject({
      severity: 'critical',
      severity_source: 'nvd',
    });
  });
});
