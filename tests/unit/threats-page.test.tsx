import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, settle, setupScreen, signIn, type ScreenHandler } from './screen-helpers.tsx';
import ThreatsPage from '../../src/features/threats/threats-page.tsx';
import { validateThreat } from '../../src/features/threats/threat-rules.ts';
import type { Threat } from '../../src/features/threats/threats-api.ts';
import { threat as baseThreat } from './support/threat-fixtures.ts';

const screen = setupScreen();

/** The page's threats: from CERT-FR, on a firewall, with a CVE. */
const threat = (id: number, extra: Partial<Threat> = {}) =>
  baseThreat(id, {
    source: 'CERT-FR',
    cve_id: 'CVE-2024-3400',
    asset_id: 3,
    asset: { id: 3, name: 'fw-paris-01' },
    ...extra,
  });

const SUMMARY = {
  threats_count: 3,
  by_severity: [
    { severity: 'critical', count: 1 },
    { severity: 'high', count: 2 },
  ],
  by_status: [
    { status: 'ACTIVE', count: 2 },
    { status: 'MITIGATED', count: 1 },
  ],
  recent_threats: [threat(1)],
};

beforeEach(() => {
  screen.handler = (method, url) => {
    if (url.pathname === '/api/threats/summary/') return json(SUMMARY);
    if (method === 'POST' && url.pathname.endsWith('/mark_mitigated/'))
      return json(threat(5, { status: 'MITIGATED', is_mitigated: true, mitigated_at: '2025-06-02T09:00:00Z' }));
    return json({ results: [threat(5), threat(6, { severity: 'critical' })], total: 2, page: 1, size: 10, pages: 1 });
  };
});

async function render(url: string) {
  window.history.replaceState(null, '', url);
  act(() => screen.root.render(<ThreatsPage />));
  await settle();
}

const listCalls = () => screen.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/threats/');

describe('ThreatsPage', () => {
  it('shows the spec §3 summary: count, severities, statuses, recent threats', async () => {
    await render('/threats');
    const summary = screen.container.querySelector('.threat-summary')!;
    expect(summary.querySelector('.threat-total')!.textContent).toContain('3');
    expect(summary.querySelector('[data-severity="high"]')!.textContent).toContain('2');
    expect(summary.textContent).toContain('Active');
    expect(summary.textContent).toContain('Atténuée');
    expect(summary.textContent).toContain('Menace 1');
  });

  it('reads its filters from the URL and sends them with page and size', async () => {
    await render('/threats?severity=high&status=ACTIVE&text=ransom&page=2&size=25');
    const q = listCalls()[0]!.url.searchParams;
    expect(Object.fromEntries(q)).toEqual({
      page: '2',
      size: '25',
      severity: 'high',
      status: 'ACTIVE',
      text: 'ransom',
    });
    expect(screen.container.querySelector<HTMLInputElement>('input[type="search"]')!.value).toBe('ransom');
  });

  it('writes a changed filter into the URL, back at page 1, and reloads', async () => {
    await render('/threats?page=3&status=ACTIVE');
    const severity = screen.container.querySelector<HTMLSelectElement>('.vm-toolbar select')!;
    act(() => {
      severity.value = 'critical';
      severity.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await settle();
    const params = new URLSearchParams(window.location.search);
    expect(params.get('severity')).toBe('critical');
    expect(params.get('status')).toBe('ACTIVE');
    expect(params.has('page')).toBe(false);
    const last = listCalls().at(-1)!.url.searchParams;
    expect(last.get('severity')).toBe('critical');
    expect(last.get('page')).toBe('1');
  });

  it('marks a threat as mitigated', async () => {
    await render('/threats');
    const row = screen.container.querySelector('tr[data-threat-id="5"]')!;
    act(() => row.querySelector<HTMLButtonElement>('[data-action="mitigate"]')!.click());
    await settle();
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/threats/5/mark_mitigated/');
    expect(screen.container.querySelector('[role="status"].vm-success')!.textContent).toBe(
      'Menace « Menace 5 » marquée comme atténuée.',
    );
  });

  it('shows the error in French when marking fails, and leaves the row as it was', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'POST' ? json({ detail: 'Menace introuvable.' }, 404) : base(method, url, body);
    await render('/threats');
    act(() => screen.container.querySelector<HTMLButtonElement>('[data-action="mitigate"]')!.click());
    await settle();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Impossible de marquer « Menace 5 » comme atténuée : Menace introuvable.',
    );
    const row = screen.container.querySelector('tr[data-threat-id="5"]')!;
    expect(row.textContent).toContain('Active');
    expect(row.querySelector('[data-action="mitigate"]')).not.toBeNull();
  });

  it('asks before deleting', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'DELETE' ? new Response(null, { status: 204 }) : base(method, url, body);
    await render('/threats');
    const row = screen.container.querySelector('tr[data-threat-id="6"]')!;
    act(() => row.querySelector<HTMLButtonElement>('[data-action="delete"]')!.click());
    expect(screen.calls.some((c) => c.method === 'DELETE')).toBe(false);
    act(() => [...row.querySelectorAll('button')].find((b) => b.textContent === 'Oui, supprimer')!.click());
    await settle();
    expect(screen.calls.find((c) => c.method === 'DELETE')!.url.pathname).toBe('/api/threats/6/');
  });

  it('shows read-only members no write action', async () => {
    signIn('readonly');
    await render('/threats');
    expect(screen.container.querySelectorAll('button[data-action]')).toHaveLength(0);
    expect(screen.container.textContent).not.toContain('Nouvelle menace');
  });

  it('creates a threat after checking the form', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'POST' ? json(threat(9, { title: 'Campagne' }), 201) : base(method, url, body);
    await render('/threats');
    act(() =>
      [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Nouvelle menace')!.click(),
    );
    const form = screen.container.querySelector('form.card')!;
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    expect(form.textContent).toContain('Le titre est obligatoire.');
    const title = form.querySelector<HTMLInputElement>('input')!;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(title, 'Campagne');
      title.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/threats/');
    expect(post.body).toMatchObject({ title: 'Campagne', severity: 'medium', status: 'ACTIVE', cve_id: null });
    expect(screen.container.textContent).toContain('Menace « Campagne » créée.');
  });

  it('validates like the server', () => {
    expect(validateThreat({ title: ' ', cve_id: '', asset_id: '' })).toEqual({ title: 'Le titre est obligatoire.' });
    expect(validateThreat({ title: 'x', cve_id: 'CVE-24-1', asset_id: 'abc' })).toEqual({
      cve_id: 'Identifiant CVE invalide (format CVE-AAAA-NNNN).',
      asset_id: 'L’identifiant d’actif doit être un nombre entier.',
    });
  });
});

