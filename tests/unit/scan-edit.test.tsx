import { act } from 'react';
import { Route } from 'wouter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import ScanPage from '../../src/features/scans/scan-page.tsx';
import { validateScanEdit } from '../../src/features/scans/scan-edit-form.tsx';
import { mockApi, setup, signInAs, text, until, type Call } from './vulnerabilities-helpers.tsx';

const scan = {
  id: 31,
  name: 'Trivy hebdomadaire',
  scanner: 'trivy',
  target: 'registry/app:1.2',
  asset_id: 7,
  status: 'COMPLETED',
  progress: 100,
  task_id: null,
  report_format: 'trivy',
  report_size: 20_480,
  summary: null,
  error: null,
  started_at: '2026-11-28T08:00:00Z',
  completed_at: '2026-11-28T08:01:00Z',
  created_at: '2026-11-28T08:00:00Z',
};
const ASSETS = { count: 1, next: null, previous: null, results: [{ id: 8, name: 'srv-web-01' }] };

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

const button = (label: string) => [...page.container.querySelectorAll('button')].find((b) => b.textContent === label);
const formEl = () => page.container.querySelector('form')!;
const field = <E extends Element>(label: string): E => {
  const l = [...page.container.querySelectorAll('label')].find((x) => x.textContent === label)!;
  return page.container.querySelector<E & Element>(`#${CSS.escape(l.htmlFor)}`)!;
};
function type(el: HTMLInputElement | HTMLSelectElement, value: string) {
  const proto = Object.getPrototypeOf(el) as object;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}
function submit() {
  act(() => {
    formEl().dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
}

function scanApi(put: (call: Call) => { status?: number; body: unknown }, headers: Record<string, string> = {}) {
  return mockApi((call) => {
    if (call.path === '/api/assets/') return { body: ASSETS };
    if (call.path.endsWith('/changes/')) return { body: [] };
    if (call.method === 'PUT') return put(call);
    return { body: scan, headers };
  });
}
const render = () => page.render('/scans/31', <Route path="/scans/:id" component={ScanPage} />);

describe('a scan’s page: read by id (GET), edited with PUT', () => {
  it('reads its scan by id and lets a writer edit it, sending every field (the scanner kept)', async () => {
    signInAs('user');
    const calls = scanApi((call) => ({ body: { ...scan, ...(call.body as object) } }));
    render();
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('Trivy hebdomadaire'));
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/api/vulnerabilities/scans/31/' });
    act(() => button('Modifier le scan')!.click());
    // The scan's own asset stays a choice though the asset list does not hold it.
    await until(() => expect(field<HTMLSelectElement>('Actif visé').options.length).toBe(3));
    expect(field<HTMLSelectElement>('Actif visé').value).toBe('7');
    expect(field<HTMLSelectElement>('Scanner').value).toBe('trivy');
    type(field('Nom *'), 'Trivy hebdomadaire (prod)');
    type(field('Cible'), '');
    type(field('Actif visé'), '8');
    submit();
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('Trivy hebdomadaire (prod)'));
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/api/vulnerabilities/scans/31/');
    expect(put.body).toEqual({ name: 'Trivy hebdomadaire (prod)', scanner: 'trivy', target: null, asset_id: 8 });
    expect(page.container.textContent).toContain('Scan « Trivy hebdomadaire (prod) » enregistré.');
    expect(page.container.querySelector('form')).toBeNull();
  });

  it('checks the name before sending, then shows the server’s French field message', async () => {
    signInAs('user');
    const calls = scanApi(() => ({
      status: 400,
      body: { detail: 'Actif introuvable.', fields: { asset_id: ['Actif introuvable.'] } },
    }));
    render();
    await until(() => expect(button('Modifier le scan')).toBeDefined());
    act(() => button('Modifier le scan')!.click());
    type(field('Nom *'), '  ');
    submit();
    expect(formEl().textContent).toContain('Le nom du scan est requis.');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    type(field('Nom *'), 'Renommé');
    submit();
    await until(() => expect(text(formEl().querySelector('[role="alert"]'))).toBe('Actif introuvable.'));
    expect(formEl().textContent).toContain('Actif introuvable.');
    expect(field<HTMLInputElement>('Nom *').value).toBe('Renommé');
    expect(page.container.querySelector('h1')?.textContent).toBe('Trivy hebdomadaire');
  });

  it('offers no edit to a read-only member, and none on sample data', async () => {
    signInAs('readonly');
    scanApi(() => ({ body: scan }));
    render();
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('Trivy hebdomadaire'));
    expect(button('Modifier le scan')).toBeUndefined();
    page.cleanup();

    page = setup();
    signInAs('user');
    scanApi(() => ({ body: scan }), { 'X-Vigie-Source': 'sample' });
    render();
    await until(() => expect(button('Modifier le scan')).toBeDefined());
    expect(button('Modifier le scan')!.disabled).toBe(true);
  });

  it('validates like the server', () => {
    expect(validateScanEdit({ name: ' ', scanner: 'manual', target: '', asset_id: '' })).toEqual({
      name: 'Le nom du scan est requis.',
    });
    expect(
      validateScanEdit({ name: 'n'.repeat(201), scanner: 'manual', target: 't'.repeat(1001), asset_id: '' }),
    ).toEqual({
      name: 'Le nom ne doit pas dépasser 200 caractères.',
      target: 'La cible ne doit pas dépasser 1000 caractères.',
    });
  });
});
