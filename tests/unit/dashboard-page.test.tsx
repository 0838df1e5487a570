import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import DashboardPage from '../../src/features/dashboard/dashboard-page.tsx';
import { json, screenQueries, setupScreen, withProfile } from './screen-helpers.tsx';
import notificationsEmpty from '../../sample-data/notifications-empty.json';

const screen = setupScreen();
const { text, $ } = screenQueries(screen);

const SUMMARY = {
  vulnerabilities: { total: 1300, open: 1254, critical: 31, high: 402, kev: 17, resolved: 46 },
  assets: { total: 40, critical: 3 },
  threats: { total: 12, active: 5 },
  scans: { total: 9, running: 1, last_completed_at: '2026-11-27T08:00:00Z' },
  tasks: { running: 0, failed_24h: 2 },
  last_cve_update: '2026-11-28T02:00:00Z',
  generated_at: '2026-11-28T10:00:00Z',
};

const WORK = {
  work: {
    total: 4,
    overdue: 1,
    items: [
      {
        kind: 'task',
        id: 11,
        title: 'Revue des règles du pare-feu',
        project: { id: 3, name: 'Audit Vernier' },
        due_date: '2026-11-20',
        progress: 40,
        status: 'IN_PROGRESS',
        priority: 'HIGH',
        overdue: true,
      },
      {
        kind: 'action',
        id: 7,
        title: 'Activer la MFA sur le VPN',
        project: { id: 3, name: 'Audit Vernier' },
        due_date: '2026-12-02',
        progress: 0,
        status: null,
        priority: null,
        overdue: false,
      },
      {
        kind: 'task',
        id: 12,
        title: 'Rédiger le rapport',
        project: { id: 4, name: 'Pentest portail' },
        due_date: null,
        progress: 10,
        status: 'TODO',
        priority: 'MEDIUM',
        overdue: false,
      },
    ],
  },
  risks: {
    open: 3,
    projects: 2,
    initial: [
      { likelihood: 4, impact: 4, count: 2 },
      { likelihood: 2, impact: 3, count: 1 },
    ],
    residual: [{ likelihood: 1, impact: 3, count: 3 }],
  },
  generated_at: '2026-11-28T10:00:00Z',
};

const FINDINGS = {
  count: 31,
  next: null,
  previous: null,
  results: [
    {
      id: 501,
      title: 'Contournement d’authentification FortiOS',
      cve_id: 'CVE-2022-40684',
      severity: 'critical',
      cvss_score: 9.8,
      kev: true,
      asset: { id: 1, name: 'fw-perimetre-01' },
    },
  ],
};

const NOTICES = {
  count: 2,
  next: null,
  previous: null,
  results: [
    { id: 1, title: 'Scan terminé', created_at: '2026-11-28T09:00:00Z', read: false, level: 'info', link: '/scans' },
    {
      id: 2,
      title: 'Nouvelle CVE critique',
      created_at: '2026-11-27T09:00:00Z',
      read: true,
      level: 'warning',
      link: null,
    },
  ],
};

type Answers = Partial<Record<'summary' | 'work' | 'findings' | 'notices', Response | (() => Response)>>;

function answer(answers: Answers = {}) {
  screen.handler = (_method, url) => {
    const pick = (key: keyof Answers, fallback: unknown) => {
      const given = answers[key];
      return given === undefined ? json(fallback) : typeof given === 'function' ? given() : given;
    };
    if (url.pathname === '/api/dashboard/summary/') return pick('summary', SUMMARY);
    if (url.pathname === '/api/dashboard/my-work/') return pick('work', WORK);
    if (url.pathname === '/api/vulnerabilities/vulnerabilities/') return pick('findings', FINDINGS);
    if (url.pathname === '/api/notifications/notifications/') return pick('notices', NOTICES);
    return json({ detail: 'inconnu' }, 404);
  };
}

const hrefOf = (el: Element | null) => el?.closest('a')?.getAttribute('href');

