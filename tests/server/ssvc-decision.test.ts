import { Readable } from 'node:stream';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { SSVC_DECISIONS } from '../../contract/ssvc.ts';
import { rowsOf } from '../../server/src/db/client.ts';
import { assets, cves, vulnerabilities } from '../../server/src/db/schema.ts';
import { assessSsvc, DEFAULT_EPSS_THRESHOLD, ssvcRank, type SsvcFacts } from '../../server/src/domain/ssvc.ts';
import { importStream } from '../../server/src/importers/index.ts';
import { upsertCveRecords } from '../../server/src/repositories/cves.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { addFinding, seededTenants, userIdOf } from './support/world.ts';

/**
 * Issue 21, prioritisation: the SSVC decision kept on each open finding (migration 0029). The SQL expression is
 * checked against assessSsvc() on every branch of CISA's table; the kept decision follows the asset's exposure and
 * criticality, the tenant's EPSS threshold and the CVE store (KEV, EPSS, exploit references); the list filters and
 * sorts by it, the dashboard counts the Act ones, and no tenant's change reaches another's findings.
 */
const LIST = '/api/vulnerabilities/vulnerabilities/';
const SLA = '/api/vulnerabilities/sla/';
const SUMMARY = '/api/vulnerabilities/summary/';
const REMOTE_TOTAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

/** Vectors of every version and shape: each way of reading automatable and technical impact, and odd writings. */
const VECTORS: (string | null)[] = [
  null,
  '',
  '   ',
  'garbage',
  REMOTE_TOTAL,
  'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:L/A:N',
  'CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:H/I:H/A:H',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:H/A:N',
  'CVSS:3.1/AV:A/AC:H/PR:H/UI:R/S:U/C:H/I:H/A:H',
  'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
  'CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:N/VC:H/VI:L/VA:H/SC:N/SI:N/SA:N',
  'CVSS:4.0/AV:N/AC:L/PR:N/UI:N/VC:H/VI:H',
  'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:L/VI:H/VA:H/SC:N/SI:N/SA:N',
  'AV:N/AC:L/Au:N/C:C/I:C/A:C',
  'AV:L/AC:L/Au:N/C:P/I:P/A:P',
  'AV:N/AC:L/Au:N/C:P/I:C/A:N',
  'CVSS:2.0/AV:N/AC:L/Au:N/C:C/I:C/A:C',
  ` ${REMOTE_TOTAL}\t`,
  'CVSS:3.1/AV:L/AV:N/AC:L/PR:N/UI:N/C:H/I:H',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:H/AV:',
  'CVSS:3.1/AV:NX/AC:L/PR:N/UI:N/C:H/I:H',
  'CVSS:3.1/av:n/ac:l/pr:n/ui:n/c:h/i:h',
  'CVSS:3.1/AV:N:X/AC:L/PR:N/UI:N/C:H:Y/I:H',
  'CVSS:5.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H',
  '\u000bCVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:H\n',
  'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:Hv',
];

function* factsGrid(): Generator<SsvcFacts> {
  for (const cvssVector of VECTORS)
    for (const criticality of ['critical', 'high', 'medium', 'low', null, 'inconnue'])
      for (const internetExposed of [true, false, undefined])
        for (const kev of [false, true])
          for (const epssScore of [null, 0.05, 0.1, 0.3])
            for (const epssThreshold of [DEFAULT_EPSS_THRESHOLD, 0.05])
              for (const exploitReference of [false, true])
                yield { kev, epssScore, exploitReference, cvssVector, criticality, internetExposed, epssThreshold };
}

