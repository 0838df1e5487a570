import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { assets, vulnerabilities } from '../../server/src/db/schema.ts';
import { processScanReport } from '../../server/src/services/scan-import.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { multipart } from './support/http.ts';
import { addFinding, seededTenants } from './support/world.ts';

const LIST = '/api/vulnerabilities/vulnerabilities/';
const IMAGE = 'registry.exemple.fr/reconciliation:1.0';

/** A Trivy report of IMAGE listing these CVEs, each in its own package. */
const trivy = (ids: string[]) =>
  JSON.stringify({
    SchemaVersion: 2,
    ArtifactName: IMAGE,
    ArtifactType: 'container_image',
    Results: [
      {
        Target: `${IMAGE} (alpine 3.19)`,
        Class: 'os-pkgs',
        Type: 'alpine',
        Vulnerabilities: ids.map((id) => ({
          VulnerabilityID: id,
          PkgName: `pkg-${id.slice(-4)}`,
          InstalledVersion: '1.0.0',
          FixedVersion: '1.0.1',
          Severity: 'HIGH',
          Title: `Faille ${id}`,
          Description: 'Réconciliation',
        })),
      },
    ],
  });

const cycloneDx = JSON.stringify({
  bomFormat: 'CycloneDX',
  specVersion: '1.4',
  version: 1,
  metadata: { component: { 'bom-ref': 'app', type: 'application', name: 'vex-app', version: '2.0' } },
  components: [
    {
      'bom-ref': 'lib',
      type: 'library',
      name: 'log4j-core',
      version: '2.14.1',
      purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
    },
  ],
  vulnerabilities: [
    {
      id: 'CVE-2099-8101',
      ratings: [{ score: 9.8, severity: 'critical', method: 'CVSSv31' }],
      description: 'Non affectée selon l’éditeur',
      affects: [{ ref: 'lib' }],
      analysis: { state: 'not_affected', justification: 'code_not_reachable' },
    },
    {
      id: 'CVE-2099-8102',
      ratings: [{ score: 7.5, severity: 'high', method: 'CVSSv31' }],
      description: 'En cours d’analyse',
      affects: [{ ref: 'lib' }],
      analysis: { state: 'in_triage' },
    },
  ],
});

