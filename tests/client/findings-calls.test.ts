import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/lib/api-client.ts';
import { login } from '../../src/features/auth/api/login.ts';
import {
  createVulnerability,
  deleteVulnerability,
  fetchVulnerability,
  updateVulnerability,
  type FindingInput,
} from '../../src/features/vulnerabilities/api/vulnerabilities.ts';
import { createScan, fetchScan, updateScan } from '../../src/features/scans/scans-api.ts';
import { fetchThreat, fetchThreats, readThreatSummary } from '../../src/features/threats/threats-api.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';
import { addAsset, addFinding, addScan, addThreat, seededTenants } from '../server/support/world.ts';
import { useVigieClient } from './harness.ts';

/**
 * The spec §7 calls of findings, scans and threats that the screens now use (rows 7.33, 7.37, 7.39), made by the real
 * client modules against the real server.
 */
const { t, seen } = useVigieClient('/vulnerabilities/list', { runJobs: false });

const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as ApiError);
const signIn = (username: string) => login({ username, password: TEST_PASSWORD });

const manual = (over: Partial<FindingInput> = {}): FindingInput => ({
  title: 'Mot de passe par défaut sur le routeur',
  cve_id: null,
  asset_id: null,
  cvss_score: null,
  description: 'Constaté lors de l’audit.',
  solution: '',
  port: null,
  protocol: null,
  service: null,
  ...over,
});

let tenants: { acme: string; horizon: string };
let acmeAsset: { id: number; name: string };
beforeAll(async () => {
  tenants = await seededTenants(t.database.db);
  acmeAsset = await addAsset(t.database.db, { tenantId: tenants.acme, name: 'client-calls-srv-01' });
});

describe('findings (spec §7 GET/POST list, GET/PUT/DELETE by id) from the client', () => {
  it('creates a finding by hand with POST, rated by the analyst', async () => {
    await signIn('analyste');
    seen.requests.length = 0;
    const created = await createVulnerability(
      manual({ asset_id: acmeAsset.id, port: 8443, protocol: 'tcp', service: 'https', severity: 'high' }),
    );
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/vulnerabilities/vulnerabilities/']);
    expect(created).toMatchObject({
      title: 'Mot de passe par défaut sur le routeur',
      severity: 'high',
      severity_source: 'analyst',
      asset: { id: acmeAsset.id, name: 'client-calls-srv-01' },
      port: 8443,
      service: 'https',
      is_resolved: false,
    });
    const { data } = await fetchVulnerability(String(created.id));
    expect(data.title).toBe(created.title);
  });

  it('says the server’s French 409 when the same asset already has that CVE', async () => {
    await signIn('analyste');
    const body = manual({ title: 'Log4Shell', cve_id: 'CVE-2021-44228', asset_id: acmeAsset.id });
    await createVulnerability(body);
    const err = await failure(createVulnerability(body));
    expect(err).toBeInstanceOf(ApiError);
    expect(err!.status).toBe(409);
    expect(err!.message).toBe('Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).');
  });

  it('updates a finding with PUT and clears what the form left empty', async () => {
    await signIn('analyste');
    const created = await createVulnerability(
      manual({ port: 22, service: 'ssh', solution: 'Changer le mot de passe.' }),
    );
    seen.requests.length = 0;
    const updated = await updateVulnerability(
      created.id,
      manual({
        title: 'Mot de passe par défaut (SSH)',
        cvss_score: 9.8,
        asset_id: acmeAsset.id,
        port: null,
        service: null,
      }),
    );
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /api/vulnerabilities/vulnerabilities/${created.id}/`,
    ]);
    expect(updated).toMatchObject({
      id: created.id,
      title: 'Mot de passe par défaut (SSH)',
      cvss_score: 9.8,
      asset_id: acmeAsset.id,
      port: null,
      service: null,
      solution: '',
    });
    const { data } = await fetchVulnerability(String(created.id));
    expect(data.title).toBe('Mot de passe par défaut (SSH)');
  });

  it('refuses a PUT without a title with the server’s field message', async () => {
    await signIn('analyste');
    const created = await createVulnerability(manual());
    const err = await failure(updateVulnerability(created.id, manual({ title: '  ' })));
    expect(err!.status).toBe(400);
    expect(err!.fields).toEqual({ title: ['Le titre est requis (ou un identifiant CVE connu).'] });
  });

  it('deletes a finding with DELETE: reading it afterwards is a 404', async () => {
    await signIn('analyste');
    const created = await createVulnerability(manual({ title: 'À supprimer' }));
    seen.requests.length = 0;
    await deleteVulnerability(created.id);
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /api/vulnerabilities/vulnerabilities/${created.id}/`,
    ]);
    const err = await failure(fetchVulnerability(String(created.id)));
    expect(err!.status).toBe(404);
  });

  it('refuses a read-only member’s update and delete with a French 403, without leaving the page', async () => {
    const horizonFinding = await addFinding(t.database.db, { tenantId: tenants.horizon, title: 'Horizon : TLS 1.0' });
    await signIn('lecteur');
    const update = await failure(updateVulnerability(horizonFinding.id, manual({ title: 'Changé' })));
    expect(update!.status).toBe(403);
    expect(update!.message).toBe("Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource");
    const remove = await failure(deleteVulnerability(horizonFinding.id));
    expect(remove!.status).toBe(403);
    expect(seen.navigations).toEqual([]);
  });

  it('never reaches another tenant’s finding: PUT and DELETE answer 404', async () => {
    const horizonFinding = await addFinding(t.database.db, { tenantId: tenants.horizon, title: 'Horizon seulement' });
    await signIn('analyste');
    expect((await failure(updateVulnerability(horizonFinding.id, manual())))!.status).toBe(404);
    expect((await failure(deleteVulnerability(horizonFinding.id)))!.status).toBe(404);
  });
});