/** The prototype setter is how a real keystroke updates a React-controlled field. */
function type(input: HTMLInputElement, value: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function submit(form: Element) {
  act(() => {
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
}

const button = (text: string) => [...screen.container.querySelectorAll('button')].find((b) => b.textContent === text)!;

/** The fetch of the API client rejects as when the server does not answer at all. */
function noAnswer(): Response {
  throw new TypeError('Failed to fetch');
}

describe('ThreatsPage when the server fails (spec §7 fallbacks)', () => {
  it('shows the empty list with a French note and a retry, not an error panel nor "no threats"', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'GET' && url.pathname === '/api/threats/' ? noAnswer() : base(method, url, body);
    await render('/threats');
    const note = screen.container.querySelector('.threat-fallback')!;
    expect(note.getAttribute('role')).toBe('status');
    expect(note.textContent).toContain(
      'Menaces indisponibles : le serveur n’a pas répondu. La liste affichée est vide par défaut.',
    );
    expect(screen.container.querySelector('[role="alert"]')).toBeNull();
    expect(screen.container.querySelector('.error')).toBeNull();
    expect(screen.container.textContent).not.toContain('Impossible de charger les menaces');
    expect(screen.container.textContent).not.toContain('Aucune menace enregistrée.');
    expect(screen.container.textContent).not.toContain('0 menaces');
    expect(screen.container.querySelector('tr[data-threat-id]')).toBeNull();

    // The server is back: « Réessayer » reads the list again and the note goes.
    screen.handler = base;
    const before = listCalls().length;
    act(() => note.querySelector('button')!.click());
    await settle();
    expect(listCalls().length).toBe(before + 1);
    expect(screen.container.querySelector('.threat-fallback')).toBeNull();
    expect(screen.container.querySelector('tr[data-threat-id="5"]')).not.toBeNull();
  });

  it('says the server is in error on a 500 (still no error panel)', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'GET' && url.pathname === '/api/threats/' ? json({ detail: 'x' }, 500) : base(method, url, body);
    await render('/threats');
    expect(screen.container.querySelector('.threat-fallback')!.textContent).toContain(
      'Menaces indisponibles : le serveur est en erreur. La liste affichée est vide par défaut.',
    );
    expect(screen.container.querySelector('[role="alert"]')).toBeNull();
  });

  it('marks the fallback summary as unavailable, not as "no threats"', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      url.pathname === '/api/threats/summary/' ? noAnswer() : base(method, url, body);
    await render('/threats');
    const notes = [...screen.container.querySelectorAll('.threat-fallback')].map((n) => n.textContent);
    expect(notes).toEqual([
      'Synthèse indisponible : le serveur n’a pas répondu. Les compteurs affichés sont à zéro par défaut.Réessayer',
    ]);
    const summary = screen.container.querySelector('.threat-summary')!;
    expect(summary.textContent).toContain('Indisponible.');
    expect(summary.textContent).not.toContain('Aucune menace');
    expect(screen.container.querySelector('[role="alert"]')).toBeNull();
    // The list itself arrived and is shown as usual.
    expect(screen.container.querySelector('tr[data-threat-id="6"]')).not.toBeNull();
  });

  it('still shows a 403 refusal as before', async () => {
    screen.handler = () => json({ detail: 'Vous n’avez pas accès aux menaces.' }, 403);
    await render('/threats');
    expect(screen.container.querySelector('.threat-fallback')).toBeNull();
    expect([...screen.container.querySelectorAll('[role="alert"]')].map((a) => a.textContent)).toContain(
      'Impossible de charger les menaces : Vous n’avez pas accès aux menaces.',
    );
  });

  it('a failed create keeps what was typed and says it failed', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) => (method === 'POST' ? noAnswer() : base(method, url, body));
    await render('/threats');
    act(() => button('Nouvelle menace').click());
    const form = screen.container.querySelector('form.card')!;
    const [title, , cve] = [...form.querySelectorAll<HTMLInputElement>('input')];
    type(title!, 'Campagne');
    type(cve!, 'CVE-2024-3094');
    submit(form);
    await settle();
    expect(screen.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    expect(form.querySelector('[role="alert"]')!.textContent).toBe(
      'La création de la menace a échoué : le serveur n’a pas répondu. Vos saisies sont conservées.',
    );
    expect(screen.container.querySelector('form.card')).toBe(form);
    expect(title!.value).toBe('Campagne');
    expect(cve!.value).toBe('CVE-2024-3094');
    expect(screen.container.textContent).not.toContain('créée');
  });

  it('a refused update shows the server’s field message and keeps the form', async () => {
    const fields = { cve_id: ['Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).'] };
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'PUT' ? json({ detail: 'Données invalides.', fields }, 400) : base(method, url, body);
    await render('/threats');
    act(() =>
      screen.container.querySelector<HTMLButtonElement>('tr[data-threat-id="5"] [data-action="edit"]')!.click(),
    );
    await settle();
    const form = screen.container.querySelector('form.card')!;
    const title = form.querySelector<HTMLInputElement>('input')!;
    type(title, 'Menace 5 revue');
    submit(form);
    await settle();
    expect(form.querySelector('[role="alert"]')!.textContent).toBe(
      'L’enregistrement de la menace a échoué : Données invalides. Vos saisies sont conservées.',
    );
    expect(form.textContent).toContain(fields.cve_id[0]);
    expect(title.value).toBe('Menace 5 revue');
  });

  it('a failed delete says so and keeps the question open', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) => (method === 'DELETE' ? noAnswer() : base(method, url, body));
    await render('/threats');
    const row = screen.container.querySelector('tr[data-threat-id="6"]')!;
    act(() => row.querySelector<HTMLButtonElement>('[data-action="delete"]')!.click());
    act(() => button('Oui, supprimer').click());
    await settle();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'La suppression de la menace « Menace 6 » a échoué : le serveur n’a pas répondu.',
    );
    expect(row.textContent).toContain('Supprimer cette menace ?');
    expect(screen.container.textContent).not.toContain('supprimée');
  });
});

