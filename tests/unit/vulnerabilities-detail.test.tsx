import { act } from 'react';
import { Route } from 'wouter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import VulnerabilityDetailPage from '../../src/features/vulnerabilities/detail-page.tsx';
import CveSearchPage from '../../src/features/vulnerabilities/cve-search-page.tsx';
import { NVD_NOTICE } from '../../src/features/vulnerabilities/cve-panel.tsx';
import { mockApi, setup, signInAs, tableRows, text, until } from './vulnerabilities-helpers.tsx';

const cve = {
  cve_id: 'CVE-2024-3400',
  title: 'PAN-OS GlobalProtect',
  description: 'Injection de commandes.',
  status: 'Analyzed',
  published_at: '2024-04-12T08:15:00Z',
  modified_at: '2024-05-01T10:00:00Z',
  severity: 'critical',
  cvss_v31: {
    score: 10,
    vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
    severity: 'critical',
    metrics: [
      { key: 'AV', name: 'Vecteur d’attaque', value: 'N', value_label: 'Réseau' },
      { key: 'PR', name: 'Privilèges requis', value: 'N', value_label: 'Aucun' },
    ],
  },
  cvss_v4: null,
  cvss_v2: null,
  cwes: [{ id: 'CWE-77', name: 'Injection de commandes' }],
  references: [
    { url: 'https://security.paloaltonetworks.com/CVE-2024-3400', source: 'vendor', tags: ['Vendor Advisory'] },
  ],
  kev: {
    date_added: '2024-04-12',
    due_date: '2024-04-19',
    required_action: 'Appliquer les correctifs de l’éditeur.',
    vendor: 'Palo Alto Networks',
    product: 'PAN-OS',
    name: 'PAN-OS Command Injection',
    known_ransomware: 'Unknown',
  },
  epss: { score: 0.9731, percentile: 0.9995, date: '2026-11-12' },
  affected_assets: 3,
};

const finding = {
  id: 42,
  title: 'PAN-OS GlobalProtect',
  cve_id: 'CVE-2024-3400',
  severity: 'critical',
  cvss_score: 10,
  kev: true,
  epss_score: 0.9731,
  asset: { id: 5, name: 'fw-paris-01' },
  is_resolved: false,
  created_at: '2026-11-12T14:05:00Z',
  cve,
};

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

function renderDetail() {
  page.render('/vulnerabilities/42', <Route path="/vulnerabilities/:id" component={VulnerabilityDetailPage} />);
}

describe('vulnerability detail', () => {
  it('explains the CVSS vector, shows KEV, EPSS, CWE, references and the NVD notice', async () => {
    signInAs('user');
    const calls = mockApi(() => ({ body: finding }));
    renderDetail();
    await until(() => expect(page.container.querySelector('h1')).not.toBeNull());
    const c = page.container;
    expect(calls[0]!.path).toBe('/api/vulnerabilities/vulnerabilities/42/');
    expect(tableRows(c.querySelector('table.metrics tbody'))).toEqual([
      'Vecteur d’attaque (AV) | Réseau N',
      'Privilèges requis (PR) | Aucun N',
    ]);
    expect(c.querySelector('.kev-badge')).not.toBeNull();
    expect(text(c.querySelector('.kev-box'))).toContain('Appliquer les correctifs de l’éditeur.');
    expect(text(c.querySelector('.kev-box'))).toContain('19 avr. 2024');
    expect(text(c.querySelector('[data-testid="epss-score"]'))).toBe('97,31 %');
    expect(text(c.querySelector('[data-testid="epss-percentile"]'))).toBe('99,95 %');
    expect(text(c.querySelector('.card:has(.refs)'))).toContain('CWE-77 — Injection de commandes');
    const link = c.querySelector<HTMLAnchorElement>('.refs a')!;
    expect(link.target).toBe('_blank');
    expect(link.rel).toBe('noopener noreferrer');
    expect(c.textContent).toContain(NVD_NOTICE);
  });

  it('resolves then reopens for writers, with the button disabled while pending', async () => {
    signInAs('user');
    let resolved = false;
    const calls = mockApi((call) => {
      if (call.method === 'POST') {
        resolved = (call.body as { is_resolved: boolean }).is_resolved;
        return { body: { ...finding, cve: undefined, is_resolved: resolved } };
      }
      return { body: finding };
    });
    renderDetail();
    await until(() => expect(page.container.querySelector('.btn.primary')).not.toBeNull());
    const button = page.container.querySelector<HTMLButtonElement>('.btn.primary')!;
    expect(button.textContent).toBe('Marquer comme résolue');
    act(() => button.click());
    expect(button.disabled).toBe(true);
    await until(() => expect(button.textContent).toBe('Rouvrir'));
    expect(button.disabled).toBe(false);
    const post = calls.find((k) => k.method === 'POST')!;
    expect(post.path).toBe('/api/vulnerabilities/vulnerabilities/42/mark_resolved/');
    expect(post.body).toEqual({ is_resolved: true });
    // the CVE panel stays although the POST answer has no `cve`
    expect(page.container.querySelector('table.metrics')).not.toBeNull();
  });

  it('shows the server’s refusal in French', async () => {
    signInAs('manager');
    mockApi((call) =>
      call.method === 'POST' ? { status: 409, body: { detail: 'Conflit de mise à jour.' } } : { body: finding },
    );
    renderDetail();
    await until(() => expect(page.container.querySelector('.btn.primary')).not.toBeNull());
    act(() => page.container.querySelector<HTMLButtonElement>('.btn.primary')!.click());
    await until(() =>
      expect(text(page.container.querySelector('[role="alert"]'))).toBe(
        'Impossible de marquer la vulnérabilité comme résolue : Conflit de mise à jour.',
      ),
    );
  });

  it('hides the resolve button from readonly users', async () => {
    signInAs('readonly');
    mockApi(() => ({ body: finding }));
    renderDetail();
    await until(() => expect(page.container.querySelector('h1')).not.toBeNull());
    expect(page.container.querySelector('.btn.primary')).toBeNull();
    expect(page.container.textContent).not.toContain('Marquer comme résolue');
  });

  it('says when the vulnerability does not exist', async () => {
    signInAs('user');
    mockApi(() => ({ status: 404, body: { detail: 'Introuvable' } }));
    renderDetail();
    await until(() =>
      expect(text(page.container.querySelector('[role="alert"]'))).toBe(
        'Cette vulnérabilité n’existe pas ou n’est plus accessible.',
      ),
    );
  });
});

