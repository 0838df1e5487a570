import { Route } from 'wouter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import AssetPage from '../../src/features/assets/asset-page.tsx';
import ScanPage from '../../src/features/scans/scan-page.tsx';
import { mockApi, setup, signInAs, tableRows, text, until, type Call } from './vulnerabilities-helpers.tsx';

const asset = {
  id: 7,
  name: 'srv-web-01',
  asset_type: 'server',
  hostname: 'web01.acme.local',
  ip_address: '10.0.0.7',
  operating_system: 'Debian 12',
  criticality: 'high',
  owner: 'Équipe web',
  description: '',
  tags: ['dmz'],
  vulnerability_count: 5,
  open_vulnerability_count: 3,
  created_at: '2026-11-01T10:00:00Z',
  updated_at: '2026-11-01T10:00:00Z',
};
const overview = {
  findings_by_state: {
    new: 2,
    confirmed: 1,
    in_progress: 0,
    fixed: 1,
    verified: 0,
    false_positive: 1,
    accepted: 0,
    out_of_scope: 0,
  },
  open_by_severity: { critical: 1, high: 2, medium: 0, low: 0, info: 0 },
  scans: [
    {
      id: 31,
      name: 'Trivy hebdomadaire',
      status: 'COMPLETED',
      scanner: 'trivy',
      created_at: '2026-11-28T08:00:00Z',
      completed_at: '2026-11-28T08:01:00Z',
    },
  ],
  projects: [{ id: 4, name: 'Durcissement DMZ', status: 'IN_PROGRESS' }],
  history: [
    {
      id: 9,
      vulnerability_id: 12,
      title: 'OpenSSL',
      kind: 'state',
      username: null,
      from_value: 'confirmed',
      to_value: 'fixed',
      comment: 'Absente du scan « Trivy hebdomadaire » : corrigée, à vérifier.',
      created_at: '2026-11-28T08:01:00Z',
    },
  ],
};
const scan = {
  id: 31,
  name: 'Trivy hebdomadaire',
  scanner: 'trivy',
  target: null,
  asset_id: 7,
  status: 'COMPLETED',
  progress: 100,
  task_id: null,
  report_format: 'trivy',
  report_size: 20_480,
  summary: {
    findings: 4,
    created: 1,
    updated: 3,
    assets_created: 0,
    by_severity: { critical: 1, high: 3 },
    still_present: 2,
    reopened: 1,
    fixed: 1,
  },
  error: null,
  started_at: '2026-11-28T08:00:00Z',
  completed_at: '2026-11-28T08:01:00Z',
  created_at: '2026-11-28T08:00:00Z',
};
const changes = [
  {
    vulnerability_id: 12,
    title: 'OpenSSL',
    cve_id: 'CVE-2099-0001',
    from_value: 'confirmed',
    to_value: 'fixed',
    created_at: '2026-11-28T08:01:00Z',
  },
];

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
  signInAs('user');
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

const links = () => [...page.container.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]);

