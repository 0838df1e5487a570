import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import TasksPage, { TASK_POLL_MS } from '../../src/features/tasks/tasks-page.tsx';
import { formatDuration, scheduleLabel } from '../../src/features/tasks/task-rules.ts';
import type { BackgroundTask } from '../../src/features/tasks/tasks-api.ts';
import celerySample from '../../sample-data/celery-tasks.json';
import launchSample from '../../sample-data/task-launch.json';

const screen = setupScreen({ fakeTimers: true });

function task(id: string, status: BackgroundTask['status'], progress = 0): BackgroundTask {
  return {
    id,
    name: `Tâche ${id}`,
    full_name: 'vulnerabilities.tasks.update_cve_database',
    status,
    date_done: null,
    result: null,
    meta: { progress, attempts: 1 },
    created_at: '2025-06-02T08:00:00Z',
  };
}

async function render() {
  act(() => screen.root.render(<TasksPage />));
  await settle();
}

const sample = { 'x-vigie-source': 'sample' };

describe('TasksPage with the spec §8 sample', () => {
  beforeEach(() => {
    screen.handler = (_method, url) => {
      if (url.pathname === '/api/celery/tasks/run/') return json(launchSample, 200, sample);
      return json(celerySample, 200, sample);
    };
  });

  it('renders every spec §3 field of the sample tasks with French status labels, marked as sample data', async () => {
    await render();
    const text = screen.container.textContent;
    expect(screen.container.querySelector('.data-origin')!.textContent).toBe('Données d’exemple');
    for (const label of ['Réussie', 'Échec', 'En cours', 'En attente', 'Annulée']) expect(text).toContain(label);
    const started = screen.container.querySelector('tr[data-task-id="5b9e7c3d-1f2a-4e6b-a0c4-8d3f2e1b9a70"]')!;
    expect(started.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('63');
    // The internal name is no text of the screen (nor a tooltip): it stays in the markup for the tools.
    expect(text).not.toContain('vulnerabilities.tasks.update_cve_database');
    expect(screen.container.querySelector('[data-task="vulnerabilities.tasks.update_cve_database"]')).not.toBeNull();
    expect(text).toContain('1 254 CVE traitées : 87 nouvelles, 1 167 mises à jour');
    expect(text).toContain('Durée : 7 min 41 s');
    expect(text).toMatch(/Nouvelles CVE : 87/);
    expect(text).toContain('Tentatives : 3');
    expect(text).toContain("Erreur : Délai d'attente dépassé lors de la connexion à www.cisa.gov (30 s)");
    expect(text).toContain('Annulée par admin — Annulée manuellement : fenêtre de maintenance dépassée');
    expect(text).toContain('Tous les jours à 02:00');
    expect(text).toContain('Tous les dimanches à 03:00');
  });

  it('does not poll sample data, which never changes', async () => {
    await render();
    const before = screen.calls.length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_000);
    });
    expect(screen.calls.length).toBe(before);
  });

  it('lets a manager launch a task and shows the sample launch result, marked', async () => {
    signIn('manager');
    await render();
    const select = screen.container.querySelector<HTMLSelectElement>('.task-launch select')!;
    expect([...select.options].map((o) => o.value)).toContain('vulnerabilities.tasks.update_cve_database');
    const button = [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Lancer')!;
    act(() => button.click());
    await settle();
    const run = screen.calls.find((c) => c.method === 'POST')!;
    expect(run.url.pathname).toBe('/api/celery/tasks/run/');
    expect(run.body).toEqual({ task_name: select.value });
    const launched = screen.container.querySelector('.task-launched')!;
    expect(launched.textContent).toContain('Tâche lancée avec succès (simulation)');
    expect(launched.textContent).toContain('En attente');
    expect(launched.querySelector('.data-origin')!.textContent).toBe('Données d’exemple');
  });

  it('offers no launch nor cancel to a plain user for platform tasks', async () => {
    await render();
    expect(screen.container.querySelector('.task-launch')).toBeNull();
    expect([...screen.container.querySelectorAll('button')].some((b) => b.textContent === 'Annuler')).toBe(false);
  });
});

describe('live progress', () => {
  it('polls the recent tasks every 2 s while one is pending or started, and stops when none is', async () => {
    let state: BackgroundTask['status'] = 'STARTED';
    let progress = 10;
    screen.handler = (_m, url) =>
      url.pathname === '/api/celery/tasks/recent/'
        ? json({ recent_tasks: [task('a', state, progress)] })
        : url.pathname === '/api/celery/tasks/available/'
          ? json({ tasks: [] })
          : json({ recent_tasks: [task('a', 'STARTED', 5)], scheduled_tasks: [] });
    await render();
    const recent = () => screen.calls.filter((c) => c.url.pathname === '/api/celery/tasks/recent/').length;
    expect(recent()).toBe(0);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2_000);
    });
    expect(recent()).toBe(1);
    expect(screen.container.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('10');
    progress = 80;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2_000);
    });
    expect(recent()).toBe(2);
    expect(screen.container.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('80');
    state = 'SUCCESS';
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2_000);
    });
    expect(recent()).toBe(3);
    expect(screen.container.textContent).toContain('Réussie');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(20_000);
    });
    expect(recent()).toBe(3);
  });

  it('does not poll while the page is hidden', async () => {
    screen.handler = (_m, url) =>
      url.pathname === '/api/celery/tasks/'
        ? json({ recent_tasks: [task('a', 'PENDING')], scheduled_tasks: [] })
        : json({ recent_tasks: [task('a', 'PENDING')], tasks: [] });
    await render();
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const before = screen.calls.length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(30_000);
    });
    expect(screen.calls.length).toBe(before);
  });

  it('cancels a running task with a reason (manager)', async () => {
    signIn('manager');
    screen.handler = (method, url) => {
      if (method === 'POST') return json({ ...task('a', 'REVOKED'), meta: { revoked_by: 'ana', reason: 'Trop long' } });
      if (url.pathname === '/api/celery/tasks/available/')
        return json({
          tasks: [{ task_name: 'vulnerabilities.tasks.update_cve_database', name: 'MAJ', scope: 'platform' }],
        });
      return json({ recent_tasks: [task('a', 'STARTED', 30)], scheduled_tasks: [] });
    };
    await render();
    const cancel = [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Annuler')!;
    act(() => cancel.click());
    const input = screen.container.querySelector<HTMLInputElement>('.task-cancel input')!;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, 'Trop long');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => {
      input.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/celery/tasks/a/cancel/');
    expect(post.body).toEqual({ reason: 'Trop long' });
    expect(screen.container.textContent).toContain('Annulée par ana — Trop long');
  });
});