describe('CVE search and CVE page', () => {
  it('searches from q in the URL and lists ranked hits', async () => {
    const calls = mockApi(() => ({
      body: {
        count: 1,
        took_ms: 12,
        results: [
          {
            cve_id: 'CVE-2021-44228',
            title: 'Log4Shell',
            description: 'RCE',
            severity: 'critical',
            cvss_score: 10,
            published_at: '2021-12-10',
            kev: true,
            epss_score: 0.944,
            rank: 1,
          },
        ],
      },
    }));
    page.render('/cve?q=log4j', <Route path="/cve" component={CveSearchPage} />);
    await until(() => expect(page.container.querySelector('.hits li')).not.toBeNull());
    expect(calls[0]).toMatchObject({ path: '/api/vulnerabilities/es/search/', query: { q: 'log4j' } });
    const hit = page.container.querySelector('.hits li')!;
    expect(hit.querySelector('a')!.getAttribute('href')).toBe('/cve/CVE-2021-44228');
    expect(text(hit)).toContain('Critique');
    expect(text(hit)).toContain('CVSS 10,0');
    expect(text(hit)).toContain('EPSS 94,4 %');
    expect(hit.querySelector('.kev-badge')).not.toBeNull();
    expect(page.container.querySelector<HTMLInputElement>('#cve-q')!.value).toBe('log4j');
  });

  it('shows one CVE with a link to the list filtered on it', async () => {
    const calls = mockApi(() => ({ body: cve }));
    page.render('/cve/CVE-2024-3400', <Route path="/cve/:cveId" component={CveSearchPage} />);
    await until(() => expect(page.container.querySelector('table.metrics')).not.toBeNull());
    expect(calls[0]!.path).toBe('/api/vulnerabilities/es/cve/CVE-2024-3400/');
    const link = [...page.container.querySelectorAll('a')].find((a) => text(a).includes('sur vos actifs'))!;
    expect(text(link)).toBe('3 vulnérabilités ouvertes sur vos actifs');
    expect(link.getAttribute('href')).toBe('/vulnerabilities/list?cve=CVE-2024-3400&is_resolved=false');
  });

  it('shows the unknown-CVE message from the server', async () => {
    mockApi(() => ({ status: 404, body: { detail: 'CVE inconnue : CVE-2099-0001' } }));
    page.render('/cve/CVE-2099-0001', <Route path="/cve/:cveId" component={CveSearchPage} />);
    await until(() =>
      expect(text(page.container.querySelector('[role="alert"]'))).toBe('CVE inconnue : CVE-2099-0001'),
    );
  });
});
