import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, paged, settle, setupScreen, setValue } from './screen-helpers.tsx';
import { DOC, MEMBERS, projectFixture, STAMPS, taskFixture } from './support/project-fixtures.ts';
import { ProjectView } from '../../src/features/projects/project-page.tsx';
import type { ProjectAccess } from '../../src/features/projects/project-types.ts';

const screen = setupScreen();

const project = (access: ProjectAccess) => projectFixture({ access });
const TASK = taskFixture();

const RISK = {
  id: 4,
  project: 7,
  title: 'Fuite de données du portail',
  description: '',
  scenario: '',
  asset: null,
  threat: null,
  vulnerability: null,
  likelihood: 2,
  impact: 3,
  initial_score: 6,
  initial_level: 'medium',
  residual_likelihood: 2,
  residual_impact: 3,
  residual_score: 6,
  residual_level: 'medium',
  treatment: 'REDUCE',
  status: 'IN_TREATMENT',
  owner: null,
  remediation_plan: 5,
  ...STAMPS,
};

const PLAN = {
  id: 5,
  risk: 4,
  project: 7,
  title: 'Durcir le portail',
  description: '',
  status: 'DRAFT',
  target_likelihood: 1,
  target_impact: 2,
  owner: null,
  due_date: null,
  progress: 0,
  actions_count: 1,
  ...STAMPS,
};

const ACTION = {
  id: 51,
  remediation_plan: 5,
  project: 7,
  title: 'Activer le WAF',
  description: '',
  assignee: 9,
  due_date: '2099-01-01',
  progress: 0,
  status: 'TODO',
  completed_at: null,
  is_overdue: false,
  ...STAMPS,
};

const OBJECTS: Record<string, object> = {
  '/api/projects/risks/4/': RISK,
  '/api/projects/remediation-plans/5/': PLAN,
  '/api/projects/corrective-actions/51/': ACTION,
  '/api/projects/tasks/201/': TASK,
  '/api/projects/documents/31/': DOC,
};