describe(`re-scan reconciliation (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  beforeAll(async () => {
    ({ acme } = await seededTenants(t.database.db));
  });

  let n = 0;
  /** Imports and processes a report as its own scan; answers the scan's summary. */
  const scan = async (content: string, filename = 'trivy.json') => {
    const res = await call('analyste', 'POST', '/api/vulnerabilities/scans/import/', {
      ...multipart([
        { name: 'start', value: 'false' },
        { name: 'name', value: `Passage ${++n}` },
        { name: 'file', value: Buffer.from(content), filename },
      ]),
    });
    expect(res.statusCode, res.body).toBe(201);
    const outcome = await processScanReport(t.database, {
      tenantId: acme,
      scanId: res.json().id,
      filesDir: t.filesDir,
    });
    if (outcome.status !== 'COMPLETED') throw new Error(`scan not completed: ${JSON.stringify(outcome)}`);
    scanIds.push(res.json().id);
    return outcome.summary;
  };
  const scanIds: number[] = [];
  const findings = async () => {
    const [image] = await t.database.db
      .select({ id: assets.id })
      .from(assets)
      .where(and(eq(assets.tenantId, acme), eq(assets.name, IMAGE)));
    const rows = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.assetId, image!.id));
    return new Map(rows.map((r) => [r.cveId ?? r.title, r]));
  };
  const stateOf = async (key: string) => (await findings()).get(key)?.state;

  it('reopens what comes back, closes what is gone as fixed, and never overrides an analyst’s decision, over three scans', async () => {
    // Scan 1: three new findings.
    expect(await scan(trivy(['CVE-2099-9001', 'CVE-2099-9002', 'CVE-2099-9003']))).toMatchObject({
      created: 3,
      still_present: 0,
      reopened: 0,
      fixed: 0,
    });
    const first = await findings();
    const [a, b, c] = ['CVE-2099-9001', 'CVE-2099-9002', 'CVE-2099-9003'].map((id) => first.get(id)!);
    // The analyst: B is a false positive, C is fixed; and there is a manual finding on the same image.
    jsonOf(
      await call('analyste', 'POST', `${LIST}${b!.id}/transition/`, {
        payload: { state: 'false_positive', comment: 'Paquet jamais chargé' },
      }),
      200,
    );
    jsonOf(await call('analyste', 'POST', `${LIST}${c!.id}/mark_resolved/`), 200);
    const manual = await addFinding(t.database.db, {
      tenantId: acme,
      assetId: a!.assetId,
      title: 'Constat manuel',
      source: 'manual',
    });

    // Scan 2: A still there, B gone (stays a false positive), C back (reopened), D new.
    expect(await scan(trivy(['CVE-2099-9001', 'CVE-2099-9003', 'CVE-2099-9004']))).toMatchObject({
      findings: 3,
      created: 1,
      still_present: 1,
      reopened: 1,
      fixed: 0,
    });
    expect(await stateOf('CVE-2099-9002')).toBe('false_positive');
    const reopened = (await findings()).get('CVE-2099-9003')!;
    expect(reopened).toMatchObject({ state: 'confirmed', isResolved: false, resolvedAt: null });

    // Scan 3: only D. A and C are gone: fixed, to verify; the manual finding and the false positive stay.
    expect(await scan(trivy(['CVE-2099-9004']))).toMatchObject({ created: 0, still_present: 1, reopened: 0, fixed: 2 });
    const last = await findings();
    expect(last.get('CVE-2099-9001')).toMatchObject({ state: 'fixed', isResolved: true, resolvedBy: null });
    expect(last.get('CVE-2099-9003')!.state).toBe('fixed');
    expect(last.get('CVE-2099-9002')!.state).toBe('false_positive');
    expect(last.get('CVE-2099-9004')!.state).toBe('new');
    expect(last.get('Constat manuel')).toMatchObject({ id: manual.id, state: 'new' });

    // Each move by a scan is in the finding's history, by the platform, naming the scan.
    const history = jsonOf<{ from_value: string; to_value: string; username: string | null; comment: string }[]>(
      await call('analyste', 'GET', `${LIST}${c!.id}/history/`),
      200,
    );
    expect(history.map((h) => [h.from_value, h.to_value, h.username, h.comment])).toEqual([
      ['new', 'fixed', 'analyste', ''],
      ['fixed', 'confirmed', null, 'Détectée de nouveau par le scan « Passage 2 ».'],
      ['confirmed', 'fixed', null, 'Absente du scan « Passage 3 » : corrigée, à vérifier.'],
    ]);

    // The scan's page: what its reconciliation changed.
    const changes = jsonOf<{ vulnerability_id: number; title: string; from_value: string; to_value: string }[]>(
      await call('analyste', 'GET', `/api/vulnerabilities/scans/${scanIds[2]}/changes/`),
      200,
    );
    expect(changes.map((ch) => [ch.vulnerability_id, ch.title, ch.from_value, ch.to_value])).toEqual([
      [a!.id, 'Faille CVE-2099-9001', 'new', 'fixed'],
      [c!.id, 'Faille CVE-2099-9003', 'confirmed', 'fixed'],
    ]);
    expect(
      jsonOf<unknown[]>(await call('analyste', 'GET', `/api/vulnerabilities/scans/${scanIds[1]}/changes/`), 200),
    ).toHaveLength(1);

    // The asset's page: findings by state and severity, its three scans, the latest history lines first.
    const overview = jsonOf<{
      findings_by_state: Record<string, number>;
      open_by_severity: Record<string, number>;
      scans: { id: number; name: string }[];
      history: { title: string; to_value: string }[];
    }>(await call('analyste', 'GET', `/api/assets/${a!.assetId}/overview/`), 200);
    expect(overview.findings_by_state).toMatchObject({ new: 2, fixed: 2, false_positive: 1, confirmed: 0 });
    expect(overview.open_by_severity.high).toBe(1);
    expect(overview.scans.map((sc) => sc.name)).toEqual(['Passage 3', 'Passage 2', 'Passage 1']);
    expect(overview.history[0]).toMatchObject({ title: 'Faille CVE-2099-9003', to_value: 'fixed' });
    // Another tenant's member does not see it; deleting a scan keeps the history, without the scan.
    expect((await call('lecteur', 'GET', `/api/assets/${a!.assetId}/overview/`)).statusCode).toBe(404);
    expect((await call('analyste', 'DELETE', `/api/vulnerabilities/scans/${scanIds[2]}/`)).statusCode).toBe(204);
    const after = jsonOf<{ scan_id: number | null; comment: string }[]>(
      await call('analyste', 'GET', `${LIST}${c!.id}/history/`),
      200,
    );
    expect(after.at(-1)).toMatchObject({
      scan_id: null,
      comment: 'Absente du scan « Passage 3 » : corrigée, à vérifier.',
    });
  });

  it('takes a CycloneDX VEX « not affected » as a false positive, with its reason', async () => {
    expect(await scan(cycloneDx, 'bom.json')).toMatchObject({ created: 2 });
    const rows = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.tenantId, acme));
    expect(rows.find((r) => r.cveId === 'CVE-2099-8101')).toMatchObject({
      state: 'false_positive',
      isResolved: true,
      stateReason: 'Analyse VEX CycloneDX : not_affected.',
    });
    expect(rows.find((r) => r.cveId === 'CVE-2099-8102')).toMatchObject({ state: 'new', isResolved: false });
  });
});
