import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import ThreatsPage from '../../src/features/threats/threats-page.tsx';
import { validateThreat } from '../../src/features/threats/threat-rules.ts';
import type { Threat } from '../../src/features/threats/threats-api.ts';

const screen = setupScreen();

function threat(id: number, extra: Partial<Threat> = {}): Threat {
  return {
    id,
    title: `Menace ${id}`,
    description: '',
    threat_type: 'ransomware',
    severity: 'high',
    status: 'ACTIVE',
    is_mitigated: false,
    mitigated_at: null,
    source: 'CERT-FR',
    cve_id: 'CVE-2024-3400',
    asset_id: 3,
    asset: { id: 3, name: 'fw-paris-01' },
    created_at: '2025-06-02T08:00:00Z',
    updated_at: '2025-06-02T08:00:00Z',
    ...extra,
  };
}

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
  it('shows the §3 summary: count, severities, statuses, recent threats', async () => {
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

  it('shows the error in French when marking fails', async () => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      method === 'POST' ? json({ detail: 'Menace introuvable.' }, 404) : base(method, url, body);
    await render('/threats');
    act(() => screen.container.querySelector<HTMLButtonElement>('[data-action="mitigate"]')!.click());
    await settle();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe('Menace introuvable.');
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