describe('an asset’s page', () => {
  it('shows its facts, findings by state and severity, scans, projects and recent history, each linked', async () => {
    const calls = mockApi((call: Call) => ({ body: call.path.endsWith('/overview/') ? overview : asset }));
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('srv-web-01'));
    await until(() => expect(page.container.textContent).toContain('Trivy hebdomadaire'));
    expect(calls.map((c) => c.path)).toEqual(expect.arrayContaining(['/api/assets/7/', '/api/assets/7/overview/']));
    const c = page.container;
    expect(text(c.querySelector('.facts'))).toContain('Élevée');
    expect(tableRows(c.querySelector('table.compact'))).toEqual(
      expect.arrayContaining(['Nouvelle | 2', 'Faux positif | 1', 'Vérifiée (clôturée) | 0']),
    );
    expect(links()).toEqual(
      expect.arrayContaining([
        ['Voir les vulnérabilités de cet actif', '/vulnerabilities/list?asset=7'],
        ['Trivy hebdomadaire', '/scans/31'],
        ['Durcissement DMZ', '/projects/4'],
        ['OpenSSL', '/vulnerabilities/12'],
      ]),
    );
    expect(text(c.querySelector('[aria-labelledby="asset-history"]'))).toContain(
      'Vigie : OpenSSL (Confirmée → Corrigée (à vérifier))',
    );
  });

  it('counts its open « Non évaluée » findings after Info (0 from an older answer) and tells a severity change', async () => {
    const severityLine = {
      ...overview.history[0]!,
      id: 10,
      kind: 'severity',
      from_value: 'critical',
      to_value: 'unrated',
      comment: 'Aucune source ne la note.',
    };
    let withUnrated = true;
    const serve = (call: Call) => ({
      body: call.path.endsWith('/overview/')
        ? {
            ...overview,
            open_by_severity: withUnrated ? { ...overview.open_by_severity, unrated: 4 } : overview.open_by_severity,
            history: [severityLine],
          }
        : asset,
    });
    mockApi(serve);
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.textContent).toContain('Trivy hebdomadaire'));
    const bySeverity = () =>
      tableRows(
        [...page.container.querySelectorAll('table.compact')].find(
          (t) => t.querySelector('caption')?.textContent === 'Ouvertes, par gravité',
        ),
      );
    expect(bySeverity()).toEqual([
      'Critique | 1',
      'Élevée | 2',
      'Moyenne | 0',
      'Faible | 0',
      'Info | 0',
      'Non évaluée | 4',
    ]);
    expect(text(page.container.querySelector('[aria-labelledby="asset-history"]'))).toContain(
      'OpenSSL (gravité : Critique → Non évaluée)',
    );
    page.cleanup();
    page = setup();
    withUnrated = false;
    mockApi(serve);
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.textContent).toContain('Trivy hebdomadaire'));
    expect(bySeverity().at(-1)).toBe('Non évaluée | 0');
  });

  it('says when its findings are a kept copy beside the live asset, and says nothing when both are live', async () => {
    const stored = Date.UTC(2026, 10, 24, 13, 5);
    mockApi((call: Call) =>
      call.path.endsWith('/overview/')
        ? { body: overview, headers: { 'X-Vigie-Source': 'cache', 'X-Vigie-Stored-At': String(stored) } }
        : { body: asset },
    );
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.textContent).toContain('Trivy hebdomadaire'));
    const notes = () => [...page.container.querySelectorAll('[role="note"]')].map((n) => text(n));
    expect(notes()).toEqual([expect.stringMatching(/^Données en cache du \d\d\/11 à \d\d:\d\d$/)]);
    expect(page.container.querySelector('[aria-labelledby="asset-findings"] [role="note"]')).not.toBeNull();
    page.cleanup();
    page = setup();
    mockApi((call: Call) => ({ body: call.path.endsWith('/overview/') ? overview : asset }));
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.textContent).toContain('Trivy hebdomadaire'));
    expect(notes()).toEqual([]);
  });

  it('says whether it is exposed to the Internet, and lets a writer change it here', async () => {
    let current: Record<string, unknown> = { ...asset, internet_exposed: false };
    const calls = mockApi((call: Call) => {
      if (call.path.endsWith('/overview/')) return { body: overview };
      if (call.method === 'PUT') current = { ...current, ...(call.body as object) };
      return { body: current };
    });
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('srv-web-01'));
    const c = page.container;
    expect(text(c.querySelector('.facts'))).toContain('Exposé à InternetNon');
    const edit = [...c.querySelectorAll('button')].find((b) => text(b) === 'Modifier l’actif')!;
    edit.click();
    await until(() => expect(c.querySelector('form')).not.toBeNull());
    const box = [...c.querySelectorAll<HTMLInputElement>('form input[type="checkbox"]')].find(
      (i) => text(i.closest('label')) === 'Exposé à Internet',
    )!;
    expect(box.checked).toBe(false);
    box.click();
    c.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    await until(() => expect(calls.some((call) => call.method === 'PUT')).toBe(true));
    expect(calls.find((call) => call.method === 'PUT')).toMatchObject({
      path: '/api/assets/7/',
      body: { name: 'srv-web-01', criticality: 'high', internet_exposed: true },
    });
    await until(() => expect(text(c.querySelector('.facts'))).toContain('Exposé à InternetOui'));
    expect(text(c.querySelector('[role="status"]'))).toBe('Actif « srv-web-01 » enregistré.');
    expect(c.querySelector('form')).toBeNull();
  });

  it('offers no edit to a read-only member', async () => {
    signInAs('readonly');
    mockApi((call: Call) => ({ body: call.path.endsWith('/overview/') ? overview : asset }));
    page.render('/assets/7', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('srv-web-01'));
    expect([...page.container.querySelectorAll('button')].map((b) => text(b))).not.toContain('Modifier l’actif');
    // An answer without the field (kept before it existed) says nothing either way.
    expect(text(page.container.querySelector('.facts'))).toContain('Exposé à InternetNon renseigné');
  });

  it('says « introuvable » for an asset that does not exist or is another tenant’s', async () => {
    mockApi(() => ({ status: 404, body: { detail: 'Ressource introuvable.' } }));
    page.render('/assets/999', <Route path="/assets/:id" component={AssetPage} />);
    await until(() => expect(text(page.container.querySelector('[role="alert"]'))).toContain('Actif introuvable'));
  });
});

describe('a scan’s page', () => {
  it('says when what it changed is a kept copy beside the live scan', async () => {
    mockApi((call: Call) =>
      call.path.endsWith('/changes/') ? { body: changes, headers: { 'X-Vigie-Source': 'sample' } } : { body: scan },
    );
    page.render('/scans/31', <Route path="/scans/:id" component={ScanPage} />);
    await until(() => expect(page.container.textContent).toContain('OpenSSL'));
    const section = page.container.querySelector('[aria-labelledby="scan-changes"]');
    expect(text(section?.querySelector('[role="note"]'))).toBe('Données d’exemple');
  });

  it('shows its report, the reconciliation’s counts and the findings it moved', async () => {
    mockApi((call: Call) => ({ body: call.path.endsWith('/changes/') ? changes : scan }));
    page.render('/scans/31', <Route path="/scans/:id" component={ScanPage} />);
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('Trivy hebdomadaire'));
    await until(() => expect(page.container.textContent).toContain('CVE-2099-0001 — OpenSSL'));
    // The report's format in words, not its API name.
    expect(text(page.container.querySelector('[aria-labelledby="scan-facts"]'))).toContain(
      'Format du rapportTrivy JSON',
    );
    const counts = text(page.container.querySelector('[aria-labelledby="scan-counts"]'));
    // An import's summary without `unrated` counts none.
    expect(tableRows(page.container.querySelector('[aria-labelledby="scan-counts"] table'))).toEqual([
      'Critique | 1',
      'Élevée | 3',
      'Moyenne | 0',
      'Faible | 0',
      'Info | 0',
      'Non évaluée | 0',
    ]);
    expect(counts).toContain('Toujours présentes2');
    expect(counts).toContain('Rouvertes1');
    expect(counts).toContain('Corrigées (absentes du rapport)1');
    expect(links()).toEqual(
      expect.arrayContaining([
        ['Voir les vulnérabilités de ce scan', '/vulnerabilities/list?scan=31'],
        ['Actif n° 7', '/assets/7'],
        ['CVE-2099-0001 — OpenSSL', '/vulnerabilities/12'],
      ]),
    );
  });
});