describe('scans (spec §7 GET/PUT by id) from the client', () => {
  it('reads a scan by id and renames it with PUT, keeping its scanner', async () => {
    await signIn('analyste');
    const scan = await createScan({ name: 'Scan trimestriel', scanner: 'trivy', target: 'registry/app:1.2' });
    seen.requests.length = 0;
    const { data } = await fetchScan(String(scan.id));
    expect(data).toMatchObject({ id: scan.id, name: 'Scan trimestriel', scanner: 'trivy' });
    const updated = await updateScan(scan.id, {
      name: 'Scan trimestriel (T4)',
      scanner: data.scanner,
      target: null,
      asset_id: acmeAsset.id,
    });
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/vulnerabilities/scans/${scan.id}/`,
      `PUT /api/vulnerabilities/scans/${scan.id}/`,
    ]);
    expect(updated).toMatchObject({
      id: scan.id,
      name: 'Scan trimestriel (T4)',
      scanner: 'trivy',
      asset_id: acmeAsset.id,
    });
    // The target is cleared (the server keeps an empty text).
    expect(updated.target ?? '').toBe('');
  });

  it('refuses an empty name and another tenant’s asset with the server’s French field messages', async () => {
    await signIn('analyste');
    const scan = await createScan({ name: 'Scan à renommer', scanner: 'manual' });
    const noName = await failure(updateScan(scan.id, { name: '', scanner: 'manual', target: null, asset_id: null }));
    expect(noName!.status).toBe(400);
    expect(noName!.fields).toEqual({ name: ['Le nom du scan est requis.'] });
    const horizonAsset = await addAsset(t.database.db, { tenantId: tenants.horizon, name: 'scan-horizon-01' });
    const foreign = await failure(
      updateScan(scan.id, { name: 'Scan', scanner: 'manual', target: null, asset_id: horizonAsset.id }),
    );
    expect(foreign!.status).toBe(400);
    expect(foreign!.fields).toEqual({ asset_id: ['Actif introuvable.'] });
  });

  it('gives 404 for another tenant’s scan, by GET and by PUT', async () => {
    const horizonScan = await addScan(t.database.db, { tenantId: tenants.horizon, name: 'Scan Horizon' });
    await signIn('analyste');
    expect((await failure(fetchScan(String(horizonScan.id))))!.status).toBe(404);
    const put = await failure(
      updateScan(horizonScan.id, { name: 'x', scanner: 'manual', target: null, asset_id: null }),
    );
    expect(put!.status).toBe(404);
  });
});

describe('threats (spec §7: get by id; on error empty results, null or false) from the client', () => {
  it('reads one threat by id (GET /api/threats/{id}/)', async () => {
    const threat = await addThreat(t.database.db, {
      tenantId: tenants.acme,
      title: 'Campagne d’hameçonnage ciblée',
      severity: 'high',
    });
    await signIn('analyste');
    seen.requests.length = 0;
    const outcome = await fetchThreat(threat.id);
    expect(seen.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/threats/${threat.id}/`]);
    expect(outcome.failed).toBe(false);
    expect(outcome.data).toMatchObject({ id: threat.id, title: 'Campagne d’hameçonnage ciblée', severity: 'high' });
  });

  it('gives null, marked failed with the 404 and its French message, for a missing or another tenant’s threat', async () => {
    const horizonThreat = await addThreat(t.database.db, { tenantId: tenants.horizon, title: 'Menace Horizon' });
    await signIn('analyste');
    const outcome = await fetchThreat(horizonThreat.id);
    expect(outcome).toMatchObject({ failed: true, data: null, status: 404 });
    expect(outcome.failed && outcome.message).toBe('Ressource introuvable.');
    expect(seen.navigations).toEqual([]);
  });

  it('gives the empty page, marked failed, for a list the server refuses (400); the summary reads', async () => {
    await signIn('analyste');
    const list = await fetchThreats({ page: 1, size: 10, severity: 'pas-une-gravite' });
    expect(list.failed).toBe(true);
    expect(list.data).toEqual({ results: [], total: 0, page: 1, size: 10, pages: 0 });
    expect(list.failed && list.status).toBe(400);
    const summary = await readThreatSummary();
    expect(summary.failed).toBe(false);
    expect(summary.data.threats_count).toBeGreaterThan(0);
  });
});
