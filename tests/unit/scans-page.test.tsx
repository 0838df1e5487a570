import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import ScansPage from '../../src/features/scans/scans-page.tsx';
import { allowedActions } from '../../src/features/scans/scan-rules.ts';
import type { Scan } from '../../src/features/scans/scans-api.ts';

const screen = setupScreen({ fakeTimers: true });

function scan(id: number, status: Scan['status'], extra: Partial<Scan> = {}): Scan {
  return {
    id,
    name: `Scan ${id}`,
    scanner: 'trivy',
    target: 'registry/app:1.0',
    asset_id: null,
    status,
    progress: status === 'COMPLETED' ? 100 : 40,
    task_id: null,
    report_format: 'trivy',
    report_size: 1200,
    summary:
      status === 'COMPLETED' ? { findings: 12, created: 3, updated: 9, by_severity: { critical: 1, high: 2 } } : null,
    error: null,
    started_at: null,
    completed_at: null,
    created_at: '2025-06-02T08:00:00Z',
    ...extra,
  };
}

function page(results: Scan[]) {
  return { count: results.length, next: null, previous: null, results };
}

async function render() {
  act(() => screen.root.render(<ScansPage />));
  await settle();
}

function row(id: number) {
  return screen.container.querySelector(`tr[data-scan-id="${id}"]`)!;
}

function actionsOf(id: number): string[] {
  return [...row(id).querySelectorAll('button[data-action]')].map((b) => b.getAttribute('data-action')!);
}

describe('lifecycle actions', () => {
  it('follow the scan lifecycle (start only when pending, cancel while pending or running, restart after)', () => {
    expect(allowedActions('PENDING')).toEqual(['start', 'cancel']);
    expect(allowedActions('RUNNING')).toEqual(['cancel']);
    expect(allowedActions('COMPLETED')).toEqual(['restart']);
    expect(allowedActions('FAILED')).toEqual(['restart']);
    expect(allowedActions('CANCELLED')).toEqual(['restart']);
  });

  it('shows per row only the buttons the status allows, plus delete', async () => {
    screen.handler = () =>
      json(
        page([
          scan(1, 'PENDING'),
          scan(2, 'RUNNING'),
          scan(3, 'COMPLETED'),
          scan(4, 'FAILED', { error: 'Rapport illisible' }),
          scan(5, 'CANCELLED'),
        ]),
      );
    await render();
    expect(actionsOf(1)).toEqual(['start', 'cancel', 'delete']);
    expect(actionsOf(2)).toEqual(['cancel', 'delete']);
    expect(actionsOf(3)).toEqual(['restart', 'delete']);
    expect(actionsOf(4)).toEqual(['restart', 'delete']);
    expect(actionsOf(5)).toEqual(['restart', 'delete']);
    expect(row(1).textContent).toContain('En attente');
    expect(row(3).textContent).toContain('12 constats (3 nouveaux, 9 mis à jour)');
    expect(row(4).textContent).toContain('Rapport illisible');
    expect(row(2).querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('40');
  });

  it('posts the action and shows the scan after the transition', async () => {
    screen.handler = (method, url) =>
      method === 'POST' && url.pathname === '/api/vulnerabilities/scans/1/start/'
        ? json(scan(1, 'RUNNING'))
        : json(page([scan(1, 'PENDING')]));
    await render();
    act(() => row(1).querySelector<HTMLButtonElement>('[data-action="start"]')!.click());
    await settle();
    expect(
      screen.calls.some((c) => c.method === 'POST' && c.url.pathname === '/api/vulnerabilities/scans/1/start/'),
    ).toBe(true);
    expect(actionsOf(1)).toEqual(['cancel', 'delete']);
    expect(screen.container.textContent).toContain('Scan « Scan 1 » démarré.');
  });

  it('shows the server’s 409 message', async () => {
    screen.handler = (method) =>
      method === 'POST'
        ? json({ detail: 'Aucun rapport à traiter : importez le rapport du scanner.', code: 'conflict' }, 409)
        : json(page([scan(1, 'PENDING')]));
    await render();
    act(() => row(1).querySelector<HTMLButtonElement>('[data-action="start"]')!.click());
    await settle();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Aucun rapport à traiter : importez le rapport du scanner.',
    );
  });

  it('asks for confirmation before deleting', async () => {
    screen.handler = (method) =>
      method === 'DELETE' ? new Response(null, { status: 204 }) : json(page([scan(3, 'COMPLETED')]));
    await render();
    act(() => row(3).querySelector<HTMLButtonElement>('[data-action="delete"]')!.click());
    expect(screen.calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(row(3).textContent).toContain('Supprimer ce scan ?');
    const yes = [...row(3).querySelectorAll('button')].find((b) => b.textContent === 'Oui, supprimer')!;
    act(() => yes.click());
    await settle();
    expect(screen.calls.some((c) => c.method === 'DELETE' && c.url.pathname === '/api/vulnerabilities/scans/3/')).toBe(
      true,
    );
  });

  it('shows no write action to read-only members', async () => {
    signIn('readonly');
    screen.handler = () => json(page([scan(1, 'PENDING'), scan(3, 'COMPLETED')]));
    await render();
    expect(screen.container.querySelectorAll('button[data-action]')).toHaveLength(0);
    expect(screen.container.textContent).not.toContain('Importer un rapport');
    expect(screen.container.textContent).not.toContain('Nouveau scan');
  });
});

describe('refresh while scans run', () => {
  it('reads the list again every few seconds while a scan is pending or running, then stops', async () => {
    let running = true;
    screen.handler = () => json(page([scan(1, running ? 'RUNNING' : 'COMPLETED')]));
    await render();
    const lists = () => screen.calls.filter((c) => c.method === 'GET').length;
    expect(lists()).toBe(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(4_000);
    });
    expect(lists()).toBe(2);
    running = false;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(4_000);
    });
    expect(lists()).toBe(3);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(30_000);
    });
    expect(lists()).toBe(3);
  });

  it('does not refresh while the page is hidden', async () => {
    screen.handler = () => json(page([scan(1, 'RUNNING')]));
    await render();
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(20_000);
    });
    expect(screen.calls.filter((c) => c.method === 'GET')).toHaveLength(1);
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await settle();
    expect(screen.calls.filter((c) => c.method === 'GET')).toHaveLength(2);
  });
});

