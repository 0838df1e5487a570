import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, screenQueries, settle, setupScreen, setValue, signIn, withProfile } from './screen-helpers.tsx';
import BackupsPage, { BACKUP_POLL_MS } from '../../src/features/admin/backups-page.tsx';
import { fetchBackups, type Backup } from '../../src/features/admin/admin-api.ts';

const screen = setupScreen({ fakeTimers: true });

const DONE: Backup = {
  id: '9d3c1e2a-0000-4000-8000-000000000001',
  filename: 'vigie-backup-20260504-020000-9d3c1e2a.tar.gz',
  engine: 'pglite',
  status: 'COMPLETED',
  size: 48_234_496,
  sha256: 'a'.repeat(64),
  note: 'Avant mise à jour',
  error: null,
  created_by: 'admin',
  created_at: '2026-05-04T02:00:00.000Z',
  completed_at: '2026-05-04T02:00:09.000Z',
};
const RUNNING: Backup = {
  ...DONE,
  id: '9d3c1e2a-0000-4000-8000-000000000002',
  filename: 'vigie-backup-20260505-101500-9d3c1e2a.tar.gz',
  status: 'RUNNING',
  size: null,
  sha256: null,
  note: 'Test',
  completed_at: null,
};

let list: Backup[] = [];
const { text, $, button, writes } = screenQueries(screen);
const reads = () => screen.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/admin/backups/').length;

beforeEach(() => {
  signIn('admin');
  withProfile({ is_superuser: true });
  list = [DONE];
  screen.handler = (method, url) => {
    if (method === 'GET' && url.pathname === '/api/admin/backups/') return json({ backups: list });
    if (method === 'POST' && url.pathname === '/api/admin/backups/') {
      list = [RUNNING, ...list];
      return json(RUNNING, 202);
    }
    if (method === 'POST' && url.pathname.endsWith('/restore/'))
      return json({ detail: 'Sauvegarde restaurée.', tables: 31, rows: 1200, documents: 4, duration_ms: 2350 });
    if (method === 'DELETE') {
      list = list.filter((b) => !url.pathname.includes(b.id));
      return new Response(null, { status: 204 });
    }
    return json({}, 404);
  };
});

const render = () => screen.render(<BackupsPage />);

describe('BackupsPage', () => {
  it('lists the backups with French statuses, sizes and engines', async () => {
    await render();
    const cells = [...$('tbody tr').querySelectorAll('td')].map((td) => td.textContent);
    expect(cells.slice(1, 6)).toEqual(['Terminée', '46 Mo', 'PGlite', 'Avant mise à jour', 'admin']);
    expect(screen.container.querySelector('button[data-action="download"]')).not.toBeNull();
  });

  it('creates one and follows it by polling until it is done', async () => {
    await render();
    act(() => setValue($<HTMLInputElement>('#backup-note'), ' Test '));
    act(() => button('Créer une sauvegarde').click());
    await settle();
    expect(writes()[0]!.body).toEqual({ note: 'Test' });
    expect(text()).toContain('Sauvegarde lancée');
    expect($('[role="progressbar"][aria-label="Sauvegarde en cours"]')).not.toBeNull();
    const before = reads();
    await act(async () => vi.advanceTimersByTimeAsync(BACKUP_POLL_MS));
    await settle();
    expect(reads()).toBe(before + 1);

    list = [{ ...RUNNING, status: 'COMPLETED', size: 1024, sha256: 'b'.repeat(64) }, DONE];
    await act(async () => vi.advanceTimersByTimeAsync(BACKUP_POLL_MS));
    await settle();
    expect(text()).toContain(`Sauvegarde terminée : ${RUNNING.filename} (1 Ko).`);
    expect(screen.container.querySelector('[aria-label="Sauvegarde en cours"]')).toBeNull();
    // Nothing runs any more: no more reads.
    const after = reads();
    await act(async () => vi.advanceTimersByTimeAsync(BACKUP_POLL_MS * 3));
    expect(reads()).toBe(after);
  });

  it('shows why a creation was refused', async () => {
    await render();
    screen.handler = () => json({ detail: 'Une sauvegarde est en cours.', code: 'conflict' }, 409);
    act(() => button('Créer une sauvegarde').click());
    await settle();
    expect(text()).toContain('Impossible de créer la sauvegarde : Une sauvegarde est en cours.');
  });

  it('restores only once « RESTAURER » is typed, and says what came back', async () => {
    await render();
    act(() => $<HTMLButtonElement>('button[data-action="restore"]').click());
    const confirm = button('Restaurer');
    expect(confirm.disabled).toBe(true);
    const input = $<HTMLInputElement>('.admin-danger input');
    act(() => setValue(input, 'restaure'));
    expect(confirm.disabled).toBe(true);
    act(() => setValue(input, ' restaurer '));
    expect(confirm.disabled).toBe(false);
    act(() => confirm.click());
    await settle();
    expect(writes()[0]!.url.pathname).toBe(`/api/admin/backups/${DONE.id}/restore/`);
    expect(writes()[0]!.body).toEqual({ confirm: 'restaurer' });
    expect(text()).toMatch(/Sauvegarde restaurée\. 31 tables, 1\s200 lignes, 4 documents en 2,4 s\./);
    expect(screen.container.querySelector('.admin-danger')).toBeNull();
  });

  it('shows the server’s refusal of a restore, changing nothing', async () => {
    await render();
    screen.handler = () =>
      json(
        {
          detail:
            'Fichier refusé : l’archive est corrompue (son empreinte SHA-256 ne correspond plus à celle de sa création).',
          code: 'invalid_backup',
        },
        400,
      );
    act(() => $<HTMLButtonElement>('button[data-action="restore"]').click());
    act(() => setValue($<HTMLInputElement>('.admin-danger input'), 'RESTAURER'));
    act(() => button('Restaurer').click());
    await settle();
    expect($('.admin-danger [role="alert"]').textContent).toContain('l’archive est corrompue');
  });

  it('deletes after confirmation', async () => {
    await render();
    act(() => $<HTMLButtonElement>('button[data-action="delete"]').click());
    act(() => button('Oui, supprimer').click());
    await settle();
    expect(writes()[0]!.method).toBe('DELETE');
    expect(writes()[0]!.url.pathname).toBe(`/api/admin/backups/${DONE.id}/`);
    expect(text()).toContain('Sauvegarde supprimée.');
    expect(text()).toContain('Aucune sauvegarde.');
  });

  it('downloads a completed archive', async () => {
    const create = vi.fn(() => 'blob:x');
    URL.createObjectURL = create;
    URL.revokeObjectURL = vi.fn();
    await render();
    screen.handler = () => new Response(new Uint8Array([1, 2, 3]), { headers: { 'content-type': 'application/gzip' } });
    act(() => $<HTMLButtonElement>('button[data-action="download"]').click());
    await settle();
    expect(screen.calls.at(-1)!.url.pathname).toBe(`/api/admin/backups/${DONE.id}/download/`);
    expect(create).toHaveBeenCalled();
  });
});

describe('backups fallback (spec §8)', () => {
  it('an empty list when neither path answers', async () => {
    screen.handler = () => json({}, 500);
    const read = await fetchBackups();
    expect(read.data).toEqual([]);
    expect(screen.calls.map((c) => c.url.pathname)).toEqual(['/api/admin/backups/', '/api/system/backups/']);
  });
});
