import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, settle, setupScreen, setValue, signIn } from './screen-helpers.tsx';
import { projectFixture } from './support/project-fixtures.ts';
import ProjectsPage from '../../src/features/projects/projects-page.tsx';
import { validateProject } from '../../src/features/projects/project-rules.ts';
import type { Project } from '../../src/features/projects/project-types.ts';

const screen = setupScreen();

function project(id: number, extra: Partial<Project> = {}): Project {
  return projectFixture({
    id,
    name: `Projet ${id}`,
    description: 'Audit du SI',
    completion_percentage: 40,
    start_date: '2025-03-01',
    deadline: '2099-07-31',
    tasks: [],
    access: 'manage',
    ...extra,
  });
}

const PAGE = {
  count: 3,
  next: null,
  previous: null,
  results: [
    project(1),
    project(2, { status: 'PLANNING', priority: 'CRITICAL', name: 'Remédiation Log4Shell' }),
    project(3, { status: 'PLANNED', priority: 'LOW', deadline: '2020-01-01' }),
  ],
};

beforeEach(() => {
  screen.handler = () => json(PAGE);
});

async function render(url = '/projects') {
  window.history.replaceState(null, '', url);
  act(() => screen.root.render(<ProjectsPage />));
  await settle();
}

const listCalls = () => screen.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/projects/');
const alert = () => screen.container.querySelector('[role="alert"]')?.textContent;
const button = (text: string) => [...screen.container.querySelectorAll('button')].find((b) => b.textContent === text)!;