function routes(access: ProjectAccess) {
  return (method: string, url: URL, body: unknown) => {
    const p = url.pathname;
    if (method === 'GET' && p === '/api/projects/7/') return json(project(access));
    if (p === '/api/projects/7/team-members/') return json(MEMBERS);
    if (method === 'PATCH' && OBJECTS[p]) return json({ ...OBJECTS[p], ...(body as object) });
    if (method === 'POST' && p === '/api/projects/risks/') return json({ ...RISK, ...(body as object), id: 8 }, 201);
    if (p === '/api/projects/risks/') return paged([RISK]);
    if (p === '/api/projects/remediation-plans/') return paged([PLAN]);
    // A plan's actions are read through the plan (spec §7), unpaged.
    if (method === 'GET' && p === '/api/projects/remediation-plans/5/actions/') return json([ACTION]);
    if (p === '/api/projects/tasks/') return paged([TASK]);
    if (p === '/api/projects/documents/') return paged([DOC]);
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

async function click(selector: string) {
  const el = screen.container.querySelector<HTMLButtonElement>(selector);
  expect(el, selector).not.toBeNull();
  act(() => el!.click());
  await settle();
}

/** The form whose heading starts with `heading`. */
function form(heading: string): HTMLFormElement {
  const found = [...screen.container.querySelectorAll('form')].find((f) =>
    f.querySelector('h3, h4')?.textContent.startsWith(heading),
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

const writes = () => screen.calls.filter((c) => c.method !== 'GET');

describe('remediation plan edit', () => {
  it('sends only the changed fields', async () => {
    await render('remediation');
    await click('[aria-label="Modifier le plan : Durcir le portail"]');
    const f = form('Modifier le plan');
    act(() => setValue(field(f, 'Titre *'), 'Durcir le portail web'));
    const status = field<HTMLSelectElement>(f, 'Statut');
    expect([...status.options].map((o) => o.textContent)).toEqual(['Brouillon', 'En cours', 'Terminé', 'Annulé']);
    act(() => setValue(status, 'IN_PROGRESS'));
    act(() => setValue(field<HTMLSelectElement>(f, 'Responsable'), '3'));
    act(() => setValue(field(f, 'Échéance'), '2099-03-31'));
    await submit(f);
    const patch = writes()[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.url.pathname).toBe('/api/projects/remediation-plans/5/');
    expect(patch.body).toEqual({
      title: 'Durcir le portail web',
      status: 'IN_PROGRESS',
      owner: 3,
      due_date: '2099-03-31',
    });
    expect(text()).toContain('Plan « Durcir le portail web » enregistré.');
  });

  it.each([
    [
      'Vraisemblance cible',
      '3',
      'La vraisemblance cible ne peut pas dépasser la vraisemblance initiale du risque (2).',
    ],
    ['Gravité cible', '4', 'La gravité cible ne peut pas dépasser la gravité initiale du risque (3).'],
  ])('refuses a %s above the risk’s initial score', async (labelText, value, message) => {
    await render('remediation');
    await click('[aria-label="Modifier le plan : Durcir le portail"]');
    const f = form('Modifier le plan');
    const select = field<HTMLSelectElement>(f, labelText);
    act(() => setValue(select, value));
    await submit(f);
    expect(select.closest('.vm-field')!.querySelector('.vm-field-error')!.textContent).toBe(message);
    expect(select.getAttribute('aria-invalid')).toBe('true');
    expect(writes()).toHaveLength(0);
  });

  it('shows the server’s field errors next to the fields', async () => {
    const base = routes('edit');
    screen.handler = (method, url, body) =>
      method === 'PATCH'
        ? json(
            {
              detail: 'Date invalide : format AAAA-MM-JJ attendu.',
              fields: { due_date: ['Date invalide : format AAAA-MM-JJ attendu.'] },
            },
            400,
          )
        : base(method, url, body);
    await render('remediation');
    await click('[aria-label="Modifier le plan : Durcir le portail"]');
    const f = form('Modifier le plan');
    const due = field(f, 'Échéance');
    act(() => setValue(due, '2099-03-01'));
    await submit(f);
    expect(due.closest('.vm-field')!.querySelector('.vm-field-error')!.textContent).toBe(
      'Date invalide : format AAAA-MM-JJ attendu.',
    );
    expect(f.querySelector('[role="alert"]')!.textContent).toBe(
      "Erreur inattendue lors de l'appel API modification du plan de remédiation : Date invalide : format AAAA-MM-JJ attendu.",
    );
  });

  it('sends nothing when nothing changed', async () => {
    await render('remediation');
    await click('[aria-label="Modifier le plan : Durcir le portail"]');
    await submit(form('Modifier le plan'));
    expect(writes()).toHaveLength(0);
    expect(text()).toContain('Aucune modification à enregistrer.');
  });
});

describe('corrective action edit', () => {
  it('lists the team members and sends assignee: null for « Non attribué »', async () => {
    await render('remediation');
    await click('[aria-label="Modifier : Activer le WAF"]');
    expect(screen.calls.some((c) => c.url.pathname === '/api/projects/7/team-members/')).toBe(true);
    const f = form('Modifier l’action');
    const assignee = field<HTMLSelectElement>(f, 'Attribuée à');
    expect([...assignee.options].map((o) => o.textContent)).toEqual([
      'Non attribué',
      'Claire Moreau (claire@example.fr)',
      'Karim Benali (karim@example.fr)',
    ]);
    expect(assignee.value).toBe('9');
    act(() => setValue(assignee, ''));
    await submit(f);
    const patch = writes()[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.url.pathname).toBe('/api/projects/corrective-actions/51/');
    expect(patch.body).toEqual({ assignee: null });
  });

  it('sends a new title, description and due date', async () => {
    await render('remediation');
    await click('[aria-label="Modifier : Activer le WAF"]');
    const f = form('Modifier l’action');
    act(() => setValue(field(f, 'Titre *'), 'Activer le WAF en blocage'));
    act(() => setValue(field<HTMLTextAreaElement>(f, 'Description'), 'Mode bloquant sur le portail.'));
    act(() => setValue(field(f, 'Échéance'), ''));
    await submit(f);
    expect(writes()[0]!.body).toEqual({
      title: 'Activer le WAF en blocage',
      description: 'Mode bloquant sur le portail.',
      due_date: null,
    });
    expect(text()).toContain('Action « Activer le WAF en blocage » enregistrée.');
  });
});

describe('task edit', () => {
  it('sends the changed title, status, priority, assignee and due date', async () => {
    await render('tasks');
    await click('[aria-label="Modifier : Revue des pare-feux"]');
    const f = form('Modifier la tâche');
    act(() => setValue(field(f, 'Titre *'), 'Revue des pare-feux périmétriques'));
    act(() => setValue(field<HTMLSelectElement>(f, 'Statut'), 'BLOCKED'));
    act(() => setValue(field<HTMLSelectElement>(f, 'Priorité'), 'CRITICAL'));
    act(() => setValue(field<HTMLSelectElement>(f, 'Attribuée à'), '9'));
    act(() => setValue(field(f, 'Échéance'), '2099-05-01'));
    await submit(f);
    const patch = writes()[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.url.pathname).toBe('/api/projects/tasks/201/');
    expect(patch.body).toEqual({
      title: 'Revue des pare-feux périmétriques',
      status: 'BLOCKED',
      priority: 'CRITICAL',
      assignee: 9,
      due_date: '2099-05-01',
    });
    expect(text()).toContain('Tâche « Revue des pare-feux périmétriques » enregistrée.');
  });

  it('keeps the create form’s body unchanged when nobody is assigned', async () => {
    await render('tasks');
    await click('.vm-head .btn.primary');
    const f = form('Nouvelle tâche');
    act(() => setValue(field(f, 'Titre *'), 'Restitution'));
    await submit(f);
    expect(writes()[0]!.body).toEqual({
      project: 7,
      title: 'Restitution',
      description: '',
      priority: 'MEDIUM',
      due_date: null,
    });
  });
});

describe('risk owner', () => {
  it('edits the owner alone', async () => {
    await render('risks');
    await click('[aria-label="Modifier : Fuite de données du portail"]');
    const f = form('Modifier « Fuite de données du portail »');
    act(() => setValue(field<HTMLSelectElement>(f, 'Propriétaire du risque'), '3'));
    await submit(f);
    const patch = writes()[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.url.pathname).toBe('/api/projects/risks/4/');
    expect(patch.body).toEqual({ owner: 3 });
  });

  it('creates a risk with its owner', async () => {
    await render('risks');
    await click('.vm-head .btn.primary');
    const f = form('Nouveau risque');
    act(() => setValue(field(f, 'Titre *'), 'Rançongiciel'));
    act(() => setValue(field<HTMLSelectElement>(f, 'Propriétaire du risque'), '9'));
    await submit(f);
    const post = writes()[0]!;
    expect(post.method).toBe('POST');
    expect(post.body).toMatchObject({ project: 7, title: 'Rançongiciel', owner: 9 });
  });
});

describe('document edit', () => {
  it('sends the changed name, title, description and type as JSON', async () => {
    await render('documents');
    await click('[data-action="edit"][aria-label="Modifier : Rapport d’audit"]');
    const f = form('Modifier le document');
    act(() => setValue(field(f, 'Nom du fichier *'), 'rapport-final.pdf'));
    act(() => setValue(field(f, 'Titre'), 'Rapport final'));
    act(() => setValue(field<HTMLTextAreaElement>(f, 'Description'), 'Version signée.'));
    act(() => setValue(field<HTMLSelectElement>(f, 'Type'), 'EVIDENCE'));
    await submit(f);
    const patch = writes()[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.url.pathname).toBe('/api/projects/documents/31/');
    expect(patch.body).toEqual({
      name: 'rapport-final.pdf',
      title: 'Rapport final',
      description: 'Version signée.',
      document_type: 'EVIDENCE',
    });
    expect(text()).toContain('Document « Rapport final » enregistré.');
  });

  it('refuses an empty name with the server’s message', async () => {
    await render('documents');
    await click('[data-action="edit"][aria-label="Modifier : Rapport d’audit"]');
    const f = form('Modifier le document');
    const name = field(f, 'Nom du fichier *');
    act(() => setValue(name, '  '));
    await submit(f);
    expect(name.closest('.vm-field')!.querySelector('.vm-field-error')!.textContent).toBe(
      'Le nom du document est requis.',
    );
    expect(writes()).toHaveLength(0);
  });
});

describe('read access', () => {
  it.each(['risks', 'remediation', 'tasks', 'documents'])('hides the edit buttons (%s)', async (tab) => {
    screen.handler = routes('read');
    await render(tab);
    const panel = screen.container.querySelector('[role="tabpanel"]')!;
    expect(text()).toContain(tab === 'documents' ? 'Rapport d’audit' : tab === 'tasks' ? 'Revue des' : 'Fuite');
    expect(panel.querySelectorAll('[data-action="edit"]')).toHaveLength(0);
    expect([...panel.querySelectorAll('button')].map((b) => b.textContent)).not.toContain('Modifier');
    expect(panel.querySelectorAll('form')).toHaveLength(0);
  });

  it('shows the edit buttons to editors', async () => {
    await render('remediation');
    const panel = screen.container.querySelector('[role="tabpanel"]')!;
    expect(panel.querySelectorAll('[data-action="edit"]')).toHaveLength(2);
  });
});
