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
    return outcome.summary;
  };
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
