import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { SSVC_TABLE, ssvcDecision, type SsvcPoints } from '../../contract/ssvc.ts';
import { assets, cves } from '../../server/src/db/schema.ts';
import { assessSsvc, DEFAULT_EPSS_THRESHOLD, type SsvcFacts } from '../../server/src/domain/ssvc.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { addFinding, seededTenants } from './support/world.ts';

const V3_REMOTE_TOTAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const base: SsvcFacts = {
  kev: false,
  epssScore: null,
  exploitReference: false,
  cvssVector: V3_REMOTE_TOTAL,
  criticality: 'critical',
};

describe('SSVC decision points, read from what Vigie holds', () => {
  it('exploitation: KEV is active; EPSS at or above the threshold, or a public exploit, is a proof of concept', () => {
    expect(assessSsvc({ ...base, kev: true, epssScore: 0.001 }).points.exploitation).toBe('active');
    expect(assessSsvc({ ...base, epssScore: DEFAULT_EPSS_THRESHOLD }).points.exploitation).toBe('poc');
    expect(assessSsvc({ ...base, epssScore: 0.05, epssThreshold: 0.05 }).points.exploitation).toBe('poc');
    expect(assessSsvc({ ...base, epssScore: 0.0999 }).points.exploitation).toBe('none');
    expect(assessSsvc({ ...base, exploitReference: true }).points.exploitation).toBe('poc');
    const active = assessSsvc({ ...base, kev: true });
    expect(active.reasons[0]).toBe('Exploitation active : la CVE figure au catalogue KEV de la CISA.');
    // Intl writes a narrow no-break space before « % ».
    expect(assessSsvc({ ...base, epssScore: 0.42 }).reasons[0]!.replace(/[\u202f\u00a0]/g, ' ')).toBe(
      'Exploitation probable : EPSS 42 %, au-dessus du seuil de 10 %.',
    );
  });

  it('automatable and technical impact from CVSS v3, v4 and v2 vectors, and assumed without one', () => {
    const points = (cvssVector: string | null) => {
      const { automatable, technicalImpact } = assessSsvc({ ...base, cvssVector }).points;
      return [automatable, technicalImpact];
    };
    expect(points(V3_REMOTE_TOTAL)).toEqual(['yes', 'total']);
    expect(points('CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:L/A:N')).toEqual(['no', 'partial']);
    expect(points('CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:H/I:H/A:H')).toEqual(['no', 'total']);
    expect(points('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')).toEqual(['yes', 'total']);
    expect(points('CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:N/VC:H/VI:L/VA:H/SC:N/SI:N/SA:N')).toEqual(['no', 'partial']);
    expect(points('AV:N/AC:L/Au:N/C:C/I:C/A:C')).toEqual(['yes', 'total']);
    expect(points('AV:L/AC:L/Au:N/C:P/I:P/A:P')).toEqual(['no', 'partial']);
    const unknown = assessSsvc({ ...base, cvssVector: null });
    expect([unknown.points.automatable, unknown.points.technicalImpact]).toEqual(['no', 'total']);
    expect(unknown.reasons.slice(1, 3)).toEqual([
      'Automatisable : supposé non, faute de vecteur CVSS.',
      'Impact technique : supposé total par prudence, faute de vecteur CVSS.',
    ]);
  });

  it('mission and well-being from the asset’s criticality and exposure', () => {
    const mw = (criticality: string | null, internetExposed?: boolean) =>
      assessSsvc({ ...base, criticality, internetExposed }).points.missionWellbeing;
    expect([mw('critical'), mw('high'), mw('medium'), mw('low'), mw(null)]).toEqual([
      'high',
      'medium',
      'low',
      'low',
      'medium',
    ]);
    expect([mw('high', true), mw('medium', true), mw('low', true)]).toEqual(['high', 'medium', 'low']);
    expect(assessSsvc({ ...base, criticality: 'high' }).reasons[3]).toBe(
      'Mission : moyenne (actif de criticité élevée, exposition à Internet non renseignée).',
    );
  });

  it('follows CISA’s tree: every branch of the table', () => {
    // The guide's tree, branch by branch (exploitation, automatable, technical impact: low, medium, high).
    const guide: [SsvcPoints['exploitation'], SsvcPoints['automatable'], SsvcPoints['technicalImpact'], string][] = [
      ['none', 'no', 'partial', 'track track track'],
      ['none', 'no', 'total', 'track track track_star'],
      ['none', 'yes', 'partial', 'track track track'],
      ['none', 'yes', 'total', 'track track attend'],
      ['poc', 'no', 'partial', 'track track track_star'],
      ['poc', 'no', 'total', 'track track_star attend'],
      ['poc', 'yes', 'partial', 'track track attend'],
      ['poc', 'yes', 'total', 'track track_star attend'],
      ['active', 'no', 'partial', 'track track attend'],
      ['active', 'no', 'total', 'track attend act'],
      ['active', 'yes', 'partial', 'attend attend act'],
      ['active', 'yes', 'total', 'attend act act'],
    ];
    let branches = 0;
    for (const [exploitation, automatable, technicalImpact, expected] of guide) {
      const got = (['low', 'medium', 'high'] as const)
        .map((missionWellbeing) => ssvcDecision({ exploitation, automatable, technicalImpact, missionWellbeing }))
        .join(' ');
      expect(got, `${exploitation}/${automatable}/${technicalImpact}`).toBe(expected);
      branches += 3;
    }
    expect(branches).toBe(36);
    expect(Object.keys(SSVC_TABLE)).toEqual(['none', 'poc', 'active']);
    // End to end from facts: Log4Shell on a critical server is Act.
    expect(assessSsvc({ ...base, kev: true }).decision).toBe('act');
  });
});

describe(`SSVC on a finding (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  beforeAll(async () => {
    ({ acme } = await seededTenants(t.database.db));
  });

  it('answers the decision and its reasons with the finding', async () => {
    await t.database.db
      .insert(cves)
      .values({ cveId: 'CVE-2099-6001', title: 'Exploitée', kev: true, epssScore: 0.7 })
      .onConflictDoNothing();
    const [critical] = await t.database.db
      .insert(assets)
      .values({ tenantId: acme, name: `ssvc-${Date.now()}`, criticality: 'critical' })
      .returning({ id: assets.id });
    const f = await addFinding(t.database.db, {
      tenantId: acme,
      assetId: critical!.id,
      cveId: 'CVE-2099-6001',
      kev: true,
      title: 'Exploitée',
      cvssVector: V3_REMOTE_TOTAL,
    });
    const body = jsonOf<{ ssvc: Record<string, unknown> }>(
      await call('analyste', 'GET', `/api/vulnerabilities/vulnerabilities/${f.id}/`),
      200,
    );
    expect(body.ssvc).toMatchObject({
      decision: 'act',
      exploitation: 'active',
      automatable: 'yes',
      technical_impact: 'total',
      mission_wellbeing: 'high',
    });
    expect(body.ssvc.reasons).toHaveLength(4);
    // The same finding on a low-criticality asset: Attend.
    await t.database.db.update(assets).set({ criticality: 'low' }).where(eq(assets.id, critical!.id));
    const lowered = jsonOf<{ ssvc: { decision: string } }>(
      await call('analyste', 'GET', `/api/vulnerabilities/vulnerabilities/${f.id}/`),
      200,
    );
    expect(lowered.ssvc.decision).toBe('attend');
  });
});
