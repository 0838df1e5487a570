import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, paged, settle, setupScreen, setValue } from './screen-helpers.tsx';
import { MEMBERS, projectFixture, STAMPS } from './support/project-fixtures.ts';
import { ProjectView } from '../../src/features/projects/project-page.tsx';
import type { ProjectAccess } from '../../src/features/projects/project-types.ts';
import { setClientEnvironment, type ApiError } from '../../src/lib/api-client.ts';
import {
  createProject,
  getRiskPlan,
  listAssetThreats,
  listAssetVulnerabilities,
  listPlanActions,
  updateProjectAsset,
} from '../../src/features/projects/projects-api.ts';
import { PROJECT_MESSAGES } from '../../src/features/projects/project-http.ts';

/**
 * The screens' use of the spec §7 calls of rows 7.50, 7.54, 7.55 and 7.56 (PUT or PATCH per call, a linked asset's
 * findings and threats, a risk's plan, a plan's actions) and the spec §8 timeouts and refusals of row 8.38
 * (docs/api-projects.md "The client's calls").
 */
const screen = setupScreen();

const ASSET = {
  id: 61,
  project: 7,
  asset_id: 101,
  name: 'srv-web-01',
  asset_type: 'server',
  hostname: 'web01.acme.local',
  ip_address: '192.0.2.10',
  operating_system: 'Debian 12',
  criticality: 'high',
  internet_exposed: true,
  owner: 'Équipe web',
  description: 'Frontal.',
  tags: ['dmz'],
  vulnerabilities_count: 1,
  ...STAMPS,
};

const FINDING = {
  id: 801,
  title: 'Service SSH exposé',
  cve_id: 'CVE-2024-6387',
  severity: 'high',
  cvss_score: 8.1,
  is_resolved: false,
  created_at: '2025-05-02T08:00:00Z',
};

const THREAT = {
  id: 901,
  title: 'Hameçonnage ciblé',
  severity: 'critical',
  status: 'ACTIVE',
  is_mitigated: false,
  created_at: '2025-05-03T08:00:00Z',
};

const risk = (id: number, title: string, plan: number | null) => ({
  id,
  project: 7,
  title,
  description: '',
  scenario: '',
  asset: null,
  threat: null,
  vulnerability: null,
  likelihood: 3,
  impact: 4,
  initial_score: 12,
  initial_level: 'critical',
  residual_likelihood: 3,
  residual_impact: 4,
  residual_score: 12,
  residual_level: 'critical',
  treatment: 'REDUCE',
  status: 'IN_TREATMENT',
  owner: null,
  remediation_plan: plan,
  ...STAMPS,
});

const WITH_PLAN = risk(4, 'Fuite de données du portail', 5);
const WITHOUT_PLAN = risk(6, 'Rançongiciel', null);

const PLAN = {
  id: 5,
  risk: 4,
  project: 7,
  title: 'Durcir le portail',
  description: 'Filtrage applicatif.',
  status: 'IN_PROGRESS',
  target_likelihood: 1,
  target_impact: 2,
  owner: null,
  due_date: '2099-03-31',
  progress: 50,
  actions_count: 2,
  ...STAMPS,
};

const action = (id: number, plan: number, title: string) => ({
  id,
  remediation_plan: plan,
  project: 7,
  title,
  description: '',
  assignee: null,
  due_date: null,
  progress: 0,
  status: 'TODO',
  completed_at: null,
  is_overdue: false,
  ...STAMPS,
});

function routes(access: ProjectAccess) {
  return (method: string, url: URL, body: unknown) => {
    const p = url.pathname;
    if (method === 'GET' && p === '/api/projects/7/') return json(projectFixture({ access }));
    if (method === 'PUT' && p === '/api/projects/7/')
      return json({ ...projectFixture({ access }), ...(body as object) });
    if (method === 'PATCH' && p === '/api/projects/7/')
      return json({ ...projectFixture({ access }), owner: { id: 9, name: 'Karim Benali' } });
    if (p === '/api/projects/7/team-members/') return json(MEMBERS);
    if (p === '/api/projects/assets/') return paged([ASSET]);
    if (p === '/api/projects/assets/61/vulnerabilities/') return json([FINDING]);
    if (p === '/api/projects/assets/61/threats/') return json([THREAT]);
    if (method === 'PUT' && p === '/api/projects/assets/61/') return json({ ...ASSET, ...(body as object) });
    if (p === '/api/projects/risks/') return paged([WITH_PLAN, WITHOUT_PLAN]);
    if (p === '/api/projects/risks/4/remediation-plan/') return json(PLAN);
    if (p === '/api/projects/remediation-plans/')
      return paged([PLAN, { ...PLAN, id: 8, risk: 6, title: 'Sauvegardes' }]);
    if (p === '/api/projects/remediation-plans/5/actions/')
      return json([action(51, 5, 'Activer le WAF'), action(52, 5, 'Corriger l’injection SQL')]);
    if (p === '/api/projects/remediation-plans/8/actions/') return json([action(81, 8, 'Tester la restauration')]);
    return paged([]);
  };
}

