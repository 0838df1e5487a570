import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, paged, settle, setupScreen, setValue, signIn } from './screen-helpers.tsx';
import { DOC, MEMBERS, projectFixture, taskFixture } from './support/project-fixtures.ts';
import { ProjectView } from '../../src/features/projects/project-page.tsx';
import { parseProgress } from '../../src/features/projects/project-rules.ts';
import type { ProjectAccess } from '../../src/features/projects/project-types.ts';
import { session } from '../../src/lib/auth/session.ts';

const screen = setupScreen();

const project = (access: ProjectAccess | undefined) =>
  projectFixture({
    description: 'Revue des configurations.',
    start_date: '2025-03-03',
    deadline: '2099-07-31',
    assets: [101],
    ...(access ? { access } : {}),
  });

const MATRIX = [
  [0, 0, 0, 2], // impact 1: likelihood 4 → 2
  [0, 3, 0, 0], // impact 2: likelihood 2 → 3
  [0, 0, 1, 0], // impact 3: likelihood 3 → 1
  [5, 0, 0, 4], // impact 4: likelihood 1 → 5, likelihood 4 → 4
];

const DASHBOARD = {
  project: { id: 7, name: 'Audit', status: 'IN_PROGRESS', priority: 'HIGH', completion_percentage: 45, deadline: null },
  counts: {
    assets: 1,
    vulnerabilities: 12,
    open_vulnerabilities: 9,
    threats: 2,
    active_threats: 1,
    risks: 15,
    tasks: 4,
    corrective_actions: 6,
    documents: 3,
    team_members: 2,
  },
  vulnerabilities_by_severity: { critical: 1, high: 4, medium: 5, low: 2, info: 0 },
  tasks_by_status: { TODO: 1, IN_PROGRESS: 2, BLOCKED: 0, DONE: 1 },
  risks_by_level: { low: 0, medium: 5, high: 1, critical: 9 },
  risk_matrix: MATRIX,
  overdue: {
    tasks: [{ id: 1, title: 'Revue des pare-feux', due_date: '2025-05-01', progress: 30 }],
    corrective_actions: [],
  },
  recent_activity: [
    {
      id: 1,
      action: 'create',
      object_type: 'risk',
      object_id: 4,
      summary: 'Risque « Fuite de données » créé',
      user: { id: 3, name: 'Claire Moreau' },
      created_at: '2025-06-02T15:40:00Z',
    },
  ],
};

const TASK = taskFixture({ due_date: '2099-01-01' });

function routes(access: ProjectAccess | undefined, headers: Record<string, string> = {}) {
  return (method: string, url: URL) => {
    const p = url.pathname;
    if (method === 'GET' && p === '/api/projects/7/') return json(project(access), 200, headers);
    if (p === '/api/projects/7/dashboard/') return json(DASHBOARD);
    if (p === '/api/projects/7/team-members/') return json(MEMBERS);
    if (p === '/api/projects/tasks/') return paged([TASK]);
    if (p === '/api/projects/documents/') return paged([DOC]);
    if (p === '/api/admin/users/')
      return paged([
        { id: 12, username: 'sgarnier', email: 'sophie@example.fr', first_name: 'Sophie', last_name: 'Garnier' },
      ]);
    if (method === 'POST' && p.endsWith('/update_progress/')) return json({ ...TASK, progress: 75 });
    return paged([]);
  };
}

beforeEach(() => {
  screen.handler = routes('manage');
});

async function render(url = '/projects/7') {
  window.history.replaceState(null, '', url);
  act(() => screen.root.render(<ProjectView id="7" />));
  await settle();
}

const text = () => screen.container.textContent ?? '';
const buttons = () => [...screen.container.querySelectorAll('button')].map((b) => b.textContent);
const tab = (id: string) => screen.container.querySelector<HTMLButtonElement>(`[role="tab"][data-tab="${id}"]`)!;

async function openTab(id: string) {
  act(() => tab(id).click());
  await settle();
}

