import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import TasksPage from '../../src/features/tasks/tasks-page.tsx';
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
