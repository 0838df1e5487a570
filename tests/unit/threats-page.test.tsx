import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { session } from '../../src/features/auth/session.ts';
import ThreatsPage from '../../src/features/threats/threats-page.tsx';
import { validateThreat } from '../../src/features/threats/threat-rules.ts';
import type { Threat } from '../../src/features/threats/threats-api.ts';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
let calls: { method: string; url: URL; body: unknown }[];
let handler: (method: string, url: URL, body: unknown) => Response;

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

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

function signIn(role: string) {
  session.value = {
    tokens: { access_token: 'tok', refresh_token: 'ref', expires_at: Date.now() + 3_600_000 },
    profile: { id: 1, username: 'ana', email: 'ana@example.fr', role },
  };
}

async function settle() {
  for (let i = 0; i < 5; i++) {
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
  }
}

beforeEach(() => {
  calls = [];
  setClientEnvironment({
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        'http://localhost',
      );
      const method = (init?.method ?? 'GET').toUpperCase();
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body;
      calls.push({ method, url, body });
      return handler(method, url, body);
    },
  });
  handler = (method, url) => {
    if (url.pathname === '/api/threats/summary/') return json(SUMMARY);
    if (method === 'POST' && url.pathname.endsWith('/mark_mitigated/'))
      return json(threat(5, { status: 'MITIGATED', is_mitigated: true, mitigated_at: '2025-06-02T09:00:00Z' }));
    return json({ results: [threat(5), threat(6, { severity: 'critical' })], total: 2, page: 1, size: 10, pages: 1 });
  };
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  signIn('user');
});
afterEach(() => {
  act(() => root.unmount());
  container.remove();
  resetApiClient();
  session.value = null;
});

async function render(url: string) {
  window.history.replaceState(null, '', url);
  act(() => root.render(<ThreatsPage />));
  await settle();
}

const listCalls = () => calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/threats/');

describe('ThreatsPage', () => {
  it('shows the §3 summary: count, severities, statuses, recent threats', async () => {
    await render('/threats');
    const summary = container.querySelector('.threat-summary')!;
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
    expect(container.querySelector<HTMLInputElement>('input[type="search"]')!.value).toBe('ransom');
  });

  it('writes a changed filter into the URL, back at page 1, and reloads', async () => {
    await render('/threats?page=3&status=ACTIVE');
    const severity = container.querySelector<HTMLSelectElement>('.vm-toolbar select')!;
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
    const row = container.querySelector('tr[data-threat-id="5"]')!;
    act(() => row.querySelector<HTMLButtonElement>('[data-action="mitigate"]')!.click());
    await settle();
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/threats/5/mark_mitigated/');
    expect(container.querySelector('[role="status"].vm-success')!.textContent).toBe(
      'Menace « Menace 5 » marquée comme atténuée.',
    );
  });

  it('shows the error in French when marking fails', async () => {
    const base = handler;
    handler = (method, url, body) =>
      method === 'POST' ? json({ detail: 'Menace introuvable.' }, 404) : base(method, url, body);
    await render('/threats');
    act(() => container.querySelector<HTMLButtonElement>('[data-action="mitigate"]')!.click());
    await settle();
    expect(container.querySelector('[role="alert"]')!.textContent).toBe('Menace introuvable.');
  });

  it('asks before deleting', async () => {
    const base = handler;
    handler = (method, url, body) =>
      method === 'DELETE' ? new Response(null, { status: 204 }) : base(method, url, body);
    await render('/threats');
    const row = container.querySelector('tr[data-threat-id="6"]')!;
    act(() => row.querySelector<HTMLButtonElement>('[data-action="delete"]')!.click());
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    act(() => [...row.querySelectorAll('button')].find((b) => b.textContent === 'Oui, supprimer')!.click());
    await settle();
    expect(calls.find((c) => c.method === 'DELETE')!.url.pathname).toBe('/api/threats/6/');
  });

  it('shows read-only members no write action', async () => {
    signIn('readonly');
    await render('/threats');
    expect(container.querySelectorAll('button[data-action]')).toHaveLength(0);
    expect(container.textContent).not.toContain('Nouvelle menace');
  });

  it('creates a threat after checking the form', async () => {
    const base = handler;
    handler = (method, url, body) =>
      method === 'POST' ? json(threat(9, { title: 'Campagne' }), 201) : base(method, url, body);
    await render('/threats');
    act(() => [...container.querySelectorAll('button')].find((b) => b.textContent === 'Nouvelle menace')!.click());
    const form = container.querySelector('form.card')!;
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
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/threats/');
    expect(post.body).toMatchObject({ title: 'Campagne', severity: 'medium', status: 'ACTIVE', cve_id: null });
    expect(container.textContent).toContain('Menace « Campagne » créée.');
  });

  it('validates like the server', () => {
    expect(validateThreat({ title: ' ', cve_id: '', asset_id: '' })).toEqual({ title: 'Le titre est obligatoire.' });
    expect(validateThreat({ title: 'x', cve_id: 'CVE-24-1', asset_id: 'abc' })).toEqual({
      cve_id: 'Identifiant CVE invalide (format CVE-AAAA-NNNN).',
      asset_id: 'L’identifiant d’actif doit être un nombre entier.',
    });
  });
});