describe('ThreatsPage edits from the server’s current version (GET /api/threats/{id}/)', () => {
  const withThreat =
    (base: ScreenHandler, answer: () => Response): ScreenHandler =>
    (method, url, body) =>
      method === 'GET' && url.pathname === '/api/threats/5/' ? answer() : base(method, url, body);

  it('reads the threat by id, refreshes its row and fills the form with it', async () => {
    screen.handler = withThreat(screen.handler, () => json(threat(5, { title: 'Menace 5 (à jour)' })));
    await render('/threats');
    act(() =>
      screen.container.querySelector<HTMLButtonElement>('tr[data-threat-id="5"] [data-action="edit"]')!.click(),
    );
    await settle();
    expect(screen.calls.some((c) => c.method === 'GET' && c.url.pathname === '/api/threats/5/')).toBe(true);
    expect(screen.container.querySelector('tr[data-threat-id="5"] th')!.textContent).toContain('Menace 5 (à jour)');
    const form = screen.container.querySelector('form.card')!;
    expect(form.querySelector<HTMLInputElement>('input')!.value).toBe('Menace 5 (à jour)');
    expect(form.querySelector('[role="status"]')).toBeNull();
  });

  it('edits the row’s copy with a note when the current version cannot be read', async () => {
    screen.handler = withThreat(screen.handler, noAnswer);
    await render('/threats');
    act(() =>
      screen.container.querySelector<HTMLButtonElement>('tr[data-threat-id="5"] [data-action="edit"]')!.click(),
    );
    await settle();
    const form = screen.container.querySelector('form.card')!;
    expect(form.querySelector<HTMLInputElement>('input')!.value).toBe('Menace 5');
    expect(form.querySelector('[role="status"]')!.textContent).toBe(
      'Version à jour indisponible : le serveur n’a pas répondu. Le formulaire reprend la ligne affichée.',
    );
  });

  it('opens no form for a threat deleted meanwhile (404), and says so', async () => {
    screen.handler = withThreat(screen.handler, () => json({ detail: 'Ressource introuvable.' }, 404));
    await render('/threats');
    act(() =>
      screen.container.querySelector<HTMLButtonElement>('tr[data-threat-id="5"] [data-action="edit"]')!.click(),
    );
    await settle();
    expect(screen.container.querySelector('form.card')).toBeNull();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'La menace « Menace 5 » n’existe plus sur le serveur.',
    );
  });
});
