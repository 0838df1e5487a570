import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import VulnerabilityListPage from '../../src/features/vulnerabilities/list-page.tsx';
import {
  mockApi,
  pageOf,
  setup,
  signInAs,
  text,
  until,
  withScrollerHeight,
  type Call,
} from './vulnerabilities-helpers.tsx';
import { setValue } from './screen-helpers.tsx';

const TOTAL = 300;
const row = (i: number) => ({
  id: i + 1,
  title: `Vulnérabilité ${i}`,
  cve_id: `CVE-2026-${String(i).padStart(5, '0')}`,
  severity: 'critical',
  cvss_score: 9.8,
  kev: false,
  epss_score: null,
  asset: null,
  is_resolved: false,
  state: 'new',
  created_at: '2026-11-12T14:05:00Z',
});

function serve(answer: (body: Record<string, unknown>) => Record<string, number>) {
  return mockApi((call: Call) => {
    if (call.path === '/api/assets/') return { body: { count: 0, results: [] } };
    if (call.path === '/api/vulnerabilities/assignees/')
      return { body: [{ id: 3, username: 'analyste', name: 'Marc Lefèvre' }] };
    if (call.path === '/api/vulnerabilities/bulk/') return { body: answer(call.body as Record<string, unknown>) };
    return pageOf(call, TOTAL, row);
  });
}

let page: ReturnType<typeof setup>;
let restore: () => void;
beforeEach(() => {
  page = setup();
  signInAs('user');
  restore = withScrollerHeight();
});
afterEach(() => {
  page.cleanup();
  restore();
  session.value = null;
});

const bar = () => page.container.querySelector<HTMLFormElement>('form.bulk-bar')!;
const boxes = () => [...page.container.querySelectorAll<HTMLInputElement>('tbody input[type="checkbox"]')];
const bulkCalls = (calls: Call[]) => calls.filter((c) => c.path === '/api/vulnerabilities/bulk/');

describe('bulk work from the list', () => {
  it('assigns ticked rows in one request, says what changed and reloads the rows', async () => {
    const calls = serve((body) => ({ selected: (body.ids as number[]).length, changed: 2, unchanged: 0, refused: 0 }));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(boxes().length).toBeGreaterThan(2));
    expect(boxes()[0]!.getAttribute('aria-label')).toBe('Sélectionner CVE-2026-00000');
    act(() => boxes()[0]!.click());
    act(() => boxes()[2]!.click());
    expect(text(bar().querySelector('.bulk-count'))).toContain('2 vulnérabilités sélectionnées.');
    // The row did not open: the tick stays on the list.
    expect(location.pathname).toBe('/vulnerabilities/list');
    await until(() => expect(bar().querySelectorAll('select')[1]!.querySelectorAll('option')).toHaveLength(2));
    act(() => setValue(bar().querySelectorAll('select')[1]!, '3'));
    const lists = calls.filter((c) => c.path === '/api/vulnerabilities/vulnerabilities/').length;
    act(() => bar().querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await until(() => expect(text(bar())).toContain('Action groupée terminée : 2 modifiées.'));
    expect(bulkCalls(calls)[0]!.body).toEqual({ ids: [1, 3], action: 'assign', assignee_id: 3 });
    await until(() =>
      expect(calls.filter((c) => c.path === '/api/vulnerabilities/vulnerabilities/').length).toBeGreaterThan(lists),
    );
    expect(boxes().every((b) => !b.checked)).toBe(true);
  });

  it('selects every finding of the filter, sent as the filter, and asks a justification before sending', async () => {
    const calls = serve(() => ({ selected: TOTAL, changed: 290, unchanged: 4, refused: 6 }));
    page.render('/vulnerabilities/list?severity=critical&text=openssl', <VulnerabilityListPage />);
    await until(() => expect(bar()).not.toBeNull());
    const all = [...bar().querySelectorAll('button')].find((b) => b.textContent === 'Sélectionner les 300 du filtre')!;
    act(() => all.click());
    expect(text(bar().querySelector('.bulk-count'))).toContain('Les 300 vulnérabilités du filtre sont sélectionnées.');
    await until(() => expect(boxes()[0]!.checked).toBe(true));
    act(() => setValue(bar().querySelector('select')!, 'transition'));
    act(() => setValue(bar().querySelectorAll('select')[1]!, 'false_positive'));
    act(() => bar().querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    expect(text(bar().querySelector('[role="alert"]'))).toBe(
      'Une justification est obligatoire pour « Faux positif ».',
    );
    expect(bulkCalls(calls)).toHaveLength(0);
    act(() => setValue(bar().querySelector<HTMLInputElement>('.bulk-comment input')!, 'Banque de test'));
    act(() => bar().querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await until(() =>
      expect(text(bar())).toContain(
        'Action groupée terminée : 290 modifiées, 4 déjà à jour, 6 refusées par le cycle de vie (état incompatible).',
      ),
    );
    expect(bulkCalls(calls)[0]!.body).toEqual({
      filter: { severity: 'critical', text: 'openssl' },
      action: 'transition',
      state: 'false_positive',
      comment: 'Banque de test',
    });
  });

  it('shows no checkbox nor bar to a reader', async () => {
    signInAs('readonly');
    serve(() => ({ selected: 0, changed: 0, unchanged: 0, refused: 0 }));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(page.container.querySelectorAll('tr.row:not(.loading)').length).toBeGreaterThan(0));
    expect(boxes()).toHaveLength(0);
    expect(page.container.querySelector('form.bulk-bar')).toBeNull();
  });
});
