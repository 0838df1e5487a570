import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import VulnerabilityListPage from '../../src/features/vulnerabilities/list-page.tsx';
import {
  fr,
  mockApi,
  pageOf,
  setup,
  signInAs,
  text,
  until,
  withScrollerHeight,
  type Answer,
  type Call,
} from './vulnerabilities-helpers.tsx';
import { setValue } from './screen-helpers.tsx';

const row = (i: number) => ({
  id: i + 1,
  title: `Vulnérabilité ${i}`,
  cve_id: `CVE-2026-${String(i).padStart(5, '0')}`,
  severity: 'high',
  cvss_score: 7.5,
  kev: false,
  epss_score: null,
  asset: null,
  is_resolved: false,
  state: 'new',
  created_at: '2026-11-12T14:05:00Z',
});

const PROJECTS = [
  { id: 7, name: 'Audit du SI', access: 'manage' },
  { id: 8, name: 'Lecture seule', access: 'read' },
  { id: 9, name: 'Migration cloud', access: 'edit' },
];
const RISKS = [
  { id: 5, project: 7, title: 'Fuite de données', vulnerability: null },
  { id: 6, project: 7, title: 'Rançongiciel', vulnerability: 42 },
];

/** The list of `total` findings, the pickers, and `other` for the calls under test (bulk, export, risks). */
function serve(total: number, other: (call: Call) => Answer | Promise<Answer> | undefined = () => undefined) {
  return mockApi((call: Call) => {
    const answer = other(call);
    if (answer) return answer;
    if (call.path === '/api/assets/') return { body: { count: 0, results: [] } };
    if (call.path === '/api/vulnerabilities/assignees/') return { body: [] };
    if (call.path === '/api/projects/') return { body: { count: 3, next: null, previous: null, results: PROJECTS } };
    if (call.path === '/api/projects/risks/') return { body: { count: 2, next: null, previous: null, results: RISKS } };
    return pageOf(call, total, row);
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
  vi.useRealTimers();
  page.cleanup();
  restore();
  session.value = null;
});

const bar = () => page.container.querySelector<HTMLFormElement>('form.bulk-bar')!;
const boxes = () => [...page.container.querySelectorAll<HTMLInputElement>('tbody input[type="checkbox"]')];
const selects = () => [...bar().querySelectorAll('select')];
const actionSelect = () => selects()[0]!;
const optionsOf = (select: HTMLSelectElement) => [...select.querySelectorAll('option')].map((o) => text(o));
const button = (label: string) => [...bar().querySelectorAll('button')].find((b) => text(b) === label);
const submit = () => act(() => bar().querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
const callsTo = (calls: Call[], path: string) => calls.filter((c) => c.path === path);
const listCalls = (calls: Call[]) => callsTo(calls, '/api/vulnerabilities/vulnerabilities/').length;

async function openList(url = '/vulnerabilities/list') {
  page.render(url, <VulnerabilityListPage />);
  await until(() => expect(boxes().length).toBeGreaterThan(2));
}

describe('bulk bar: project and risk links', () => {
  it('links ticked rows to a project the caller may change, and says what was linked and already was', async () => {
    const calls = serve(300, (call) =>
      call.path === '/api/vulnerabilities/bulk/'
        ? { body: { selected: 2, changed: 1, unchanged: 1, refused: 0 } }
        : undefined,
    );
    await openList();
    act(() => boxes()[0]!.click());
    act(() => boxes()[2]!.click());
    expect(optionsOf(actionSelect())).toEqual([
      'Assigner',
      'Changer l’état',
      'Fixer l’échéance',
      'Lier à un projet',
      'Retirer d’un projet',
    ]);
    // Projects are read only once the action is chosen.
    expect(callsTo(calls, '/api/projects/')).toHaveLength(0);
    act(() => setValue(actionSelect(), 'link_project'));
    await until(() => expect(selects()).toHaveLength(2));
    expect(callsTo(calls, '/api/projects/')[0]!.query).toMatchObject({ page_size: '100', ordering: 'name' });
    // A project read only is not offered.
    expect(optionsOf(selects()[1]!)).toEqual(['Choisir…', 'Audit du SI', 'Migration cloud']);
    submit();
    expect(text(bar().querySelector('[role="alert"]'))).toBe('Choisissez un projet.');
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')).toHaveLength(0);

    act(() => setValue(selects()[1]!, '7'));
    const lists = listCalls(calls);
    submit();
    await until(() =>
      expect(text(bar().querySelector('.bulk-outcome'))).toBe(
        'Action groupée terminée : 1 liée au projet « Audit du SI », 1 était déjà liée.',
      ),
    );
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')[0]!.body).toEqual({
      ids: [1, 3],
      action: 'link_project',
      project_id: 7,
    });
    await until(() => expect(listCalls(calls)).toBeGreaterThan(lists));
    expect(boxes().every((b) => !b.checked)).toBe(true);
  });

  it('unlinks every finding of the filter from a project, sent as the filter', async () => {
    const calls = serve(300, (call) =>
      call.path === '/api/vulnerabilities/bulk/'
        ? { body: { selected: 300, changed: 12, unchanged: 288, refused: 0 } }
        : undefined,
    );
    await openList('/vulnerabilities/list?severity=high');
    act(() => button('Sélectionner les 300 du filtre')!.click());
    act(() => setValue(actionSelect(), 'unlink_project'));
    await until(() => expect(selects()).toHaveLength(2));
    act(() => setValue(selects()[1]!, '9'));
    submit();
    await until(() =>
      expect(text(bar().querySelector('.bulk-outcome'))).toBe(
        'Action groupée terminée : 12 retirées du projet « Migration cloud », 288 n’y étaient pas liées.',
      ),
    );
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')[0]!.body).toEqual({
      filter: { severity: 'high' },
      action: 'unlink_project',
      project_id: 9,
    });
  });

  it('shows the server’s refusal in French and keeps the selection', async () => {
    serve(300, (call) =>
      call.path === '/api/vulnerabilities/bulk/'
        ? { status: 403, body: { detail: 'Vous n’avez pas les autorisations nécessaires.', code: 'permission_denied' } }
        : undefined,
    );
    await openList();
    act(() => boxes()[1]!.click());
    act(() => setValue(actionSelect(), 'link_project'));
    await until(() => expect(selects()).toHaveLength(2));
    act(() => setValue(selects()[1]!, '7'));
    submit();
    await until(() =>
      expect(text(bar().querySelector('[role="alert"]'))).toBe(
        'Action groupée refusée : Vous n’avez pas les autorisations nécessaires.',
      ),
    );
    expect(boxes()[1]!.checked).toBe(true);
  });

  it('offers a risk link for exactly one ticked finding, through the risk’s own link', async () => {
    const calls = serve(300, (call) =>
      call.path === '/api/projects/risks/5/' ? { body: { ...RISKS[0], vulnerability: 2 } } : undefined,
    );
    await openList();
    act(() => boxes()[1]!.click());
    expect(optionsOf(actionSelect())).toContain('Lier à un risque');
    act(() => setValue(actionSelect(), 'link_risk'));
    await until(() => expect(selects()).toHaveLength(2));
    // A risk names one finding: the one it names already is said to be replaced.
    expect(optionsOf(selects()[1]!)).toEqual([
      'Choisir…',
      'Fuite de données',
      'Rançongiciel (remplace la vulnérabilité #42)',
    ]);
    // Two ticked rows: no risk link, and the bar falls back to the first action.
    act(() => boxes()[3]!.click());
    expect(optionsOf(actionSelect())).not.toContain('Lier à un risque');
    expect(actionSelect().value).toBe('assign');
    act(() => boxes()[3]!.click());
    expect(actionSelect().value).toBe('link_risk');
    act(() => setValue(selects()[1]!, '5'));
    expect(text(bar().querySelector('button[type="submit"]'))).toBe('Lier au risque');
    submit();
    await until(() =>
      expect(text(bar().querySelector('.bulk-outcome'))).toBe('Vulnérabilité liée au risque « Fuite de données ».'),
    );
    const patch = callsTo(calls, '/api/projects/risks/5/')[0]!;
    expect(patch.method).toBe('PATCH');
    expect(patch.body).toEqual({ vulnerability: 2 });
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')).toHaveLength(0);
  });
});

