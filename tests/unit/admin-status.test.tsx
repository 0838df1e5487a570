import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, screenQueries, settle, setupScreen, signIn, withProfile } from './screen-helpers.tsx';
import StatusPage, { STATUS_REFRESH_MS } from '../../src/features/admin/status-page.tsx';

const screen = setupScreen({ fakeTimers: true });

const STATUS = {
  status: 'degraded',
  checked_at: '2026-05-04T09:15:00.000Z',
  version: '0.1.0',
  uptime_seconds: 93_784,
  node_version: 'v20.19.0',
  maintenance_mode: false,
  database: { kind: 'pglite', status: 'ok', latency_ms: 0.8, size_bytes: 48_234_496 },
  job_queue: { workers: true, status: 'down', error: 'Pas de réponse en 2 s.' },
  disk: { status: 'ok', path: '/var/lib/vigie', free_bytes: 52_613_349_376, total_bytes: 105_226_698_752 },
  cve_database: { status: 'ok', last_update: '2026-05-04T02:00:41.120Z' },
  counts: { status: 'ok', tenants: 2, users: 4, active_users: 4 },
  logs: { buffered: 3, written: 1840, dropped: 0 },
};

const reads = () => screen.calls.filter((c) => c.url.pathname === '/api/admin/status/').length;
const { text } = screenQueries(screen);
const part = (title: string) => screen.container.querySelector(`section[aria-label="${title}"]`)!;

function setHidden(hidden: boolean) {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  document.dispatchEvent(new Event('visibilitychange'));
}

beforeEach(() => {
  signIn('admin');
  withProfile({ is_superuser: true });
  screen.handler = () => json(STATUS);
});

const render = () => screen.render(<StatusPage />);

describe('StatusPage', () => {
  it('shows every part with French labels and ok/down badges', async () => {
    await render();
    expect(text()).toContain('Dégradé');
    expect(text()).toContain('0.1.0');
    expect(text()).toContain('1 j 2 h 3 min');
    expect(part('Base de données').querySelector('.vm-badge')!.textContent).toBe('Opérationnel');
    expect(part('File de tâches').querySelector('.vm-badge')!.textContent).toBe('Hors service');
    expect(part('File de tâches').textContent).toContain('Pas de réponse en 2 s.');
    expect(part('Disque').textContent).toContain('49 Go sur 98 Go');
    expect(part('Disque').textContent).toContain('50 %');
    expect(part('Base CVE').textContent).toMatch(/Dernière mise à jour04\/05\/2026/);
    expect(part('File de tâches').querySelector('[data-field="queue_depth"]')!.textContent).toBe('—');
  });

  it('reads again every 15 s while visible', async () => {
    await render();
    expect(reads()).toBe(1);
    expect(text()).toContain('Actualisation automatique toutes les 15 s.');
    screen.handler = () => json({ ...STATUS, job_queue: { ...STATUS.job_queue, status: 'ok', queue_depth: 4 } });
    await act(async () => vi.advanceTimersByTimeAsync(STATUS_REFRESH_MS));
    await settle();
    expect(reads()).toBe(2);
    expect(part('File de tâches').querySelector('[data-field="queue_depth"]')!.textContent).toBe('4');
    await act(async () => vi.advanceTimersByTimeAsync(STATUS_REFRESH_MS));
    expect(reads()).toBe(3);
  });

  it('pauses while the page is hidden and reads at once when it shows again', async () => {
    await render();
    act(() => setHidden(true));
    expect(text()).toContain('en pause : page masquée');
    await act(async () => vi.advanceTimersByTimeAsync(STATUS_REFRESH_MS * 3));
    expect(reads()).toBe(1);
    act(() => setHidden(false));
    await settle();
    expect(reads()).toBe(2);
  });

  it('pauses offline and reads at once back online', async () => {
    await render();
    vi.stubGlobal('navigator', { ...navigator, onLine: false });
    act(() => void window.dispatchEvent(new Event('offline')));
    expect(text()).toContain('en pause : hors ligne');
    await act(async () => vi.advanceTimersByTimeAsync(STATUS_REFRESH_MS * 2));
    expect(reads()).toBe(1);
    act(() => void window.dispatchEvent(new Event('online')));
    await settle();
    expect(reads()).toBe(2);
  });

  it('an empty object when the status cannot be read', async () => {
    screen.handler = () => json({}, 500);
    await render();
    expect(text()).toContain('Impossible de lire l’état du système : Backend connection failed');
    expect(text()).toContain('Aucune information d’état disponible.');
  });
});