describe(`the SSVC decision kept on findings (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  const db = () => t.database.db;

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(db()));
    await db()
      .insert(cves)
      .values([
        {
          cveId: 'CVE-2098-4001',
          title: 'Exploitée',
          kev: true,
          epssScore: 0.02,
          cvss3Score: 9.8,
          cvss3Vector: REMOTE_TOTAL,
        },
        { cveId: 'CVE-2098-4002', title: 'Probable', epssScore: 0.07, cvss3Score: 9.8, cvss3Vector: REMOTE_TOTAL },
        { cveId: 'CVE-2098-4003', title: 'Bientôt KEV', cvss3Score: 9.8, cvss3Vector: REMOTE_TOTAL },
        {
          cveId: 'CVE-2098-4004',
          title: 'Bientôt probable',
          epssScore: 0.02,
          cvss3Score: 9.8,
          cvss3Vector: REMOTE_TOTAL,
        },
        {
          cveId: 'CVE-2098-4005',
          title: 'Bientôt un exploit',
          cvss3Score: 9.8,
          cvss3Vector: REMOTE_TOTAL,
          modifiedAt: new Date('2025-01-01T00:00:00Z'),
        },
      ]);
  });

  /** The kept decision of findings, by id. */
  const kept = async (ids: number[]) =>
    new Map(
      (
        await db()
          .select({ id: vulnerabilities.id, d: vulnerabilities.ssvcDecision, kev: vulnerabilities.kev })
          .from(vulnerabilities)
          .where(inArray(vulnerabilities.id, ids))
      ).map((r) => [r.id, r.d === 0 ? null : SSVC_DECISIONS[r.d - 1]]),
    );
  const decisionOf = async (id: number) => (await kept([id])).get(id);
  const detailOf = async (id: number) =>
    jsonOf<{ ssvc: { decision: string; mission_wellbeing: string; exploitation: string; reasons: string[] } }>(
      await call('analyste', 'GET', `${LIST}${id}/`),
      200,
    ).ssvc;
  const newAsset = async (body: Record<string, unknown>, tenant?: 'Banque Horizon') =>
    jsonOf<{ id: number; internet_exposed: boolean }>(
      await call(tenant ? 'admin' : 'analyste', 'POST', '/api/assets/', {
        payload: { name: `ssvc-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, ...body },
        ...(tenant ? { tenant } : {}),
      }),
      201,
    );
  const newFinding = async (cve: string, assetId: number, tenant?: 'Banque Horizon') =>
    jsonOf<{ id: number; ssvc_decision: string | null }>(
      await call(tenant ? 'admin' : 'analyste', 'POST', LIST, {
        payload: { cve_id: cve, asset_id: assetId },
        ...(tenant ? { tenant } : {}),
      }),
      201,
    );
  const openActCount = async (tenant: string) =>
    (
      await db()
        .select({ n: sql<number>`count(*)::int` })
        .from(vulnerabilities)
        .where(and(eq(vulnerabilities.tenantId, tenant), eq(vulnerabilities.ssvcDecision, ssvcRank('act'))))
    )[0]!.n;

  it('computes in SQL exactly what assessSsvc() decides, on every branch of CISA’s table', async () => {
    const grid = [...factsGrid()];
    const branches = new Set<string>();
    const expected = grid.map((f) => {
      const { decision, points } = assessSsvc(f);
      branches.add(Object.values(points).join('/'));
      return ssvcRank(decision);
    });
    expect(branches.size).toBe(36);
    const rows = grid.map((f, i) => ({
      i,
      kev: f.kev,
      epss: f.epssScore,
      xref: f.exploitReference,
      vector: f.cvssVector,
      criticality: f.criticality,
      exposed: f.internetExposed ?? null,
      threshold: f.epssThreshold,
    }));
    const result = await db().execute(sql`
      select r.i, ssvc_decision_of(r.kev, r.epss, r.xref, r.vector, r.criticality, r.exposed, r.threshold) as d
        from json_to_recordset(${JSON.stringify(rows)}::json) as r(i int, kev boolean, epss float8, xref boolean,
             vector text, criticality text, exposed boolean, threshold float8)
       order by r.i`);
    const got = rowsOf<{ i: number; d: number }>(result).map((r) => Number(r.d));
    const differ = grid.flatMap((f, i) => (got[i] === expected[i] ? [] : [{ ...f, sql: got[i], ts: expected[i] }]));
    expect(differ.slice(0, 5)).toEqual([]);
    expect(got).toHaveLength(grid.length);
    // The default threshold is the database's too.
    const [settings] = rowsOf<{ d: string }>(
      await db().execute(sql`select column_default as d from information_schema.columns
                              where table_name = 'triage_settings' and column_name = 'epss_threshold'`),
    );
    expect(Number(settings!.d)).toBe(DEFAULT_EPSS_THRESHOLD);
  });

  it('keeps on every open finding the decision its page explains, and none once it is resolved', async () => {
    // The demo's findings: the kept decision is the one assessSsvc() gives from the same facts.
    const open = await db()
      .select({ id: vulnerabilities.id, d: vulnerabilities.ssvcDecision })
      .from(vulnerabilities)
      .where(and(eq(vulnerabilities.tenantId, acme), eq(vulnerabilities.isResolved, false)))
      .limit(40);
    expect(open.length).toBeGreaterThan(10);
    for (const f of open) expect(SSVC_DECISIONS[f.d - 1], `#${f.id}`).toBe((await detailOf(f.id)).decision);
    const seen = new Set(open.map((f) => f.d));
    expect(seen.size).toBeGreaterThan(1);
    // Resolved, it has none; reopened, it has it again.
    const asset = await newAsset({ criticality: 'critical' });
    const f = await newFinding('CVE-2098-4001', asset.id);
    expect(f.ssvc_decision).toBe('act');
    const resolved = jsonOf<{ ssvc_decision: string | null }>(
      await call('analyste', 'POST', `${LIST}${f.id}/mark_resolved/`, { payload: { is_resolved: true } }),
      200,
    );
    expect(resolved.ssvc_decision).toBeNull();
    const reopened = jsonOf<{ ssvc_decision: string | null }>(
      await call('analyste', 'POST', `${LIST}${f.id}/mark_resolved/`, { payload: { is_resolved: false } }),
      200,
    );
    expect(reopened.ssvc_decision).toBe('act');
    // The database refuses a decision on a resolved finding, or none on an open one.
    await expect(db().execute(sql`update vulnerabilities set ssvc_decision = 0 where id = ${f.id}`)).rejects.toThrow();
    await db().execute(sql`update vulnerabilities set is_resolved = true, state = 'fixed' where id = ${f.id}`);
    expect(await decisionOf(f.id)).toBeNull();
    await expect(db().execute(sql`update vulnerabilities set ssvc_decision = 4 where id = ${f.id}`)).rejects.toThrow();
  });

  it('follows the asset’s exposure to the Internet and its criticality', async () => {
    const asset = await newAsset({ criticality: 'medium' });
    expect(asset.internet_exposed).toBe(false);
    const f = await newFinding('CVE-2098-4001', asset.id);
    // KEV, automatable, total impact; a medium asset not exposed: mission low → Attend.
    expect(f.ssvc_decision).toBe('attend');
    const exposed = jsonOf<{ internet_exposed: boolean }>(
      await call('analyste', 'PATCH', `/api/assets/${asset.id}/`, { payload: { internet_exposed: true } }),
      200,
    );
    expect(exposed.internet_exposed).toBe(true);
    expect(await decisionOf(f.id)).toBe('act');
    const detail = await detailOf(f.id);
    expect(detail).toMatchObject({ decision: 'act', mission_wellbeing: 'medium' });
    expect(detail.reasons[3]).toBe('Mission : moyenne (actif de criticité moyenne, exposé à Internet).');
    // The list shows the kept decision.
    const page = jsonOf<{ results: { id: number; ssvc_decision: string }[] }>(
      await call('analyste', 'GET', `${LIST}?asset=${asset.id}`),
      200,
    );
    expect(page.results.map((r) => [r.id, r.ssvc_decision])).toEqual([[f.id, 'act']]);
    await call('analyste', 'PATCH', `/api/assets/${asset.id}/`, { payload: { criticality: 'low' } });
    expect(await decisionOf(f.id)).toBe('attend');
    const refused = await call('analyste', 'PATCH', `/api/assets/${asset.id}/`, {
      payload: { internet_exposed: 'oui' },
    });
    expect(refused.statusCode).toBe(400);
  });

  it('follows the tenant’s EPSS threshold, set by its administrators with the SLA, and in no other tenant', async () => {
    // EPSS 7 %: under the default 10 %, no exploitation; a medium asset exposed: mission medium → Track.
    const asset = await newAsset({ criticality: 'medium', internet_exposed: true });
    const f = await newFinding('CVE-2098-4002', asset.id);
    expect(f.ssvc_decision).toBe('track');
    const horizonAsset = await newAsset({ criticality: 'medium', internet_exposed: true }, 'Banque Horizon');
    const other = await newFinding('CVE-2098-4002', horizonAsset.id, 'Banque Horizon');
    expect(other.ssvc_decision).toBe('track');

    const sla = { critical: 7, high: 30, medium: 90, low: 180, info: null };
    for (const bad of [0, -0.1, 1.5, 'x']) {
      const res = await call('admin', 'PUT', SLA, { payload: { ...sla, epss_threshold: bad } });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().detail).toBe(
        'Seuil EPSS invalide : une probabilité supérieure à 0 et au plus 1 est attendue (0,1 pour 10 %).',
      );
    }
    expect((await call('analyste', 'PUT', SLA, { payload: { ...sla, epss_threshold: 0.05 } })).statusCode).toBe(403);
    expect(await decisionOf(f.id)).toBe('track');

    const saved = jsonOf(await call('admin', 'PUT', SLA, { payload: { ...sla, epss_threshold: 0.05 } }), 200);
    expect(saved).toEqual({ ...sla, unrated: null, epss_threshold: 0.05 });
    expect(await decisionOf(f.id)).toBe('track_star');
    expect((await detailOf(f.id)).exploitation).toBe('poc');
    // Another tenant keeps its own threshold, and its findings their decisions.
    expect(await decisionOf(other.id)).toBe('track');
    expect(jsonOf(await call('lecteur', 'GET', SLA), 200)).toMatchObject({ epss_threshold: DEFAULT_EPSS_THRESHOLD });
    // Saving the SLA alone keeps the threshold.
    expect(jsonOf(await call('admin', 'PUT', SLA, { payload: sla }), 200)).toEqual({
      ...sla,
      unrated: null,
      epss_threshold: 0.05,
    });
    expect(await decisionOf(f.id)).toBe('track_star');
    // Back to the default: back to Track; 1 (only a certain exploit) is allowed.
    jsonOf(await call('admin', 'PUT', SLA, { payload: { ...sla, epss_threshold: 1 } }), 200);
    expect(await decisionOf(f.id)).toBe('track');
    jsonOf(await call('admin', 'PUT', SLA, { payload: { ...sla, epss_threshold: 0.1 } }), 200);
  });

  it('follows the CVE store: a KEV import, an EPSS import and a new exploit reference', async () => {
    const asset = await newAsset({ criticality: 'medium', internet_exposed: true });
    const horizonAsset = await newAsset({ criticality: 'medium', internet_exposed: true }, 'Banque Horizon');
    const later = await newFinding('CVE-2098-4003', asset.id);
    const laterHorizon = await newFinding('CVE-2098-4003', horizonAsset.id, 'Banque Horizon');
    const probable = await newFinding('CVE-2098-4004', asset.id);
    const exploit = await newFinding('CVE-2098-4005', asset.id);
    expect([later, laterHorizon, probable, exploit].map((f) => f.ssvc_decision)).toEqual([
      'track',
      'track',
      'track',
      'track',
    ]);
    const actBefore = await openActCount(acme);

    // CISA adds the CVE to the KEV catalogue: every tenant's findings on it are KEV, and Act (active, automatable,
    // total impact, mission medium).
    const kev = {
      vulnerabilities: [
        {
          cveID: 'CVE-2098-4003',
          vendorProject: 'Fournisseur',
          product: 'Produit',
          vulnerabilityName: 'Bientôt KEV',
          dateAdded: '2026-11-01',
          shortDescription: 'Exploitée.',
          requiredAction: 'Appliquer le correctif.',
          dueDate: '2026-11-22',
          knownRansomwareCampaignUse: 'Unknown',
          cwes: [],
        },
      ],
    };
    await importStream(db(), 'kev', Readable.from([JSON.stringify(kev)]), 'kev.json');
    expect(await kept([later.id, laterHorizon.id])).toEqual(
      new Map([
        [later.id, 'act'],
        [laterHorizon.id, 'act'],
      ]),
    );
    const [marked] = await db().select().from(vulnerabilities).where(eq(vulnerabilities.id, later.id));
    expect(marked!.kev).toBe(true);
    expect(await openActCount(acme)).toBe(actBefore + 1);
    expect(jsonOf<{ ssvc_act_count: number }>(await call('analyste', 'GET', SUMMARY), 200).ssvc_act_count).toBe(
      actBefore + 1,
    );

    // EPSS crosses the threshold: a proof of concept is likely → Track*.
    const epss = '#model_version:v2025.03.14,score_date:2026-11-28T00:00:00+0000\ncve,epss,percentile\n';
    await importStream(db(), 'epss', Readable.from([`${epss}CVE-2098-4004,0.42,0.97\n`]), 'epss.csv');
    expect(await decisionOf(probable.id)).toBe('track_star');
    await importStream(db(), 'epss', Readable.from([`${epss}CVE-2098-4004,0.01,0.2\n`]), 'epss.csv');
    expect(await decisionOf(probable.id)).toBe('track');

    // A newer record of the CVE names a public exploit → Track*.
    await upsertCveRecords(db(), [
      {
        cve_id: 'CVE-2098-4005',
        title: 'Bientôt un exploit',
        description: 'Un exploit est publié.',
        status: 'Modified',
        published_at: '2024-06-01T00:00:00Z',
        modified_at: '2026-11-01T00:00:00Z',
        cvss3_score: 9.8,
        cvss3_vector: REMOTE_TOTAL,
        cvss3_severity: 'critical',
        cvss4_score: null,
        cvss4_vector: null,
        cvss4_severity: null,
        cvss2_score: null,
        cvss2_vector: null,
        severity: 'critical',
        cvss_source: 'nvd',
        cwe_ids: [],
        references: [{ url: 'https://exploit.example/4005', source: 'nvd', tags: ['Exploit'] }],
        source: 'nvd',
      },
    ]);
    expect(await decisionOf(exploit.id)).toBe('track_star');
    expect((await detailOf(exploit.id)).reasons[0]).toBe(
      'Preuve de concept : une référence publique d’exploit est connue.',
    );
  });

  it('filters and sorts the list by decision, counts Act on the dashboard, and bulk work honours the filter', async () => {
    const act = await openActCount(acme);
    expect(act).toBeGreaterThan(1);
    const page = jsonOf<{ count: number; results: { id: number; ssvc_decision: string | null }[] }>(
      await call('analyste', 'GET', `${LIST}?ssvc=act&page_size=500`),
      200,
    );
    expect(page.count).toBe(act);
    expect(page.results).toHaveLength(act);
    expect(new Set(page.results.map((r) => r.ssvc_decision))).toEqual(new Set(['act']));
    // Act and Attend together, open ones (the same: a resolved finding has no decision), and none resolved.
    const both = jsonOf<{ count: number; results: { ssvc_decision: string }[] }>(
      await call('analyste', 'GET', `${LIST}?ssvc=attend,ACT&is_resolved=false&page_size=500`),
      200,
    );
    expect(new Set(both.results.map((r) => r.ssvc_decision))).toEqual(new Set(['act', 'attend']));
    expect(both.count).toBe(both.results.length);
    expect(
      jsonOf<{ count: number }>(await call('analyste', 'GET', `${LIST}?ssvc=act&is_resolved=true`), 200).count,
    ).toBe(0);
    expect(jsonOf<{ count: number }>(await call('analyste', 'GET', `${LIST}?ssvc=act&kev=false`), 200).count).toBe(0);
    // One asset's: counted on its findings.
    const [someAct] = await db()
      .select({ assetId: vulnerabilities.assetId })
      .from(vulnerabilities)
      .where(and(eq(vulnerabilities.tenantId, acme), eq(vulnerabilities.ssvcDecision, 4)))
      .limit(1);
    const ofAsset = jsonOf<{ count: number; results: unknown[] }>(
      await call('analyste', 'GET', `${LIST}?ssvc=act&asset=${someAct!.assetId}&page_size=500`),
      200,
    );
    expect(ofAsset.count).toBe(ofAsset.results.length);
    expect(ofAsset.count).toBeGreaterThan(0);
    const bad = await call('analyste', 'GET', `${LIST}?ssvc=urgent`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.ssvc).toEqual([
      'Décision SSVC invalide. Valeurs possibles : track, track_star, attend, act.',
    ]);

    // Act first, then Attend, Track*, Track, the resolved findings last; the other way round, resolved still last.
    const order = SSVC_DECISIONS.map((d) => d as string);
    for (const [ordering, sign] of [
      ['-ssvc_decision', -1],
      ['ssvc_decision', 1],
    ] as const) {
      const all = jsonOf<{ results: { id: number; ssvc_decision: string | null }[] }>(
        await call('analyste', 'GET', `${LIST}?ordering=${ordering}&page_size=500`),
        200,
      ).results;
      const ranks = all.map((r) => (r.ssvc_decision === null ? null : order.indexOf(r.ssvc_decision)));
      const firstNull = ranks.indexOf(null);
      expect(firstNull).toBeGreaterThan(0);
      expect(ranks.slice(firstNull).every((r) => r === null)).toBe(true);
      const decided = ranks.slice(0, firstNull) as number[];
      expect(decided).toEqual([...decided].sort((a, b) => sign * (a - b)));
      expect(all[0]!.ssvc_decision).toBe(sign < 0 ? 'act' : 'track');
    }

    // The dashboard's tile, with and without an asset.
    expect(jsonOf<{ ssvc_act_count: number }>(await call('analyste', 'GET', SUMMARY), 200).ssvc_act_count).toBe(act);
    expect(
      jsonOf<{ ssvc_act_count: number }>(await call('analyste', 'GET', `${SUMMARY}?asset=${someAct!.assetId}`), 200)
        .ssvc_act_count,
    ).toBe(ofAsset.count);

    // Every Act finding, and only those, by filter.
    const done = jsonOf<{ selected: number }>(
      await call('analyste', 'POST', '/api/vulnerabilities/bulk/', {
        payload: { filter: { ssvc: 'act' }, action: 'assign', assignee_id: await userIdOf(db(), 'analyste') },
      }),
      200,
    );
    expect(done.selected).toBe(act);
  });

  it('keeps each tenant to its own decisions', async () => {
    const horizonAct = await openActCount(horizon);
    const seen = jsonOf<{ count: number; results: { id: number }[] }>(
      await call('lecteur', 'GET', `${LIST}?ssvc=act&page_size=500`),
      200,
    );
    expect(seen.count).toBe(horizonAct);
    const ids = seen.results.map((r) => r.id);
    if (ids.length > 0) {
      const tenantsOf = await db()
        .selectDistinct({ tenantId: vulnerabilities.tenantId })
        .from(vulnerabilities)
        .where(inArray(vulnerabilities.id, ids));
      expect(tenantsOf).toEqual([{ tenantId: horizon }]);
    }
    expect(jsonOf<{ ssvc_act_count: number }>(await call('lecteur', 'GET', SUMMARY), 200).ssvc_act_count).toBe(
      horizonAct,
    );
    // An asset of one tenant moved by the other's session: not found, and its findings keep their decisions.
    const [acmeAsset] = await db().select().from(assets).where(eq(assets.tenantId, acme)).limit(1);
    const before = await db()
      .select({ id: vulnerabilities.id, d: vulnerabilities.ssvcDecision })
      .from(vulnerabilities)
      .where(eq(vulnerabilities.assetId, acmeAsset!.id));
    const res = await call('admin', 'PATCH', `/api/assets/${acmeAsset!.id}/`, {
      payload: { internet_exposed: !acmeAsset!.internetExposed, criticality: 'critical' },
      tenant: 'Banque Horizon',
    });
    expect(res.statusCode).toBe(404);
    expect(
      await db()
        .select({ id: vulnerabilities.id, d: vulnerabilities.ssvcDecision })
        .from(vulnerabilities)
        .where(eq(vulnerabilities.assetId, acmeAsset!.id)),
    ).toEqual(before);
    // A finding written straight into the table gets its decision too (the seed, the generator, imports).
    const direct = await addFinding(db(), {
      tenantId: horizon,
      title: 'Directe',
      cveId: 'CVE-2098-4001',
      kev: true,
      cvssVector: REMOTE_TOTAL,
    });
    // No asset: mission assumed medium → Act.
    expect(SSVC_DECISIONS[direct.ssvcDecision - 1]).toBe('act');
  });
});