describe('report import', () => {
  class FakeXhr {
    static instances: FakeXhr[] = [];
    status = 0;
    responseText = '';
    upload = { addEventListener: () => {} };
    private listeners: Record<string, (() => void)[]> = {};
    headers: Record<string, string> = {};
    url = '';
    body: FormData | undefined;
    constructor() {
      FakeXhr.instances.push(this);
    }
    open(_m: string, url: string) {
      this.url = url;
    }
    setRequestHeader(n: string, v: string) {
      this.headers[n] = v;
    }
    addEventListener(t: string, fn: () => void) {
      (this.listeners[t] ??= []).push(fn);
    }
    getResponseHeader() {
      return null;
    }
    send(body: FormData) {
      this.body = body;
    }
    abort() {}
    respond(status: number, body: unknown) {
      this.status = status;
      this.responseText = JSON.stringify(body);
      for (const fn of this.listeners.load ?? []) fn();
    }
  }

  async function openImport(file: File) {
    screen.handler = () => json(page([]));
    await render();
    const open = [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Importer un rapport')!;
    act(() => open.click());
    const input = screen.container.querySelector<HTMLInputElement>('input[type="file"]')!;
    Object.defineProperty(input, 'files', { configurable: true, value: [file] });
    act(() => {
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    const form = input.closest('form')!;
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
  }

  beforeEach(() => {
    FakeXhr.instances = [];
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  });

  it('refuses a file over 50 MB before sending anything', async () => {
    const big = new File(['x'], 'trivy.json', { type: 'application/json' });
    Object.defineProperty(big, 'size', { value: 50 * 1024 * 1024 + 1 });
    await openImport(big);
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Le fichier dépasse la taille maximale (50 Mo).',
    );
    expect(FakeXhr.instances).toHaveLength(0);
  });

  it('refuses another extension', async () => {
    await openImport(new File(['x'], 'report.pdf'));
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Format de fichier non accepté : .json, .xml, .nessus, .sarif, .gz attendu.',
    );
    expect(FakeXhr.instances).toHaveLength(0);
  });

  it('shows the server’s detail when the report is refused (400)', async () => {
    await openImport(new File(['<!DOCTYPE x>'], 'openvas.xml', { type: 'text/xml' }));
    const xhr = FakeXhr.instances[0]!;
    expect(xhr.url).toBe('/api/vulnerabilities/scans/import/');
    expect(xhr.headers.Authorization).toBe('Bearer tok');
    expect(xhr.body!.get('format')).toBe('auto');
    expect((xhr.body!.get('file') as File).name).toBe('openvas.xml');
    expect(screen.container.querySelector('[role="progressbar"]')).not.toBeNull();
    act(() => xhr.respond(400, { detail: 'Rapport refusé : les DTD et entités XML ne sont pas acceptées.' }));
    await settle();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Rapport refusé : les DTD et entités XML ne sont pas acceptées.',
    );
  });

  it('closes the form and reloads the list once the report is accepted', async () => {
    await openImport(new File(['{}'], 'trivy.json', { type: 'application/json' }));
    const before = screen.calls.length;
    act(() => FakeXhr.instances[0]!.respond(201, scan(9, 'PENDING', { name: 'trivy.json' })));
    await settle();
    expect(screen.container.textContent).toContain('Rapport importé : scan « trivy.json » créé.');
    expect(screen.container.querySelector('input[type="file"]')).toBeNull();
    expect(screen.calls.length).toBeGreaterThan(before);
  });
});
