import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import sample from '../../sample-data/vulnerability-summary.json';
import VulnerabilityDashboardPage from '../../src/features/vulnerabilities/dashboard-page.tsx';
import { act } from 'react';
import { session } from '../../src/lib/auth/session.ts';
import { fr, mockApi, setup, signInAs, tableRows, text, until, type Call } from './vulnerabilities-helpers.tsx';

const full = {
  total_vulnerabilities: 1254,
  severity_distribution: { critical: 31, high: 402, medium: 600, low: 200, info: 21 },
  recently_added: [
    {
      id: 7,
      cve_id: 'CVE-2024-3400',
      title: 'PAN-OS',
      severity: 'critical',
      asset: { id: 1, name: 'fw-01' },
      created_at: '2026-11-12T14:05:00Z',
    },
  ],
  top_affected_assets: [{ id: 1, name: 'fw-01', count: 40, critical: 3 }],
  top_cwe_categories: [{ cwe_id: 'CWE-79', name: 'Cross-site scripting', count: 12 }],
  vulnerability_trends: [
    { date: '2026-11-11', count: 4 },
    { date: '2026-11-12', count: 9 },
  ],
  kev_count: 17,
  ssvc_act_count: 1203,
  open_count: 1254,
  resolved_count: 3020,
  generated_at: '2026-11-12T14:05:00Z',
};

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