describe('the home dashboard', () => {
  beforeEach(() => {
    withProfile({ first_name: 'Marc', current_tenant: { id: 't1', name: 'Acme Sécurité' } });
  });

  it('greets the user and shows the tenant’s figures, each a link to its screen', async () => {
    answer();
    await screen.render(<DashboardPage />, '/dashboard');
    expect($('h1').textContent).toBe('Bonjour, Marc');
    expect(text()).toContain('Acme Sécurité · Utilisateur');
    expect($('[data-testid="home-open"]').textContent).toBe('1\u202f254');
    expect(hrefOf($('[data-testid="home-critical"]'))).toBe(
      '/vulnerabilities/list?severity=critical&is_resolved=false',
    );
    expect(hrefOf($('[data-testid="home-kev"]'))).toBe('/vulnerabilities/list?kev=true&is_resolved=false');
    expect(hrefOf($('[data-testid="home-threats"]'))).toBe('/threats');
    expect(hrefOf($('[data-testid="home-failed"]'))).toBe('/tasks');
    expect($('[data-testid="home-failed"]').closest('a')!.lastElementChild!.textContent).toBe('tâches en échec (24 h)');
    expect(text()).toContain('Base CVE mise à jour le 28 nov. 2026');
    // Live data: no origin note.
    expect(screen.container.querySelector('.data-origin')).toBeNull();
  });

  it('lists my open work soonest due first, says what is overdue, and links each to its project tab', async () => {
    answer();
    await screen.render(<DashboardPage />, '/dashboard');
    const items = [...screen.container.querySelectorAll('.home-work li')];
    expect(items.map((li) => li.querySelector('.home-work-title')!.textContent)).toEqual([
      'Revue des règles du pare-feu',
      'Activer la MFA sur le VPN',
      'Rédiger le rapport',
    ]);
    expect(text()).toContain('4 éléments ouverts · 1 en retard');
    expect(items[0]!.className).toBe('overdue');
    expect(items[0]!.textContent).toContain('Échéance 20 nov. 2026');
    expect(items[0]!.textContent).toContain('En retard');
    expect(items[1]!.textContent).toContain('Action corrective');
    expect(items[1]!.querySelector('a')!.getAttribute('href')).toBe('/projects/3?tab=remediation');
    expect(items[0]!.querySelector('a')!.getAttribute('href')).toBe('/projects/3?tab=tasks');
    expect(items[2]!.textContent).toContain('Sans échéance');
    expect(items[0]!.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('40');
    expect(text()).toContain('Et 1 autre élément dans vos projets.');
  });

  it('draws the heat map of open risks, initial then residual', async () => {
    answer();
    await screen.render(<DashboardPage />, '/dashboard');
    const cell = (l: number, i: number) =>
      screen.container.querySelector(`.rm-matrix td[data-likelihood="${l}"][data-impact="${i}"] .rm-count`)!
        .textContent;
    expect(cell(4, 4)).toBe('2');
    expect(cell(2, 3)).toBe('1');
    expect(cell(1, 3)).toBe('0');
    expect($('.rm-matrix caption').textContent).toBe('3 risques ouverts sur 2 projets, niveau initial');
    const residual = [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Résiduel')!;
    act(() => residual.click());
    expect(cell(4, 4)).toBe('0');
    expect(cell(1, 3)).toBe('3');
    expect(residual.getAttribute('aria-pressed')).toBe('true');
  });

  it('lists the open critical findings by CVSS, with KEV marked, and my recent notifications', async () => {
    answer();
    await screen.render(<DashboardPage />, '/dashboard');
    const call = screen.calls.find((c) => c.url.pathname === '/api/vulnerabilities/vulnerabilities/')!;
    expect(Object.fromEntries(call.url.searchParams)).toMatchObject({
      severity: 'critical',
      is_resolved: 'false',
      ordering: '-cvss_score',
    });
    const finding = $('.home-findings li');
    expect(finding.textContent).toContain('CVE-2022-40684');
    expect(finding.textContent).toContain('CVSS 9,8');
    expect(finding.querySelector('.kev-badge')).not.toBeNull();
    expect(finding.querySelector('a')!.getAttribute('href')).toBe('/vulnerabilities/501');
    expect(text()).toContain('Voir les 31 vulnérabilités critiques ouvertes');
    const notices = [...screen.container.querySelectorAll('.home-notices li')];
    expect(notices[0]!.className).toBe('unread');
    expect(notices[0]!.textContent).toContain('Non lue : Scan terminé');
    expect(notices[0]!.querySelector('a')!.getAttribute('href')).toBe('/scans');
    expect(notices[1]!.querySelector('a')).toBeNull();
  });

  it('says where each part comes from: cached with its age, sample marked, a failure on its own with a retry', async () => {
    const storedAt = Date.UTC(2026, 10, 28, 8, 30);
    answer({
      summary: () => json(SUMMARY, 200, { 'X-Vigie-Source': 'cache', 'X-Vigie-Stored-At': String(storedAt) }),
      work: () => json({ detail: 'Service indisponible' }, 503),
      notices: () => json(notificationsEmpty, 200, { 'X-Vigie-Source': 'sample' }),
    });
    await screen.render(<DashboardPage />, '/dashboard');
    const notes = [...screen.container.querySelectorAll('.data-origin')].map((n) => n.textContent);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^Données en cache du 28\/11 à \d\d:30$/);
    expect(notes[1]).toBe('Données d’exemple');
    expect($('#home-notices').closest('section')!.querySelector('[data-sample="true"]')).not.toBeNull();
    // Mon travail and the heat map failed: each says so, the rest of the page stands.
    const errors = [...screen.container.querySelectorAll('.home-error [role="alert"]')].map((e) => e.textContent);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^Impossible de charger votre travail : /);
    expect($('.home-findings')).not.toBeNull();

    answer();
    const retry = $('#home-work').closest('section')!.querySelector('button')!;
    await act(async () => {
      retry.click();
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(screen.container.querySelectorAll('.home-work li')).toHaveLength(3);
  });

  it('takes an answer of another shape (mock mode’s empty list, an older backend) for an error, not for figures', async () => {
    const emptyPage = { count: 0, next: null, previous: null, results: [] };
    answer({ summary: json(emptyPage), work: json(emptyPage) });
    await screen.render(<DashboardPage />, '/dashboard');
    const errors = [...screen.container.querySelectorAll('[role="alert"]')].map((e) => e.textContent);
    expect(errors).toEqual([
      expect.stringMatching(/^Impossible de charger les chiffres clés : Réponse inattendue du serveur\./),
      expect.stringMatching(/^Impossible de charger votre travail : Réponse inattendue du serveur\./),
      expect.stringMatching(/^Impossible de charger la carte des risques : Réponse inattendue du serveur\./),
    ]);
    expect($('h1').textContent).toBe('Bonjour, Marc');
  });

  it('says so when nothing is assigned and no risk is open', async () => {
    answer({
      work: json({
        ...WORK,
        work: { total: 0, overdue: 0, items: [] },
        risks: { open: 0, projects: 0, initial: [], residual: [] },
      }),
      findings: json({ count: 0, next: null, previous: null, results: [] }),
    });
    await screen.render(<DashboardPage />, '/dashboard');
    expect(text()).toContain('Aucune tâche ni action corrective ouverte ne vous est assignée.');
    expect(text()).toContain('Aucun risque ouvert dans vos projets.');
    expect(text()).toContain('Aucune vulnérabilité critique ouverte.');
  });
});