describe('bulk bar: export of the selection', () => {
  /** The names the files were saved under (the download link is clicked, never followed). */
  let saved: string[];
  beforeEach(() => {
    vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:selection');
    saved = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const exported = (call: Call): Answer | undefined =>
    call.path === '/api/vulnerabilities/export/'
      ? { body: [row(0), row(2)], headers: { 'content-type': 'application/json; charset=utf-8' } }
      : undefined;
  const group = () => bar().querySelector('[role="group"][aria-label="Exporter la sélection"]');
  const exportButton = (label: string) => [...group()!.querySelectorAll('button')].find((b) => text(b) === label)!;

  it('exports exactly the ticked ids, in JSON or CSV', async () => {
    const calls = serve(300, exported);
    await openList('/vulnerabilities/list?severity=high');
    expect(bar().querySelector('.bulk-export')).toBeNull();
    act(() => boxes()[0]!.click());
    act(() => boxes()[2]!.click());
    // Closed, the formats leave the bar one status: the selection's count.
    expect(group()).toBeNull();
    expect(bar().querySelectorAll('[role="status"]')).toHaveLength(1);
    act(() => button('Exporter la sélection')!.click());
    expect(button('Exporter la sélection')!.getAttribute('aria-expanded')).toBe('true');
    act(() => exportButton('Exporter en JSON').click());
    await until(() => expect(text(group())).toContain('Export JSON terminé : 2 lignes'));
    expect(callsTo(calls, '/api/vulnerabilities/export/')[0]!.query).toEqual({ ids: '1,3', format: 'json' });
    expect(saved).toEqual([expect.stringMatching(/^vulnerabilites-\d{4}-\d{2}-\d{2}\.json$/)]);
    act(() => exportButton('Exporter en CSV').click());
    await until(() => expect(callsTo(calls, '/api/vulnerabilities/export/')).toHaveLength(2));
    expect(callsTo(calls, '/api/vulnerabilities/export/')[1]!.query).toEqual({ ids: '1,3', format: 'csv' });
  });

  it('exports every finding of the filter as the filter', async () => {
    const calls = serve(300, exported);
    await openList('/vulnerabilities/list?severity=high&text=openssl');
    act(() => button('Sélectionner les 300 du filtre')!.click());
    act(() => button('Exporter la sélection')!.click());
    act(() => exportButton('Exporter en CSV').click());
    await until(() => expect(callsTo(calls, '/api/vulnerabilities/export/')).toHaveLength(1));
    expect(callsTo(calls, '/api/vulnerabilities/export/')[0]!.query).toMatchObject({
      severity: 'high',
      text: 'openssl',
      format: 'csv',
    });
    expect(callsTo(calls, '/api/vulnerabilities/export/')[0]!.query.ids).toBeUndefined();
  });
});

describe('bulk bar: a large selection', () => {
  const TOTAL = 69_613;

  it('asks to confirm, shows the elapsed time while the server works, then the summary, and reloads', async () => {
    let answer: (a: Answer) => void = () => {};
    const calls = serve(TOTAL, (call) =>
      call.path === '/api/vulnerabilities/bulk/' ? new Promise<Answer>((resolve) => (answer = resolve)) : undefined,
    );
    await openList('/vulnerabilities/list?severity=high');
    act(() => button(`Sélectionner les ${fr(TOTAL)} du filtre`)!.click());
    act(() => setValue(actionSelect(), 'due_date'));
    submit();
    // Nothing is sent before the confirmation.
    const confirm = bar().querySelector('[role="alertdialog"]')!;
    expect(text(confirm.querySelector('p'))).toBe(
      `« Fixer l’échéance » portera sur ${fr(TOTAL)} vulnérabilités (tous les résultats du filtre) ; celles déjà à jour resteront inchangées. Confirmer ?`,
    );
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')).toHaveLength(0);
    act(() => button('Annuler')!.click());
    expect(bar().querySelector('[role="alertdialog"]')).toBeNull();
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')).toHaveLength(0);

    submit();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    act(() => button('Confirmer')!.click());
    await until(() => expect(callsTo(calls, '/api/vulnerabilities/bulk/')).toHaveLength(1));
    expect(callsTo(calls, '/api/vulnerabilities/bulk/')[0]!.body).toEqual({
      filter: { severity: 'high' },
      action: 'due_date',
      due_date: null,
    });
    const status = () => text(bar().querySelector('.bulk-count'));
    expect(status()).toBe(`Traitement de ${fr(TOTAL)} vulnérabilités… 0 s`);
    const progress = bar().querySelector('progress')!;
    expect(progress.getAttribute('aria-label')).toBe('Action groupée en cours');
    expect(bar().getAttribute('aria-busy')).toBe('true');
    // Nothing to act on while it runs: no fields, no export.
    expect(bar().querySelector('button[type="submit"]')).toBeNull();
    expect(bar().querySelector('.bulk-export')).toBeNull();
    act(() => {
      vi.advanceTimersByTime(12_000);
    });
    expect(status()).toBe(`Traitement de ${fr(TOTAL)} vulnérabilités… 12 s`);
    expect(bar().querySelector('progress')!.getAttribute('aria-valuetext')!.replace(/\s/g, ' ')).toBe(
      `12 s écoulées, ${fr(TOTAL)} vulnérabilités`,
    );
    act(() => {
      vi.advanceTimersByTime(63_000);
    });
    expect(status()).toBe(`Traitement de ${fr(TOTAL)} vulnérabilités… 1 min 15 s`);
    vi.useRealTimers();

    const lists = listCalls(calls);
    await act(async () => answer({ body: { selected: TOTAL, changed: 69_000, unchanged: 600, refused: 13 } }));
    await until(() =>
      expect(text(bar().querySelector('.bulk-outcome'))).toBe(
        `Action groupée terminée : ${fr(69_000)} modifiées, 600 déjà à jour, 13 refusées par le cycle de vie (état incompatible).`,
      ),
    );
    expect(bar().querySelector('progress')).toBeNull();
    expect(bar().getAttribute('aria-busy')).toBe('false');
    await until(() => expect(listCalls(calls)).toBeGreaterThan(lists));
  });

  it('sends a selection of a thousand ticked rows or fewer without asking', async () => {
    const calls = serve(300, (call) =>
      call.path === '/api/vulnerabilities/bulk/'
        ? { body: { selected: 1, changed: 1, unchanged: 0, refused: 0 } }
        : undefined,
    );
    await openList();
    act(() => boxes()[0]!.click());
    act(() => setValue(actionSelect(), 'due_date'));
    submit();
    expect(bar().querySelector('[role="alertdialog"]')).toBeNull();
    await until(() => expect(callsTo(calls, '/api/vulnerabilities/bulk/')).toHaveLength(1));
  });
});