describe('project page', () => {
  it('shows the header and opens on the dashboard', async () => {
    await render();
    expect(screen.container.querySelector('h1')!.textContent).toBe('Audit du SI de production');
    expect(text()).toContain('En cours');
    expect(text()).toContain('Haute');
    expect(text()).toContain('Claire Moreau');
    expect(tab('dashboard').getAttribute('aria-selected')).toBe('true');
    expect(screen.container.querySelector('[role="tabpanel"]')!.getAttribute('data-panel')).toBe('dashboard');
    expect(text()).toContain('Risque « Fuite de données » créé');
    expect(text()).toContain('Revue des pare-feux');
    expect(screen.container.querySelector('[data-count="vulnerabilities"]')!.textContent).toContain('9 ouvertes');
  });

  it('puts each count of the heat map in its vraisemblance × gravité cell', async () => {
    await render();
    const cell = (likelihood: number, impact: number) =>
      screen.container.querySelector(`.rm-matrix td[data-likelihood="${likelihood}"][data-impact="${impact}"]`)!;
    expect(cell(4, 1).querySelector('.rm-count')!.textContent).toBe('2');
    expect(cell(2, 2).querySelector('.rm-count')!.textContent).toBe('3');
    expect(cell(3, 3).querySelector('.rm-count')!.textContent).toBe('1');
    expect(cell(1, 4).querySelector('.rm-count')!.textContent).toBe('5');
    expect(cell(4, 4).querySelector('.rm-count')!.textContent).toBe('4');
    expect(cell(1, 1).querySelector('.rm-count')!.textContent).toBe('0');
    // Coloured by the level of likelihood × impact.
    expect(cell(4, 4).className).toContain('level-critical');
    expect(cell(3, 3).className).toContain('level-high');
    expect(cell(2, 2).className).toContain('level-medium');
    expect(cell(1, 1).className).toContain('level-low');
    // Table semantics: gravité 4 is the first row, its header names it.
    const firstRow = screen.container.querySelector('.rm-matrix tbody tr')!;
    expect(firstRow.querySelector('th[scope="row"]')!.textContent.replace(/\u00ad/g, '')).toBe('4Critique');
    expect(screen.container.querySelector('.rm-matrix caption')!.textContent).toBe(
      'Risques ouverts par niveau résiduel',
    );
  });

  it('follows the tab in the URL and moves with the arrow keys', async () => {
    await render('/projects/7?tab=tasks');
    expect(tab('tasks').getAttribute('aria-selected')).toBe('true');
    expect(text()).toContain('Revue des pare-feux');
    act(() => {
      tab('tasks').dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    });
    await settle();
    expect(new URLSearchParams(window.location.search).get('tab')).toBe('documents');
    expect(document.activeElement).toBe(tab('documents'));
  });

  it('shows cached data with its age when offline', async () => {
    screen.handler = routes('manage', {
      'x-vigie-source': 'cache',
      'x-vigie-stored-at': String(Date.UTC(2025, 5, 2, 8, 30)),
    });
    await render();
    expect(screen.container.querySelector('.data-origin')!.textContent).toMatch(
      /^Données en cache du \d\d\/06 à \d\d:30$/,
    );
  });

  it('a failing tab list shows an empty list and the error', async () => {
    const base = routes('manage');
    screen.handler = (method, url) => {
      if (url.pathname === '/api/projects/risks/') throw new TypeError('Failed to fetch');
      return base(method, url);
    };
    await render('/projects/7?tab=risks');
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      "Erreur de connexion au backend Vigie. Merci de vérifier votre accès réseau ou de contacter l'administrateur.",
    );
    expect(text()).toContain('Aucun risque enregistré.');
    expect(screen.container.querySelector('.rm-matrix')).not.toBeNull();
  });

  it('says « introuvable » when the project does not exist', async () => {
    screen.handler = () => json({ detail: 'Ressource introuvable.' }, 404);
    await render();
    expect(screen.container.querySelector('h1')!.textContent).toBe('Projet introuvable');
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Projet introuvable : il n’existe pas ou vous n’y avez pas accès dans cette organisation.',
    );
  });

  it('says « introuvable », never crashes, when another backend answers 200 null', async () => {
    screen.handler = () => json(null);
    await render();
    expect(screen.container.querySelector('h1')!.textContent).toBe('Projet introuvable');
  });

  it('says « accès refusé » on a 403', async () => {
    screen.handler = () => json({ detail: 'Vous n’avez pas la permission.', code: 'permission_denied' }, 403);
    await render();
    expect(screen.container.querySelector('h1')!.textContent).toBe('Accès refusé');
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Accès refusé : vous n’avez pas les droits pour consulter ce projet.',
    );
  });
});