describe('a task launched here is followed by its own status (GET /api/celery/tasks/{id}/)', () => {
  const NAME = 'vulnerabilities.tasks.update_cve_database';
  let state: BackgroundTask['status'];
  let progress: number;
  let own: () => Response;
  let listed: BackgroundTask[];

  beforeEach(() => {
    signIn('manager');
    state = 'PENDING';
    progress = 0;
    listed = [];
    own = () => json({ ...task('run-1', state, progress), name: 'Mise à jour des CVE' });
    screen.handler = (method, url) => {
      if (method === 'POST')
        return json(
          {
            task_id: 'run-1',
            task_name: NAME,
            status: 'PENDING',
            message: 'Tâche lancée.',
            created_at: '2026-06-02T08:00:00Z',
          },
          202,
        );
      if (url.pathname === '/api/celery/tasks/available/')
        return json({ tasks: [{ task_name: NAME, name: 'Mise à jour des CVE', scope: 'platform' }] });
      if (url.pathname === '/api/celery/tasks/run-1/') return own();
      if (url.pathname === '/api/celery/tasks/recent/') return json({ recent_tasks: listed });
      return json({ recent_tasks: listed, scheduled_tasks: [] });
    };
  });

  const reads = (path: string) => screen.calls.filter((c) => c.method === 'GET' && c.url.pathname === path).length;
  const tick = () =>
    act(async () => {
      await vi.advanceTimersByTimeAsync(TASK_POLL_MS);
    });

  async function launch() {
    await render();
    listed = [task('run-1', 'PENDING')];
    act(() => [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Lancer')!.click());
    await settle();
  }

  it('reads the run every 2 s, shows its state and progress, not the recent list, until it ends', async () => {
    await launch();
    const notice = () => screen.container.querySelector('.task-launched')!;
    expect(notice().getAttribute('data-status')).toBe('PENDING');
    expect(reads('/api/celery/tasks/run-1/')).toBe(0);
    state = 'STARTED';
    progress = 40;
    await tick();
    expect(reads('/api/celery/tasks/run-1/')).toBe(1);
    expect(notice().textContent).toContain('En cours');
    expect(notice().textContent).toContain('Suivi de la tâche : actualisation toutes les 2 secondes.');
    expect(notice().querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('40');
    // The row in the list follows too, without reading the recent list.
    const row = screen.container.querySelector('tr[data-task-id="run-1"]')!;
    expect(row.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('40');
    expect(reads('/api/celery/tasks/recent/')).toBe(0);
    const lists = reads('/api/celery/tasks/');
    state = 'SUCCESS';
    progress = 100;
    listed = [task('run-1', 'SUCCESS', 100)];
    await tick();
    await settle();
    expect(notice().getAttribute('data-status')).toBe('SUCCESS');
    expect(notice().textContent).toContain('Réussie');
    expect(notice().textContent).not.toContain('Suivi de la tâche');
    // Its end brings the whole list up to date once; then nothing more is read.
    expect(reads('/api/celery/tasks/')).toBe(lists + 1);
    const calls = screen.calls.length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(20_000);
    });
    expect(screen.calls.length).toBe(calls);
    expect(reads('/api/celery/tasks/run-1/')).toBe(2);
  });

  it('stops following, and says why, when the run cannot be read (404)', async () => {
    own = () => json({ detail: 'Tâche introuvable.' }, 404);
    await launch();
    await tick();
    expect(screen.container.querySelector('.task-launched [role="alert"]')!.textContent).toBe(
      'Impossible de suivre la tâche : Tâche introuvable.',
    );
    await tick();
    await tick();
    expect(reads('/api/celery/tasks/run-1/')).toBe(1);
  });

  it('keeps following through an outage (no answer is no end)', async () => {
    let down = true;
    own = () => (down ? json({}, 503) : json(task('run-1', 'SUCCESS', 100)));
    await launch();
    await tick();
    expect(screen.container.querySelector('.task-launched [role="alert"]')).toBeNull();
    down = false;
    await tick();
    expect(reads('/api/celery/tasks/run-1/')).toBe(2);
    expect(screen.container.querySelector('.task-launched')!.getAttribute('data-status')).toBe('SUCCESS');
  });
});

describe('task rules', () => {
  it('formats durations and schedules in French', () => {
    expect(formatDuration(461.3)).toBe('7 min 41 s');
    expect(formatDuration(3725)).toBe('1 h 2 min');
    expect(formatDuration(12)).toBe('12 s');
    expect(formatDuration(null)).toBeNull();
    expect(scheduleLabel('Toutes les 6 heures')).toEqual({ label: 'Toutes les 6 heures' });
    expect(scheduleLabel({ cron: '0 2 * * *', label: 'Tous les jours à 02:00 UTC' })).toEqual({
      label: 'Tous les jours à 02:00 UTC',
      cron: '0 2 * * *',
    });
  });
});