beforeEach(() => {
  screen.handler = routes('edit');
});

async function render(tab: string) {
  window.history.replaceState(null, '', `/projects/7?tab=${tab}`);
  act(() => screen.root.render(<ProjectView id="7" />));
  await settle();
}

const text = () => screen.container.textContent ?? '';
const gets = () => screen.calls.filter((c) => c.method === 'GET').map((c) => c.url.pathname);
const writes = () => screen.calls.filter((c) => c.method !== 'GET');

function button(label: string): HTMLButtonElement {
  const el = screen.container.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`);
  expect(el, label).not.toBeNull();
  return el!;
}

async function click(el: HTMLElement) {
  act(() => el.click());
  await settle();
}

function form(heading: string): HTMLFormElement {
  const found = [...screen.container.querySelectorAll('form')].find((f) =>
    f.querySelector('h2, h3, h4')?.textContent.startsWith(heading),
  );
  expect(found, heading).toBeDefined();
  return found!;
}

function field<T extends HTMLElement = HTMLInputElement>(f: HTMLFormElement, labelText: string): T {
  const lab = [...f.querySelectorAll('label')].find((l) => l.textContent === labelText);
  expect(lab, labelText).toBeDefined();
  return f.querySelector<T>(`#${CSS.escape(lab!.htmlFor)}`)!;
}