describe('project list', () => {
  it('shows the projects with French status and priority labels', async () => {
    await render();
    const rows = screen.container.querySelectorAll('tr[data-project-id]');
    expect(rows).toHaveLength(3);
    const first = rows[0]!;
    expect(first.querySelector('a')!.getAttribute('href')).toBe('/projects/1');
    expect(first.textContent).toContain('En cours');
    expect(first.textContent).toContain('Haute');
    expect(first.textContent).toContain('Claire Moreau');
    expect(first.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('40');
    // PLANNING and PLANNED both read « Planifié ».
    expect(rows[1]!.querySelector('[data-status]')!.textContent).toBe('Planifié');
    expect(rows[2]!.querySelector('[data-status]')!.textContent).toBe('Planifié');
    expect(rows[1]!.textContent).toContain('Critique');
    expect(rows[2]!.textContent).toContain('Faible');
    expect(rows[2]!.textContent).toContain('En retard');
    expect(screen.container.textContent).toContain('3 projets');
  });

  it('reads its filters from the URL and sends them', async () => {
    await render('/projects?status=PLANNED%2CPLANNING&priority=HIGH&text=audit&page=2&ordering=name');
    const q = Object.fromEntries(listCalls()[0]!.url.searchParams);
    expect(q).toEqual({
      page: '2',
      page_size: '25',
      status: 'PLANNED,PLANNING',
      priority: 'HIGH',
      text: 'audit',
      ordering: 'name',
    });
    expect(screen.container.querySelector<HTMLInputElement>('input[type="search"]')!.value).toBe('audit');
  });

  it('writes a changed filter into the URL, back at page 1, and reloads', async () => {
    await render('/projects?page=3&priority=LOW');
    const status = screen.container.querySelector<HTMLSelectElement>('.vm-toolbar select')!;
    act(() => setValue(status, 'ON_HOLD'));
    await settle();
    const params = new URLSearchParams(window.location.search);
    expect(params.get('status')).toBe('ON_HOLD');
    expect(params.get('priority')).toBe('LOW');
    expect(params.has('page')).toBe(false);
    const last = listCalls().at(-1)!.url.searchParams;
    expect(last.get('status')).toBe('ON_HOLD');
    expect(last.get('priority')).toBe('LOW');
    expect(last.get('page')).toBe('1');
  });

  it('sends the text search through the URL', async () => {
    await render();
    const input = screen.container.querySelector<HTMLInputElement>('input[type="search"]')!;
    act(() => setValue(input, 'pentest'));
    act(() => {
      input.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    expect(new URLSearchParams(window.location.search).get('text')).toBe('pentest');
    expect(listCalls().at(-1)!.url.searchParams.get('text')).toBe('pentest');
  });

  it('shows an empty list and the spec §8 connection message when the backend cannot be reached', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    await render();
    expect(alert()).toBe(
      "Erreur de connexion au backend Vigie. Merci de vérifier votre accès réseau ou de contacter l'administrateur.",
    );
    expect(screen.container.querySelectorAll('tr[data-project-id]')).toHaveLength(0);
    expect(screen.container.textContent).toContain('0 projets');
    expect(screen.container.textContent).toContain('Aucun projet pour le moment.');
  });

  it('shows an empty list and the unexpected-error message with the cause', async () => {
    screen.handler = () => json({ detail: 'Paramètre « ordering » invalide.' }, 400);
    await render();
    expect(alert()).toBe("Erreur inattendue lors de l'appel API liste des projets : Paramètre « ordering » invalide.");
    expect(screen.container.querySelectorAll('tr[data-project-id]')).toHaveLength(0);
  });

  it('gives the status as the cause when the server sent no detail', async () => {
    screen.handler = () => new Response('', { status: 418 });
    await render();
    expect(alert()).toBe(
      "Erreur inattendue lors de l'appel API liste des projets : Erreur de serveur inattendue : 418",
    );
  });

  it('offers no creation to read-only members', async () => {
    signIn('readonly');
    await render();
    expect(screen.container.textContent).not.toContain('Nouveau projet');
  });
});

describe('project creation', () => {
  async function openForm() {
    await render();
    act(() => button('Nouveau projet').click());
    return screen.container.querySelector('form.pj-form')!;
  }

  function submit(form: Element) {
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
  }

  it('checks the name and the dates before sending', async () => {
    const form = await openForm();
    submit(form);
    expect(form.querySelector('.vm-field-error')!.textContent).toBe('Le nom du projet est requis.');
    const [name] = form.querySelectorAll<HTMLInputElement>('input:not([type])');
    act(() => setValue(name!, 'x'.repeat(201)));
    // French days, whatever the browser's language.
    const dates = form.querySelectorAll<HTMLInputElement>('input[placeholder="jj/mm/aaaa"]');
    act(() => setValue(dates[0]!, '10/06/2025'));
    act(() => setValue(dates[1]!, '01/06/2025'));
    submit(form);
    const errors = [...form.querySelectorAll('.vm-field-error')].map((e) => e.textContent);
    expect(errors).toEqual([
      'Le nom ne doit pas dépasser 200 caractères.',
      'L’échéance ne peut pas précéder la date de début.',
    ]);
    expect(screen.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('validates status and priority against the contract lists', () => {
    const draft = { name: 'A', description: '', status: 'DONE', priority: 'URGENT', start_date: '', deadline: '' };
    expect(validateProject(draft)).toEqual({
      status: 'Statut invalide. Valeurs possibles : PLANNED, PLANNING, IN_PROGRESS, ON_HOLD, COMPLETED, CANCELLED.',
      priority: 'Priorité invalide. Valeurs possibles : LOW, MEDIUM, HIGH, CRITICAL.',
    });
    expect(validateProject({ ...draft, status: 'PLANNING', priority: 'CRITICAL', deadline: '2025-13-40' })).toEqual({
      deadline: 'Date invalide : le format attendu est JJ/MM/AAAA.',
    });
    expect(
      validateProject({
        ...draft,
        status: 'PLANNED',
        priority: 'LOW',
        start_date: '2025-06-01',
        deadline: '2025-06-01',
      }),
    ).toEqual({});
  });

  async function createWith(answer: () => Response) {
    const form = await openForm();
    screen.handler = (method) => (method === 'POST' ? answer() : json(PAGE));
    const [name] = form.querySelectorAll<HTMLInputElement>('input:not([type])');
    act(() => setValue(name!, '  Audit PCI DSS  '));
    submit(form);
    await settle();
    return form;
  }

  it('sends a valid project as a queueable write and reloads the list', async () => {
    await createWith(() => json(project(9, { name: 'Audit PCI DSS' }), 201));
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/projects/');
    expect(post.body).toMatchObject({ name: 'Audit PCI DSS', status: 'PLANNED', priority: 'MEDIUM' });
    expect(screen.container.querySelector('.vm-success')!.textContent).toBe('Projet « Audit PCI DSS » créé.');
    expect(listCalls().length).toBeGreaterThan(1);
  });

  it('shows « Erreur: {detail} » when the server refuses with a detail', async () => {
    const form = await createWith(() =>
      json({ detail: 'Un projet porte déjà ce nom.', code: 'duplicate', fields: { name: ['Nom déjà utilisé.'] } }, 400),
    );
    expect(form.querySelector('[role="alert"]')!.textContent).toBe('Erreur: Un projet porte déjà ce nom.');
    expect(form.querySelector('.vm-field-error')!.textContent).toBe('Nom déjà utilisé.');
  });

  it('shows the generic create message when the server gives no detail', async () => {
    const form = await createWith(() => new Response(null, { status: 500 }));
    expect(form.querySelector('[role="alert"]')!.textContent).toBe(
      'Erreur lors de la création du projet. Veuillez réessayer.',
    );
  });

  it('says the project waits for the network when the service worker queued it', async () => {
    await createWith(() =>
      json(
        { detail: 'Modification enregistrée hors ligne ; elle sera envoyée au retour du réseau.', queued: true },
        202,
        { 'x-vigie-source': 'queued' },
      ),
    );
    expect(screen.container.querySelector('.vm-success')!.textContent).toBe(
      'Modification enregistrée hors ligne ; elle sera envoyée au retour du réseau.',
    );
  });
});
