import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, screenQueries, settle, setupScreen, signIn, withProfile } from './screen-helpers.tsx';
import StatusPage, { STATUS_REFRESH_MS } from '../../src/features/admin/status-page.tsx';

const screen = setupScreen({ fakeTimers: true });
const { text } = screenQueries(screen);
const part = (title: string) => screen.container.querySelector(`section[aria-label="${title}"]`)!;
const readsOf = (path: string) => screen.calls.filter((c) => c.url.pathname === path);

const STATUS = { status: 'ok', version: '0.1.0', database: { status: 'ok' } };
const HEALTH = { status: 'ok', database: 'ok', version: '0.1.0' };
const LINES = [
  {
    id: 42,
    time: '2026-05-04T09:14:00.000Z',
    level: 'error',
    message: 'GET /api/assets/ 500',
    request_id: 'req-1',
    method: 'GET',
    url: '/api/assets/',
    status_code: 500,
  },
  {
    id: 41,
    time: '2026-05-04T09:10:00.000Z',
    level: 'warning',
    message: 'Mise à jour CVE : source lente',
    request_id: null,
    method: null,
    url: null,
    status_code: null,
  },
];

let answers: Record<string, () => Response>;

beforeEach(() => {
  signIn('admin');
  withProfile({ is_superuser: true });
  answers = {
    '/api/admin/status/': () => json(STATUS),
    '/api/system/health/': () => json(HEALTH),
    '/api/system/logs/': () => json({ logs: LINES, total: 37 }),
  };
  screen.handler = (_m, url) => answers[url.pathname]?.() ?? json({ detail: 'Introuvable.' }, 404);
});

const render = () => screen.render(<StatusPage />);

describe('StatusPage: the service’s health and its latest problems (spec §7 /system/health/, /system/logs/)', () => {
  it('reads GET /system/health/ and GET /system/logs/ (10 lines) beside the status', async () => {
    await render();
    expect(readsOf('/api/system/health/')).toHaveLength(1);
    const logs = readsOf('/api/system/logs/');
    expect(logs).toHaveLength(1);
    expect(logs[0]!.url.searchParams.get('limit')).toBe('10');
    const health = part('Disponibilité du service');
    expect(health.querySelector('.vm-badge')!.textContent).toBe('Opérationnel');
    expect(health.textContent).toContain('Base de donnéesOpérationnel');
    expect(health.textContent).toContain('Version0.1.0');
    const problems = part('Derniers incidents');
    expect(problems.textContent).toContain('(2 sur 37)');
    const rows = [...problems.querySelectorAll('li')];
    expect(rows.map((r) => r.getAttribute('data-log-id'))).toEqual(['42', '41']);
    expect(rows[0]!.textContent).toContain('Erreur');
    expect(rows[0]!.textContent).toContain('GET /api/assets/ 500 (500)');
    expect(rows[1]!.textContent).toContain('Avertissement');
    expect(problems.querySelector('a')!.getAttribute('href')).toBe('/admin/logs?min_level=warning');
  });

  it('a 503 from the health check shows the service down with its reason, even when the status fails', async () => {
    answers['/api/admin/status/'] = () => json({}, 500);
    answers['/api/system/health/'] = () =>
      json({ status: 'error', database: 'down', version: '0.1.0', detail: 'La base de données ne répond pas.' }, 503);
    answers['/api/system/logs/'] = () => json({}, 500);
    await render();
    expect(text()).toContain('Aucune information d’état disponible.');
    const health = part('Disponibilité du service');
    expect(health.querySelector('.vm-badge')!.textContent).toBe('Hors service');
    expect(health.querySelector('[role="alert"]')!.textContent).toBe('La base de données ne répond pas.');
    expect(health.textContent).toContain('Base de donnéesHors service');
    expect(part('Derniers incidents').querySelector('[role="alert"]')!.textContent).toBe(
      'Impossible de lire les derniers incidents : Backend connection failed',
    );
  });

  it('no lines: says so; no answer from the health check: says the service does not answer', async () => {
    answers['/api/system/logs/'] = () => json({ logs: [], total: 0 });
    answers['/api/system/health/'] = () => {
      throw new TypeError('Failed to fetch');
    };
    await render();
    expect(part('Derniers incidents').textContent).toContain('Aucun avertissement ni erreur dans le journal.');
    const health = part('Disponibilité du service');
    expect(health.querySelector('.vm-badge')!.textContent).toBe('Hors service');
    expect(health.querySelector('[role="alert"]')!.textContent).toMatch(/^Le service ne répond pas : /);
  });

  it('reads both again with the status every 15 s', async () => {
    await render();
    await act(async () => vi.advanceTimersByTimeAsync(STATUS_REFRESH_MS));
    await settle();
    expect(readsOf('/api/admin/status/')).toHaveLength(2);
    expect(readsOf('/api/system/health/')).toHaveLength(2);
    expect(readsOf('/api/system/logs/')).toHaveLength(2);
  });
});