async function submit(f: HTMLFormElement) {
  act(() => {
    f.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
  await settle();
}

describe('Actifs: a linked asset’s findings and threats (GET /projects/assets/{id}/vulnerabilities/, /threats/)', () => {
  it.each(['edit', 'read'] as const)(
    'opens them under the asset’s row, read when asked (%s access)',
    async (access) => {
      screen.handler = routes(access);
      await render('assets');
      expect(gets()).not.toContain('/api/projects/assets/61/vulnerabilities/');
      const toggle = button('Afficher : Vulnérabilités et menaces de l’actif « srv-web-01 »');
      expect(toggle.getAttribute('aria-expanded')).toBe('false');
      await click(toggle);
      expect(toggle.getAttribute('aria-expanded')).toBe('true');
      // Its name holds its visible text (WCAG 2.5.3).
      expect(toggle.textContent).toBe('Masquer');
      expect(toggle.getAttribute('aria-label')).toBe('Masquer : Vulnérabilités et menaces de l’actif « srv-web-01 »');
      expect(gets()).toEqual(
        expect.arrayContaining(['/api/projects/assets/61/vulnerabilities/', '/api/projects/assets/61/threats/']),
      );
      const details = screen.container.querySelector(`#${CSS.escape(toggle.getAttribute('aria-controls')!)}`)!;
      // A panel under the table (not a row inside it), titled after the asset, which takes the focus.
      expect(details.closest('table')).toBeNull();
      const title = details.querySelector('h4')!;
      expect(details.getAttribute('aria-labelledby')).toBe(title.id);
      expect(title.textContent).toBe('Vulnérabilités et menaces de l’actif « srv-web-01 »');
      expect(document.activeElement).toBe(title);
      const findings = details.querySelector('table')!;
      expect(findings.querySelector('caption')!.textContent).toBe('Vulnérabilités de l’actif srv-web-01');
      expect(details.textContent).toContain('Service SSH exposé');
      expect(details.textContent).toContain('CVE-2024-6387');
      expect(details.textContent).toContain('Ouverte');
      expect(details.textContent).toContain('Hameçonnage ciblé');
      expect(details.querySelector('a[href="/assets/101"]')!.textContent).toBe('Ouvrir la fiche de l’actif');
      await click(toggle);
      expect(toggle.getAttribute('aria-expanded')).toBe('false');
      expect(text()).not.toContain('Hameçonnage ciblé');
    },
  );

  it('« Fermer » closes the panel and gives the focus back to the row’s button', async () => {
    await render('assets');
    const toggle = button('Afficher : Vulnérabilités et menaces de l’actif « srv-web-01 »');
    await click(toggle);
    const close = [...screen.container.querySelectorAll('.pj-details button')].find((b) => b.textContent === 'Fermer');
    await click(close as HTMLButtonElement);
    expect(screen.container.querySelector('.pj-details')).toBeNull();
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(toggle);
  });

  it('says so when the asset has neither', async () => {
    const base = routes('edit');
    screen.handler = (method, url, body) =>
      url.pathname.startsWith('/api/projects/assets/61/') ? json([]) : base(method, url, body);
    await render('assets');
    await click(button('Afficher : Vulnérabilités et menaces de l’actif « srv-web-01 »'));
    expect(text()).toContain('Aucune vulnérabilité sur cet actif.');
    expect(text()).toContain('Aucune menace sur cet actif.');
  });
});

describe('Actifs: editing a linked asset (PUT /projects/assets/{id}/)', () => {
  it('sends every field of the form with PUT, and not the tags it does not show', async () => {
    await render('assets');
    await click(button('Modifier : srv-web-01'));
    const f = form('Modifier l’actif « srv-web-01 »');
    act(() => setValue(field<HTMLSelectElement>(f, 'Criticité'), 'critical'));
    act(() => setValue(field(f, 'Système d’exploitation'), 'Debian 13'));
    await submit(f);
    const put = writes()[0]!;
    expect(put.method).toBe('PUT');
    expect(put.url.pathname).toBe('/api/projects/assets/61/');
    expect(put.body).toEqual({
      name: 'srv-web-01',
      asset_type: 'server',
      criticality: 'critical',
      hostname: 'web01.acme.local',
      ip_address: '192.0.2.10',
      operating_system: 'Debian 13',
      owner: 'Équipe web',
      description: 'Frontal.',
    });
    expect(text()).toContain('Actif « srv-web-01 » enregistré.');
  });

  it('refuses an empty name before sending', async () => {
    await render('assets');
    await click(button('Modifier : srv-web-01'));
    const f = form('Modifier l’actif');
    const name = field(f, 'Nom *');
    act(() => setValue(name, '  '));
    await submit(f);
    expect(name.closest('.vm-field')!.querySelector('.vm-field-error')!.textContent).toBe(
      'Le nom de l’actif est requis.',
    );
    expect(writes()).toHaveLength(0);
  });

  it('offers no edit to a reader', async () => {
    screen.handler = routes('read');
    await render('assets');
    expect(screen.container.querySelector('[aria-label="Modifier : srv-web-01"]')).toBeNull();
  });
});

describe('Risques: a risk’s remediation plan (GET /projects/risks/{riskId}/remediation-plan/)', () => {
  it('reads the plan through the risk when its row is opened', async () => {
    screen.handler = routes('read');
    await render('risks');
    expect(gets()).not.toContain('/api/projects/risks/4/remediation-plan/');
    const toggle = button('Afficher : Plan de remédiation du risque « Fuite de données du portail »');
    await click(toggle);
    expect(gets()).toContain('/api/projects/risks/4/remediation-plan/');
    expect(gets()).not.toContain('/api/projects/remediation-plans/');
    const details = screen.container.querySelector(`#${CSS.escape(toggle.getAttribute('aria-controls')!)}`)!;
    expect(details.querySelector('h4')!.textContent).toBe(
      'Plan de remédiation du risque « Fuite de données du portail »',
    );
    expect(details.querySelector('h5')!.textContent).toBe('Durcir le portail');
    expect(details.textContent).toContain('En cours');
    expect(details.textContent).toContain('V1 × G2');
    expect(details.textContent).toContain('Filtrage applicatif.');
    expect(details.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('50');
    expect(details.querySelector('a')!.getAttribute('href')).toBe('/projects/7?tab=remediation');
    expect(details.querySelector('a')!.textContent).toBe('Voir le plan dans l’onglet Remédiation');
  });

  it('a risk without a plan says « Aucun » and asks nothing', async () => {
    await render('risks');
    const row = screen.container.querySelector('tr[data-risk-id="6"]')!;
    expect(row.querySelector('[data-action="details"]')).toBeNull();
    expect(row.textContent).toContain('Aucun');
    expect(gets().filter((p) => p.includes('remediation-plan'))).toEqual([]);
  });

  it('a plan gone since the list was read (404) reads as none', async () => {
    const base = routes('edit');
    screen.handler = (method, url, body) =>
      url.pathname === '/api/projects/risks/4/remediation-plan/'
        ? json({ detail: 'Ressource introuvable.', code: 'not_found' }, 404)
        : base(method, url, body);
    await render('risks');
    await click(button('Afficher : Plan de remédiation du risque « Fuite de données du portail »'));
    expect(text()).toContain('Ce risque n’a pas de plan de remédiation.');
  });
});

describe('Remédiation: each plan’s actions (GET /projects/remediation-plans/{planId}/actions/)', () => {
  it('reads every plan’s actions through the plan, and shows each under its own plan', async () => {
    await render('remediation');
    expect(gets()).toEqual(
      expect.arrayContaining([
        '/api/projects/remediation-plans/5/actions/',
        '/api/projects/remediation-plans/8/actions/',
      ]),
    );
    expect(gets()).not.toContain('/api/projects/corrective-actions/');
    const plan5 = screen.container.querySelector('[data-plan-id="5"]')!;
    const plan8 = screen.container.querySelector('[data-plan-id="8"]')!;
    expect([...plan5.querySelectorAll('th[scope="row"]')].map((th) => th.textContent)).toEqual([
      'Activer le WAF',
      'Corriger l’injection SQL',
    ]);
    expect([...plan8.querySelectorAll('th[scope="row"]')].map((th) => th.textContent)).toEqual([
      'Tester la restauration',
    ]);
  });

  it('a plan whose actions cannot be read says why, the others still show', async () => {
    const base = routes('edit');
    screen.handler = (method, url, body) =>
      url.pathname === '/api/projects/remediation-plans/8/actions/'
        ? json({ detail: 'Panne.' }, 502)
        : base(method, url, body);
    await render('remediation');
    expect(text()).toContain("Erreur inattendue lors de l'appel API liste des actions correctives : Panne.");
    expect(text()).toContain('Activer le WAF');
  });
});

describe('Projet: PUT for the edit form, PATCH for the owner alone', () => {
  it('the edit form sends the whole form with PUT', async () => {
    await render('dashboard');
    await click([...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Modifier le projet')!);
    const f = form('Modifier « Audit du SI de production »');
    act(() => setValue(field(f, 'Nom *'), 'Audit du SI (phase 2)'));
    await submit(f);
    const put = writes()[0]!;
    expect(put.method).toBe('PUT');
    expect(put.url.pathname).toBe('/api/projects/7/');
    expect(put.body).toEqual({
      name: 'Audit du SI (phase 2)',
      description: '',
      status: 'IN_PROGRESS',
      priority: 'HIGH',
      start_date: null,
      deadline: null,
    });
  });

  it('« Rendre propriétaire » sends {owner_id} alone with PATCH', async () => {
    screen.handler = routes('manage');
    await render('team');
    await click(button('Rendre propriétaire : Karim Benali'));
    const patch = writes()[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.url.pathname).toBe('/api/projects/7/');
    expect(patch.body).toEqual({ owner_id: 9 });
    expect(text()).toContain('Karim Benali est désormais propriétaire du projet.');
  });
});

describe('spec §8 on the project screens: a refused action stays on its page', () => {
  it('a 403 on the project shows « Accès refusé » in the page, without going to the sign-in page', async () => {
    const navigations: string[] = [];
    setClientEnvironment({ navigate: (url) => navigations.push(url) });
    screen.handler = () =>
      json({ detail: "Vous n'avez pas les autorisations nécessaires.", code: 'permission_denied' }, 403);
    await render('dashboard');
    expect(screen.container.querySelector('h1')!.textContent).toBe('Accès refusé');
    expect(text()).toContain(PROJECT_MESSAGES.forbidden);
    await act(async () => {
      await new Promise((r) => setTimeout(r, 150));
    });
    expect(navigations).toEqual([]);
  });

  it('a 403 refusing the session itself (tenant_forbidden) goes to the sign-in page', async () => {
    const navigations: string[] = [];
    setClientEnvironment({ navigate: (url) => navigations.push(url) });
    screen.handler = () => json({ detail: 'Organisation refusée.', code: 'tenant_forbidden' }, 403);
    await render('dashboard');
    await act(async () => {
      await new Promise((r) => setTimeout(r, 150));
    });
    expect(navigations).toHaveLength(1);
    expect(navigations[0]).toMatch(/^\/login/);
  });
});

describe('spec §8 timeouts of the newly used calls', () => {
  const CONNECTION = PROJECT_MESSAGES.connection;

  it('the sub-lists, the risk’s plan and the asset PUT give up after 5 s; the creation waits longer', async () => {
    vi.useFakeTimers();
    try {
      setClientEnvironment({
        fetch: (_input: RequestInfo | URL, init?: RequestInit) =>
          new Promise<Response>((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          }),
      });
      const outcomes: Record<string, string> = {};
      const track = (name: string, p: Promise<unknown>) =>
        void p.then(
          (v) => (outcomes[name] = (v as { error?: string | null }).error ?? 'ok'),
          (e: unknown) => (outcomes[name] = (e as ApiError).message),
        );
      track('plan', getRiskPlan(4));
      track('actions', listPlanActions(5));
      track('findings', listAssetVulnerabilities(61));
      track('threats', listAssetThreats(61));
      track('asset', updateProjectAsset(61, { name: 'srv-web-01' }));
      track('create', createProject({ name: 'Nouveau' }));
      await act(async () => {
        await vi.advanceTimersByTimeAsync(5_100);
      });
      expect(outcomes).toEqual({
        plan: CONNECTION,
        actions: CONNECTION,
        findings: CONNECTION,
        threats: CONNECTION,
        asset: CONNECTION,
      });
      await act(async () => {
        await vi.advanceTimersByTimeAsync(30_000);
      });
      expect(outcomes.create).toBe(CONNECTION);
    } finally {
      vi.useRealTimers();
    }
  });
});