describe('access', () => {
  it("'read' hides every write control", async () => {
    screen.handler = routes('read');
    await render();
    expect(buttons()).not.toContain('Modifier le projet');
    expect(buttons()).not.toContain('Supprimer le projet');
    for (const id of ['team', 'assets', 'risks', 'remediation', 'vulnerabilities', 'threats', 'tasks', 'documents']) {
      await openTab(id);
      const panel = screen.container.querySelector('[role="tabpanel"]')!;
      expect(panel.querySelectorAll('form'), id).toHaveLength(0);
      expect(panel.querySelectorAll('[data-action]:not([data-action="download"])'), id).toHaveLength(0);
      expect(panel.querySelectorAll('.btn.primary'), id).toHaveLength(0);
      expect(panel.querySelectorAll('tbody select'), id).toHaveLength(0);
    }
    // Reading stays possible: the document can be downloaded.
    expect(screen.container.querySelector('[data-action="download"]')).not.toBeNull();
    expect(screen.container.querySelector('[data-access="read"]')!.textContent).toBe('Lecture seule');
  });

  it("'manage' sees the write controls the read-only check looks for", async () => {
    await render();
    expect(buttons()).toContain('Supprimer le projet');
    for (const id of ['team', 'assets', 'risks', 'vulnerabilities', 'threats', 'tasks', 'documents']) {
      await openTab(id);
      const panel = screen.container.querySelector('[role="tabpanel"]')!;
      const controls =
        panel.querySelectorAll('form').length +
        panel.querySelectorAll('[data-action]:not([data-action="download"])').length +
        panel.querySelectorAll('.btn.primary').length;
      expect(controls, id).toBeGreaterThan(0);
    }
  });

  it('no access field (sample data, other backends) is read only', async () => {
    screen.handler = routes(undefined);
    await render('/projects/7?tab=tasks');
    expect(buttons()).not.toContain('Nouvelle tâche');
    expect(buttons()).not.toContain('Modifier le projet');
  });

  it("'edit' changes content but neither the team nor the project's existence", async () => {
    screen.handler = routes('edit');
    await render('/projects/7?tab=tasks');
    expect(buttons()).toContain('Modifier le projet');
    expect(buttons()).not.toContain('Supprimer le projet');
    expect(buttons()).toContain('Nouvelle tâche');
    await openTab('team');
    expect(text()).not.toContain('Ajouter un membre');
    expect(screen.container.querySelectorAll('[role="tabpanel"] select')).toHaveLength(0);
  });

  it("'manage' manages the team; without the user list a user id is asked for", async () => {
    await render('/projects/7?tab=team');
    expect(text()).toContain('Ajouter un membre');
    expect(text()).toContain('Propriétaire');
    expect(screen.calls.some((c) => c.url.pathname === '/api/admin/users/')).toBe(false);
    const input = screen.container.querySelector<HTMLInputElement>('.pj-inline-form input')!;
    act(() => setValue(input, '12'));
    act(() => {
      input.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/projects/7/add_team_member/');
    expect(post.body).toEqual({ user_id: 12, role: 'MEMBER' });
  });

  it('administrators choose the new member among the tenant users', async () => {
    signIn('admin');
    await render('/projects/7?tab=team');
    expect(screen.calls.some((c) => c.url.pathname === '/api/admin/users/')).toBe(true);
    const select = screen.container.querySelector<HTMLSelectElement>('.pj-inline-form select')!;
    expect([...select.options].map((o) => o.textContent)).toContain('Sophie Garnier (sophie@example.fr)');
    expect(session.value?.profile.role).toBe('admin');
  });
});

describe('progress updates', () => {
  it.each(['50.5', '-1', '101', '', 'abc', '1e2'])('refuses %j with the server’s message', async (value) => {
    await render('/projects/7?tab=tasks');
    const form = screen.container.querySelector<HTMLFormElement>('.pj-progress-form')!;
    const input = form.querySelector('input')!;
    act(() => setValue(input, value));
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    expect(form.querySelector('[role="alert"]')!.textContent).toBe(
      'La progression doit être un entier entre 0 et 100.',
    );
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(screen.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('sends a valid integer to update_progress', async () => {
    await render('/projects/7?tab=tasks');
    const form = screen.container.querySelector<HTMLFormElement>('.pj-progress-form')!;
    act(() => setValue(form.querySelector('input')!, '75'));
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/projects/tasks/201/update_progress/');
    expect(post.body).toEqual({ progress: 75 });
    expect(text()).toContain('Progression de « Revue des pare-feux » : 75 %.');
  });

  it('parses only integers 0–100', () => {
    expect([parseProgress('0'), parseProgress('100'), parseProgress(' 42 ')]).toEqual([0, 100, 42]);
    expect([parseProgress('50.5'), parseProgress('-1'), parseProgress('101'), parseProgress('')]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('document upload', () => {
  class FakeXhr {
    static instances: FakeXhr[] = [];
    upload = { addEventListener: () => {} };
    constructor() {
      FakeXhr.instances.push(this);
    }
    open() {}
    setRequestHeader() {}
    addEventListener() {}
    send() {}
    abort() {}
  }

  beforeEach(() => {
    FakeXhr.instances = [];
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  });

  async function tryUpload(file: File) {
    await render('/projects/7?tab=documents');
    act(() =>
      [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Ajouter un document')!.click(),
    );
    const input = screen.container.querySelector<HTMLInputElement>('input[type="file"]')!;
    Object.defineProperty(input, 'files', { configurable: true, value: [file] });
    act(() => {
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    act(() => {
      input.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    return input.closest('.vm-field')!.querySelector('.vm-field-error')?.textContent;
  }

  it('refuses a file over 25 MB before sending anything', async () => {
    const big = new File(['x'], 'preuves.pdf', { type: 'application/pdf' });
    Object.defineProperty(big, 'size', { value: 25 * 1024 * 1024 + 1 });
    expect(await tryUpload(big)).toBe('Fichier trop volumineux (25 Mo au maximum).');
    expect(FakeXhr.instances).toHaveLength(0);
  });

  it.each([
    ['page.html', 'text/html'],
    ['logo.svg', 'image/svg+xml'],
    ['outil.exe', 'application/octet-stream'],
    ['rapport.pdf', 'text/html'],
  ])('refuses %s (%s) before sending anything', async (name, type) => {
    expect(await tryUpload(new File(['x'], name, { type }))).toBe('Type de fichier non autorisé.');
    expect(FakeXhr.instances).toHaveLength(0);
  });

  it('sends an accepted file with a progress bar and a cancel button', async () => {
    expect(await tryUpload(new File(['%PDF-1.7'], 'rapport.pdf', { type: 'application/pdf' }))).toBeUndefined();
    expect(FakeXhr.instances).toHaveLength(1);
    expect(screen.container.querySelector('[role="progressbar"][aria-label="Envoi du document"]')).not.toBeNull();
    expect(buttons()).toContain('Annuler l’envoi');
  });
});
