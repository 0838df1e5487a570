import { act } from 'react';
import { Route } from 'wouter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import VulnerabilityDetailPage from '../../src/features/vulnerabilities/detail-page.tsx';
import { isOverdue } from '../../src/features/vulnerabilities/triage-panel.tsx';
import { mockApi, setup, signInAs, text, until } from './vulnerabilities-helpers.tsx';
import { setValue } from './screen-helpers.tsx';

const finding = {
  id: 42,
  title: 'Apache Log4j2 JNDI',
  cve_id: 'CVE-2021-44228',
  severity: 'critical',
  cvss_score: 10,
  kev: true,
  epss_score: 0.944,
  asset: { id: 5, name: 'srv-app-01' },
  is_resolved: false,
  state: 'new',
  state_reason: null,
  accepted_until: null,
  accepted_by: null,
  assignee_id: null,
  due_date: null,
  created_at: '2026-11-12T14:05:00Z',
  cve: null,
};
const people = [
  { id: 3, username: 'analyste', name: 'Marc Lefèvre' },
  { id: 2, username: 'manager', name: 'Claire Dubois' },
];

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

/** The server of one finding: its moves, assignment, history and comments, as the API answers them. */
function serve(start: Record<string, unknown> = {}) {
  let current: Record<string, unknown> = { ...finding, ...start };
  const history: Record<string, unknown>[] = [];
  const line = (kind: string, from: unknown, to: unknown, comment = '') =>
    history.push({
      id: history.length + 1,
      kind,
      user_id: 3,
      username: 'analyste',
      from_value: from,
      to_value: to,
      comment,
      created_at: '2026-11-29T09:00:00Z',
    });
  const calls = mockApi((call) => {
    const base = '/api/vulnerabilities/vulnerabilities/42/';
    if (call.path === '/api/vulnerabilities/assignees/') return { body: people };
    if (call.path === `${base}history/`) return { body: history };
    if (call.path === `${base}transition/`) {
      const body = call.body as { state: string; comment?: string; accepted_until?: string };
      line('state', current.state, body.state, body.comment);
      const resolved = ['fixed', 'verified', 'false_positive', 'accepted', 'out_of_scope'].includes(body.state);
      current = { ...current, state: body.state, is_resolved: resolved, state_reason: body.comment || null };
      return { body: current };
    }
    if (call.path === `${base}comments/`) {
      line('comment', null, null, (call.body as { comment: string }).comment);
      return { status: 201, body: history[history.length - 1] };
    }
    if (call.path === base && call.method === 'PATCH') {
      const body = call.body as { assignee_id: number | null; due_date: string | null };
      line('assignee', null, String(body.assignee_id));
      current = { ...current, ...body };
      return { body: current };
    }
    return { body: current };
  });
  return { calls, writes: () => calls.filter((c) => c.method !== 'GET') };
}

const panel = () => page.container.querySelector<HTMLElement>('section.triage')!;
const formTitled = (title: string) =>
  [...panel().querySelectorAll('form')].find((f) => f.querySelector('h3')?.textContent === title)!;
const submit = (form: HTMLFormElement) =>
  act(() => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());

function renderDetail() {
  page.render('/vulnerabilities/42', <Route path="/vulnerabilities/:id" component={VulnerabilityDetailPage} />);
}