describe('vulnerability dashboard', () => {
  it('shows the summary numbers, with links to the filtered list', async () => {
    const calls = mockApi(() => ({ body: full }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-total"]')).not.toBeNull());
    const c = page.container;
    expect(calls[0]).toMatchObject({ path: '/api/vulnerabilities/summary/', query: { days: '30' } });
    expect(text(c.querySelector('[data-testid="stat-total"]'))).toBe(fr(1254));
    expect(text(c.querySelector('[data-testid="stat-kev"]'))).toBe('17');
    expect(text(c.querySelector('[data-testid="stat-resolved"]'))).toBe(fr(3020));
    expect(c.querySelector('[data-testid="stat-critical"]')!.closest('a')!.getAttribute('href')).toBe(
      '/vulnerabilities/list?severity=critical&is_resolved=false',
    );
    // The donut's table and the severity links
    expect(tableRows(c.querySelector('.chart-donut tbody'))).toContain('Élevée | 402');
    const high = [...c.querySelectorAll('.sev-links a')].find((a) => text(a).startsWith('Élevée'))!;
    expect(high.getAttribute('href')).toBe('/vulnerabilities/list?severity=high&is_resolved=false');
    // Recent list links to the detail
    expect(c.querySelector('.recent-list a')!.getAttribute('href')).toBe('/vulnerabilities/7');
    expect(text(c.querySelector('.recent-list'))).toContain('fw-01');
    // Bars: assets and CWE names
    expect(tableRows(c.querySelector('.card:has(#cwe-title) tbody'))).toEqual(['CWE-79 — Cross-site scripting | 12']);
    expect(tableRows(c.querySelector('.chart-line tbody'))).toEqual(['11 nov. 2026 | 4', '12 nov. 2026 | 9']);
    expect(c.querySelector('.data-origin')).toBeNull();
  });

  it('shows SLA compliance beside the summary, and nothing where the backend has no report', async () => {
    const sla = {
      open_with_due_date: 40,
      overdue: 3,
      due_soon: 5,
      resolved_in_window: 8,
      resolved_on_time: 6,
      window_days: 90,
      generated_at: '2026-11-29T08:00:00Z',
    };
    mockApi((call) => ({ body: call.path === '/api/vulnerabilities/sla-report/' ? sla : full }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('.sla-card')).not.toBeNull());
    const card = text(page.container.querySelector('.sla-card'));
    expect(card).toContain('En retard3');
    expect(card).toContain('À échéance sous 7 jours5');
    expect(card).toMatch(/Corrigées dans les délais \(90 derniers jours\)75\s%\s\(6 sur 8\)/);
    expect(page.container.querySelector('.sla-late')).not.toBeNull();
    page.cleanup();
    page = setup();
    mockApi((call) => (call.path === '/api/vulnerabilities/sla-report/' ? { status: 404, body: {} } : { body: full }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-total"]')).not.toBeNull());
    expect(page.container.querySelector('.sla-card')).toBeNull();
  });

  it('leads with the « À traiter maintenant » tile: the open SSVC Act findings, linked to the list filtered on Act', async () => {
    mockApi(() => ({ body: full }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-act"]')).not.toBeNull());
    const tiles = [...page.container.querySelectorAll('.stat-tiles > li')];
    expect(tiles[0]!.className).toBe('tile-act');
    expect(text(tiles[0]!.querySelector('[data-testid="stat-act"]'))).toBe(fr(1203));
    expect(text(tiles[0]!.querySelector('a > span'))).toBe('à traiter maintenant (SSVC Act)');
    expect(tiles[0]!.querySelector('a')!.getAttribute('href')).toBe('/vulnerabilities/list?ssvc=act');
    // A backend without the decision: no tile rather than a zero.
    page.cleanup();
    page = setup();
    mockApi(() => ({ body: { ...full, ssvc_act_count: undefined } }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-total"]')).not.toBeNull());
    expect(page.container.querySelector('[data-testid="stat-act"]')).toBeNull();
  });

  it('shows a kept answer’s Act figure with its age, and the sample’s marked « exemple »', async () => {
    mockApi(() => ({
      body: full,
      headers: { 'X-Vigie-Source': 'cache', 'X-Vigie-Stored-At': String(Date.UTC(2026, 10, 12, 14, 5)) },
    }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-act"]')).not.toBeNull());
    expect(text(page.container.querySelector('.data-origin'))).toMatch(/^Données en cache du 12\/11 à \d\d:05$/);
    expect(page.container.querySelector('.tile-act [data-sample-mark]')).toBeNull();
    page.cleanup();
    page = setup();
    mockApi(() => ({ body: sample, headers: { 'X-Vigie-Source': 'sample' } }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-act"]')).not.toBeNull());
    expect(text(page.container.querySelector('[data-testid="stat-act"]'))).toBe(String(sample.ssvc_act_count));
    expect(text(page.container.querySelector('.tile-act [data-sample-mark]'))).toBe('exemple');
  });

  it('lets a tenant administrator set the SLA and the EPSS threshold, and nobody else', async () => {
    const settings = { critical: 7, high: 30, medium: 90, low: 180, info: null, unrated: null, epss_threshold: 0.1 };
    signInAs('admin');
    const calls = mockApi((call) =>
      call.path === '/api/vulnerabilities/sla/'
        ? { body: call.method === 'PUT' ? call.body : settings }
        : call.path === '/api/vulnerabilities/sla-report/'
          ? { status: 404, body: {} }
          : { body: full },
    );
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('.triage-settings')).not.toBeNull());
    const card = page.container.querySelector('.triage-settings')!;
    // Nothing read until opened.
    expect(calls.some((c) => c.path === '/api/vulnerabilities/sla/')).toBe(false);
    act(() => [...card.querySelectorAll('button')].find((b) => text(b) === 'Modifier les réglages')!.click());
    await until(() => expect(card.querySelector('form')).not.toBeNull());
    const field = (label: string) => {
      const l = [...card.querySelectorAll('label')].find((x) => text(x) === label)!;
      return card.querySelector<HTMLInputElement>(`#${CSS.escape(l.htmlFor)}`)!;
    };
    expect(field('Seuil EPSS (%)').value).toBe('10');
    expect(field('Information (jours)').value).toBe('');
    const type = (input: HTMLInputElement, value: string) =>
      act(() => {
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      });
    const submit = () =>
      act(() => {
        card.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
      });
    type(field('Seuil EPSS (%)'), '0');
    submit();
    await until(() => expect(text(card)).toContain('Un pourcentage supérieur à 0 et au plus 100 (10 par défaut).'));
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    type(field('Seuil EPSS (%)'), '2,5');
    type(field('Critique (jours)'), '3');
    type(field('Non évaluée (jours)'), '21');
    submit();
    await until(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({
      ...settings,
      critical: 3,
      unrated: 21,
      epss_threshold: 0.025,
    });
    await until(() => expect(text(card.querySelector('[role="status"]'))).toMatch(/seuil EPSS de 2,5\s%/));

    page.cleanup();
    page = setup();
    signInAs('user');
    mockApi(() => ({ body: full }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-total"]')).not.toBeNull());
    expect(page.container.querySelector('.triage-settings')).toBeNull();
  });

  it('renders the spec §8 sample shape (no KEV or resolved counts, assets by name) and marks it as sample data', async () => {
    mockApi(() => ({ body: sample, headers: { 'X-Vigie-Source': 'sample' } }));
    page.render('/vulnerabilities?days=7', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[data-testid="stat-total"]')).not.toBeNull());
    const c = page.container;
    expect(text(c.querySelector('[data-testid="stat-total"]'))).toBe('248');
    expect(text(c.querySelector('[data-testid="stat-critical"]'))).toBe('14');
    expect(c.querySelector('[data-testid="stat-kev"]')).toBeNull();
    expect(text(c.querySelector('.data-origin'))).toBe('Données d’exemple');
    expect(tableRows(c.querySelector('.card:has(#assets-title) tbody'))[0]).toBe('srv-app-erp-02 | 23');
    expect(c.querySelectorAll('.recent-list li')).toHaveLength(5);
    expect(c.querySelector('.segmented [aria-current="page"]')!.textContent).toBe('7 jours');
  });

  it('asks for the period in the URL and shows a French error on failure', async () => {
    let calls: Call[] = mockApi(() => ({ status: 503, body: {} }));
    page.render('/vulnerabilities?days=90', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('[role="alert"]')).not.toBeNull());
    expect(calls[0]!.query.days).toBe('90');
    expect(text(page.container.querySelector('[role="alert"]'))).toBe('Backend connection failed');
    calls = mockApi(() => ({
      body: { ...full, total_vulnerabilities: 0, severity_distribution: {}, recently_added: [], resolved_count: 0 },
    }));
    (page.container.querySelector('.vuln-error button') as HTMLButtonElement).click();
    await until(() => expect(text(page.container.querySelector('.empty'))).toContain('Aucune vulnérabilité'));
  });
});