describe('finding triage', () => {
  it('offers only the lifecycle’s next states, asks a justification, then moves the finding and shows its history', async () => {
    signInAs('user');
    const server = serve();
    renderDetail();
    await until(() => expect(panel()).not.toBeNull());
    expect(text(panel().querySelector('.status'))).toBe('Nouvelle');
    const move = formTitled('Changer l’état');
    const states = [...move.querySelectorAll('select option')].map((o) => o.textContent);
    // An analyst may not accept a risk: no « Risque accepté ».
    expect(states).toEqual([
      'Confirmée',
      'En cours de correction',
      'Corrigée (à vérifier)',
      'Faux positif',
      'Hors périmètre',
    ]);
    act(() => setValue(move.querySelector('select')!, 'false_positive'));
    expect(move.textContent).toContain('Justification *');
    submit(move);
    await until(() => expect(move.textContent).toContain('Une justification est obligatoire pour « Faux positif ».'));
    expect(server.writes()).toEqual([]);
    act(() => setValue(move.querySelector('textarea')!, 'Bannière mal lue par le scanner'));
    submit(move);
    await until(() => expect(text(panel().querySelector('.status'))).toBe('Faux positif'));
    expect(server.writes()[0]).toMatchObject({
      path: '/api/vulnerabilities/vulnerabilities/42/transition/',
      body: { state: 'false_positive', comment: 'Bannière mal lue par le scanner' },
    });
    await until(() =>
      expect(text(panel().querySelector('.finding-history'))).toContain('État : Nouvelle → Faux positif.'),
    );
    expect(text(panel().querySelector('.finding-history'))).toContain('Bannière mal lue par le scanner');
    // From a false positive, only reopening is left.
    expect([...formTitled('Changer l’état').querySelectorAll('select option')].map((o) => o.textContent)).toEqual([
      'Confirmée',
    ]);
    expect(page.container.querySelector('.detail-head .status')?.textContent).toBe('Faux positif');
  });

  it('lets a manager accept a risk with its expiry date', async () => {
    signInAs('manager');
    const server = serve({ state: 'confirmed' });
    renderDetail();
    await until(() => expect(panel()).not.toBeNull());
    const move = formTitled('Changer l’état');
    act(() => setValue(move.querySelector('select')!, 'accepted'));
    expect(move.textContent).toContain('Risque accepté jusqu’au *');
    act(() => setValue(move.querySelector('textarea')!, 'Compensé par la segmentation'));
    submit(move);
    await until(() =>
      expect(move.textContent).toContain('La date d’expiration de l’acceptation du risque est obligatoire.'),
    );
    act(() => setValue(move.querySelector<HTMLInputElement>('input')!, '2027-02-01'));
    submit(move);
    await until(() => expect(server.writes()).toHaveLength(1));
    expect(server.writes()[0]!.body).toEqual({
      state: 'accepted',
      comment: 'Compensé par la segmentation',
      accepted_until: '2027-02-01',
    });
  });

  it('assigns the finding to a member and keeps comments', async () => {
    signInAs('user');
    const server = serve();
    renderDetail();
    await until(() => expect(panel()).not.toBeNull());
    const assign = formTitled('Assignation et échéance');
    await until(() => expect(assign.querySelectorAll('select option')).toHaveLength(3));
    act(() => setValue(assign.querySelector('select')!, '3'));
    act(() => setValue(assign.querySelector<HTMLInputElement>('input')!, '2026-12-15'));
    submit(assign);
    await until(() => expect(server.writes()).toHaveLength(1));
    expect(server.writes()[0]).toMatchObject({ method: 'PATCH', body: { assignee_id: 3, due_date: '2026-12-15' } });
    await until(() => expect(panel().querySelector('dl')!.textContent).toContain('Marc Lefèvre'));
    const comment = formTitled('Ajouter un commentaire');
    act(() => setValue(comment.querySelector('textarea')!, '  Correctif planifié mardi '));
    submit(comment);
    await until(() => expect(text(panel().querySelector('.finding-history'))).toContain('Correctif planifié mardi'));
    expect(server.writes()[1]).toMatchObject({ body: { comment: 'Correctif planifié mardi' } });
  });

  it('shows a reader the state and the history, without any form', async () => {
    signInAs('readonly');
    serve({ state: 'in_progress', assignee_id: 3, due_date: '2020-01-10' });
    renderDetail();
    await until(() => expect(panel()).not.toBeNull());
    await until(() => expect(panel().querySelector('dl')!.textContent).toContain('Marc Lefèvre'));
    expect(panel().textContent).toContain('En retard');
    expect(panel().querySelector('form')).toBeNull();
  });

  it('shows the SSVC decision and why', async () => {
    signInAs('readonly');
    serve({
      ssvc: {
        decision: 'act',
        exploitation: 'active',
        automatable: 'yes',
        technical_impact: 'total',
        mission_wellbeing: 'high',
        reasons: [
          'Exploitation active : la CVE figure au catalogue KEV de la CISA.',
          'Mission : élevée (actif critique).',
        ],
      },
    });
    renderDetail();
    await until(() => expect(page.container.querySelector('section.ssvc')).not.toBeNull());
    const card = page.container.querySelector('section.ssvc')!;
    expect(text(card.querySelector('.ssvc-decision'))).toBe('À traiter maintenant (Act)');
    expect([...card.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'Exploitation active : la CVE figure au catalogue KEV de la CISA.',
      'Mission : élevée (actif critique).',
    ]);
  });

  it('counts as overdue only an open finding past its due date', () => {
    expect(isOverdue({ due_date: '2026-11-28', is_resolved: false }, '2026-11-29')).toBe(true);
    expect(isOverdue({ due_date: '2026-11-29', is_resolved: false }, '2026-11-29')).toBe(false);
    expect(isOverdue({ due_date: '2026-11-28', is_resolved: true }, '2026-11-29')).toBe(false);
    expect(isOverdue({ due_date: null, is_resolved: false }, '2026-11-29')).toBe(false);
  });
});
