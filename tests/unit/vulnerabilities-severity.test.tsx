import { act } from 'react';
import { Route } from 'wouter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import { SeverityBadge } from '../../src/components/severity-badges.tsx';
import VulnerabilityDetailPage from '../../src/features/vulnerabilities/detail-page.tsx';
import VulnerabilityDashboardPage from '../../src/features/vulnerabilities/dashboard-page.tsx';
import VulnerabilityListPage from '../../src/features/vulnerabilities/list-page.tsx';
import { CvePanel } from '../../src/features/vulnerabilities/cve-panel.tsx';
import type { Cve } from '../../src/features/vulnerabilities/api/types.ts';
import { findingSeverityLabel as severityLabel } from '../../contract/severity.ts';
import {
  filtersToApi,
  filtersToSearch,
  hasFilters,
  parseFilters,
} from '../../src/features/vulnerabilities/list-filters.ts';
import {
  mockApi,
  pageOf,
  setup,
  signInAs,
  tableRows,
  text,
  until,
  withScrollerHeight,
  type Call,
} from './vulnerabilities-helpers.tsx';
import { setValue } from './screen-helpers.tsx';

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

describe('the « Non évaluée » severity', () => {
  it('has its own badge: its French name and its own class, never Info’s', () => {
    page.render(
      '/',
      <p>
        <SeverityBadge severity="unrated" />
        <SeverityBadge severity="info" />
      </p>,
    );
    const [unrated, info] = [...page.container.querySelectorAll('.sev-badge')];
    expect(text(unrated)).toBe('Non évaluée');
    expect(unrated!.classList.contains('sev-unrated')).toBe(true);
    expect(unrated!.classList.contains('sev-info')).toBe(false);
    expect(text(info)).toBe('Info');
    expect(info!.classList.contains('sev-info')).toBe(true);
    expect(severityLabel('unrated')).toBe('Non évaluée');
    expect(severityLabel('UNRATED')).toBe('Non évaluée');
  });
});

describe('the list’s severity filter', () => {
  it('round-trips « Non évaluée » as severity=unrated, after Info, in the URL and the API query', () => {
    const f = parseFilters('severity=unrated,info,bogus');
    expect(f.severity).toEqual(['info', 'unrated']);
    expect(hasFilters(f)).toBe(true);
    expect(filtersToSearch(f)).toBe('severity=info%2Cunrated');
    expect(parseFilters(filtersToSearch(f))).toEqual(f);
    expect(filtersToApi(f)).toMatchObject({ severity: 'info,unrated' });
    expect(filtersToApi(parseFilters('severity=UNRATED')).severity).toBe('unrated');
    // Whatever order the boxes were ticked in, one URL.
    expect(filtersToSearch({ ...f, severity: ['unrated', 'critical'] })).toBe('severity=critical%2Cunrated');
    expect(filtersToSearch({ ...f, severity: [], ssvc: ['act', 'track'] })).toBe('ssvc=track%2Cact');
  });

  it('offers a « Non évaluée » box after Info, filters on it, and shows the rows’ badges', async () => {
    const restore = withScrollerHeight();
    try {
      const calls = mockApi((call: Call) =>
        call.path === '/api/assets/'
          ? { body: { count: 0, results: [] } }
          : pageOf(call, 2, (i) => ({
              id: i + 1,
              title: `Constat ${i}`,
              cve_id: null,
              severity: i === 0 ? 'unrated' : 'info',
              cvss_score: null,
              kev: false,
              epss_score: null,
              asset: null,
              is_resolved: false,
              created_at: '2026-11-12T14:05:00Z',
            })),
      );
      page.render('/vulnerabilities/list', <VulnerabilityListPage />);
      await until(() => expect(page.container.querySelectorAll('tr.row:not(.loading)')).toHaveLength(2));
      const c = page.container;
      const group = c.querySelector('input[name="severity"]')!.closest('fieldset')!;
      expect(text(group.querySelector('legend'))).toBe('Gravité');
      expect([...group.querySelectorAll('label')].map((l) => text(l))).toEqual([
        'Critique',
        'Élevée',
        'Moyenne',
        'Faible',
        'Info',
        'Non évaluée',
      ]);
      // The SSVC group has the same shape.
      const ssvc = c.querySelector('input[name="ssvc"]')!.closest('fieldset')!;
      expect(text(ssvc.querySelector('legend'))).toBe('Décision SSVC');
      expect(ssvc.querySelectorAll('.checks > label > input[type="checkbox"]')).toHaveLength(4);

      const badges = [...c.querySelectorAll('tbody tr.row .sev-badge')];
      expect(badges.map((b) => text(b))).toEqual(['Non évaluée', 'Info']);
      expect(badges[0]!.classList.contains('sev-unrated')).toBe(true);

      act(() => c.querySelector<HTMLInputElement>('input[name="severity"][value="unrated"]')!.click());
      expect(location.search).toBe('?severity=unrated');
      const list = () => calls.filter((k) => k.path === '/api/vulnerabilities/vulnerabilities/');
      await until(() => expect(list().at(-1)!.query.severity).toBe('unrated'));
      expect(c.querySelector<HTMLInputElement>('input[value="unrated"]')!.checked).toBe(true);
      act(() => c.querySelector<HTMLInputElement>('input[name="severity"][value="info"]')!.click());
      expect(location.search).toBe('?severity=info%2Cunrated');
      await until(() => expect(list().at(-1)!.query.severity).toBe('info,unrated'));
    } finally {
      restore();
    }
  });
});

const BASE = '/api/vulnerabilities/vulnerabilities/42/';
const finding = {
  id: 42,
  title: 'OpenSSL',
  cve_id: 'CVE-2099-0001',
  severity: 'critical',
  severity_source: 'nvd',
  severity_reason: null,
  rated_severity: null,
  rated_source: null,
  cvss_score: 9.8,
  kev: false,
  epss_score: 0.2,
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

/** The server of one finding and its severity override, as the new API answers. */
function serve(start: Record<string, unknown> = {}, headers?: Record<string, string>) {
  let current: Record<string, unknown> = { ...finding, ...start };
  const history: Record<string, unknown>[] = [];
  let refusal: { status: number; detail: string } | null = null;
  const calls = mockApi((call) => {
    if (call.path === '/api/vulnerabilities/assignees/') return { body: [] };
    if (call.path === `${BASE}history/`) return { body: history };
    if (call.path === `${BASE}severity/`) {
      if (refusal) return { status: refusal.status, body: { detail: refusal.detail } };
      const from = current.severity;
      if (call.method === 'POST') {
        const body = call.body as { severity: string; reason: string };
        current = {
          ...current,
          severity: body.severity,
          severity_source: 'analyst',
          severity_reason: body.reason,
          rated_severity: current.rated_severity ?? current.severity,
          rated_source: current.rated_source ?? current.severity_source,
        };
        history.push(line(history.length + 1, from, body.severity, body.reason));
      } else {
        current = {
          ...current,
          severity: current.rated_severity,
          severity_source: current.rated_source,
          severity_reason: null,
          rated_severity: null,
          rated_source: null,
        };
        history.push(line(history.length + 1, from, current.severity, ''));
      }
      return { body: current };
    }
    return { body: current, ...(headers ? { headers } : {}) };
  });
  return {
    calls,
    writes: () => calls.filter((c) => c.method !== 'GET'),
    refuse: (status: number, detail: string) => (refusal = { status, detail }),
  };
}

function line(id: number, from: unknown, to: unknown, comment: string) {
  return {
    id,
    kind: 'severity',
    user_id: 3,
    username: 'analyste',
    from_value: from,
    to_value: to,
    comment,
    created_at: '2026-11-29T09:00:00Z',
  };
}

function renderDetail() {
  page.render('/vulnerabilities/42', <Route path="/vulnerabilities/:id" component={VulnerabilityDetailPage} />);
}

const severityLine = () => text(page.container.querySelector('.severity-source'));
const severityForm = () =>
  [...page.container.querySelectorAll<HTMLFormElement>('section.triage form')].find(
    (f) => text(f.querySelector('h3')) === 'Gravité',
  );
const history = () => text(page.container.querySelector('.finding-history'));
const button = (label: string) =>
  [...page.container.querySelectorAll<HTMLButtonElement>('button')].find((b) => text(b) === label);

describe('a finding’s severity and its source', () => {
  it.each([
    [{ severity: 'critical', severity_source: 'nvd' }, 'Critique — source : NVD'],
    [{ severity: 'low', severity_source: 'scanner' }, 'Faible — source : scanner'],
    [{ severity: 'high', severity_source: 'cna' }, 'Élevée — source : CNA'],
    [{ severity: 'medium', severity_source: 'adp' }, 'Moyenne — source : CISA ADP'],
    [{ severity: 'unrated', severity_source: 'nvd' }, 'Non évaluée — source : NVD'],
    // Typed in by hand: an analyst's, with no source underneath.
    [{ severity: 'info', severity_source: 'analyst' }, 'Info — source : analyste'],
    [
      {
        severity: 'high',
        severity_source: 'analyst',
        severity_reason: 'Exposé uniquement sur le réseau interne',
        rated_severity: 'critical',
        rated_source: 'adp',
      },
      'Élevée — source : analyste, motif : « Exposé uniquement sur le réseau interne » (la source, CISA ADP, indique : Critique)',
    ],
    // An older backend says nothing of the source.
    [{ severity: 'critical', severity_source: undefined }, 'Critique'],
  ])('reads %j as « %s »', async (fields, expected) => {
    signInAs('readonly');
    serve(fields);
    renderDetail();
    await until(() => expect(page.container.querySelector('.severity-source')).not.toBeNull());
    expect(severityLine()).toBe(expected);
  });

  it('lets a writer override the severity with a reason, then shows it, its source and the history line', async () => {
    signInAs('user');
    const server = serve();
    renderDetail();
    await until(() => expect(severityForm()).toBeDefined());
    const form = severityForm()!;
    expect([...form.querySelectorAll('select option')].map((o) => o.textContent)).toEqual([
      'Critique',
      'Élevée',
      'Moyenne',
      'Faible',
      'Info',
      'Non évaluée',
    ]);
    expect(form.querySelector('select')!.value).toBe('critical');
    expect(button('Rétablir la gravité de la source')).toBeUndefined();
    act(() => setValue(form.querySelector('select')!, 'high'));
    act(() => setValue(form.querySelector('textarea')!, '  Exposé uniquement sur le réseau interne '));
    act(() => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await until(() => expect(server.writes()).toHaveLength(1));
    expect(server.writes()[0]).toMatchObject({
      method: 'POST',
      path: `${BASE}severity/`,
      body: { severity: 'high', reason: 'Exposé uniquement sur le réseau interne' },
    });
    await until(() =>
      expect(severityLine()).toBe(
        'Élevée — source : analyste, motif : « Exposé uniquement sur le réseau interne » (la source, NVD, indique : Critique)',
      ),
    );
    await until(() => expect(history()).toContain('Gravité : Critique → Élevée.'));
    expect(history()).toContain('Exposé uniquement sur le réseau interne');
    expect(form.querySelector('textarea')!.value).toBe('');
    expect(button('Rétablir la gravité de la source')).toBeDefined();
  });

  it('asks for the reason before sending anything', async () => {
    signInAs('user');
    const server = serve();
    renderDetail();
    await until(() => expect(severityForm()).toBeDefined());
    const form = severityForm()!;
    act(() => setValue(form.querySelector('select')!, 'low'));
    act(() => setValue(form.querySelector('textarea')!, '   '));
    act(() => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await until(() => expect(text(form)).toContain('Motif obligatoire pour modifier la gravité.'));
    expect(form.querySelector('textarea')!.getAttribute('aria-invalid')).toBe('true');
    expect(server.writes()).toEqual([]);
    expect(severityLine()).toBe('Critique — source : NVD');
  });

  it('shows the server’s refusal in French', async () => {
    signInAs('user');
    const server = serve();
    server.refuse(400, 'Gravité inconnue : « urgent ».');
    renderDetail();
    await until(() => expect(severityForm()).toBeDefined());
    const form = severityForm()!;
    act(() => setValue(form.querySelector('textarea')!, 'Motif'));
    act(() => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await until(() => expect(text(form.querySelector('[role="alert"]'))).toBe('Gravité inconnue : « urgent ».'));
    expect(severityLine()).toBe('Critique — source : NVD');
  });

  it('puts the source’s rating back while an override stands', async () => {
    signInAs('user');
    const server = serve({
      severity: 'high',
      severity_source: 'analyst',
      severity_reason: 'Compensé par le WAF',
      rated_severity: 'critical',
      rated_source: 'nvd',
    });
    renderDetail();
    await until(() => expect(button('Rétablir la gravité de la source')).toBeDefined());
    act(() => button('Rétablir la gravité de la source')!.click());
    await until(() => expect(server.writes()).toHaveLength(1));
    expect(server.writes()[0]).toMatchObject({ method: 'DELETE', path: `${BASE}severity/` });
    await until(() => expect(severityLine()).toBe('Critique — source : NVD'));
    expect(button('Rétablir la gravité de la source')).toBeUndefined();
    expect(text(severityForm())).toContain('Gravité de la source rétablie : Critique.');
    await until(() => expect(history()).toContain('Gravité : Élevée → Critique.'));
  });

  it('shows the revert’s refusal in French', async () => {
    signInAs('user');
    const server = serve({
      severity: 'high',
      severity_source: 'analyst',
      rated_severity: 'low',
      rated_source: 'scanner',
    });
    server.refuse(400, 'Aucune gravité d’analyste à retirer.');
    renderDetail();
    await until(() => expect(button('Rétablir la gravité de la source')).toBeDefined());
    act(() => button('Rétablir la gravité de la source')!.click());
    await until(() =>
      expect(text(severityForm()!.querySelector('[role="alert"]'))).toBe(
        'Impossible de rétablir la gravité de la source : Aucune gravité d’analyste à retirer.',
      ),
    );
  });

  it('offers no severity form to a reader', async () => {
    signInAs('readonly');
    serve();
    renderDetail();
    await until(() => expect(page.container.querySelector('section.triage')).not.toBeNull());
    expect(severityForm()).toBeUndefined();
    expect(page.container.textContent).not.toContain('Modifier la gravité');
  });

  it('keeps the form off, and says why, on a kept copy of the finding', async () => {
    signInAs('user');
    const server = serve(
      { severity: 'high', severity_source: 'analyst', rated_severity: 'critical', rated_source: 'nvd' },
      { 'X-Vigie-Source': 'cache', 'X-Vigie-Stored-At': String(Date.UTC(2026, 10, 12, 14, 5)) },
    );
    renderDetail();
    await until(() => expect(severityForm()).toBeDefined());
    const form = severityForm()!;
    expect(text(form.querySelector('[role="note"]'))).toBe(
      'Hors ligne ou serveur injoignable : ces données sont une copie conservée, modification impossible pour le moment.',
    );
    expect(form.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled).toBe(true);
    expect(form.querySelector('select')!.disabled).toBe(true);
    expect(form.querySelector('textarea')!.disabled).toBe(true);
    expect(button('Rétablir la gravité de la source')!.disabled).toBe(true);
    act(() => setValue(form.querySelector('textarea')!, 'Motif'));
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
    expect(server.writes()).toEqual([]);
  });

  it('says « Données d’exemple » on a sample', async () => {
    signInAs('user');
    serve({}, { 'X-Vigie-Source': 'sample' });
    renderDetail();
    await until(() => expect(severityForm()).toBeDefined());
    expect(text(severityForm()!.querySelector('[role="note"]'))).toBe('Données d’exemple : modification impossible.');
    expect(severityForm()!.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled).toBe(true);
  });
});

const cve: Cve = {
  cve_id: 'CVE-2099-0001',
  title: 'OpenSSL',
  description: 'Overflow.',
  published_at: '2099-01-01T00:00:00Z',
  modified_at: null,
  severity: 'critical',
  cvss_source: 'adp',
  cvss_v31: { score: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', severity: 'critical' },
  cvss_v4: null,
  cvss_v2: null,
  cwes: [],
  references: [],
  kev: null,
  epss: null,
};

describe('the CVE panel', () => {
  it('names who scored the CVE', () => {
    page.render('/', <CvePanel cve={cve} />);
    const card = page.container.querySelector(`[aria-labelledby="cve-${cve.cve_id}-cvss"]`)!;
    expect(text(card.querySelector('.cvss-source'))).toBe('Score : CISA ADP');
    for (const [source, label] of [
      ['nvd', 'NVD'],
      ['cna', 'CNA'],
    ] as const) {
      page.render('/', <CvePanel cve={{ ...cve, cvss_source: source }} />);
      expect(text(page.container.querySelector('.cvss-source'))).toBe(`Score : ${label}`);
    }
  });

  it('says « Non évaluée » for a CVE nobody scored, and names no scorer', () => {
    page.render('/', <CvePanel cve={{ ...cve, severity: 'unrated', cvss_source: null, cvss_v31: null }} />);
    const badge = page.container.querySelector('.facts .sev-badge')!;
    expect(text(badge)).toBe('Non évaluée');
    expect(badge.classList.contains('sev-unrated')).toBe(true);
    expect(page.container.querySelector('.cvss-source')).toBeNull();
    expect(page.container.textContent).toContain('Aucun score CVSS publié.');
  });
});

describe('the vulnerability dashboard’s severities', () => {
  const summary = {
    total_vulnerabilities: 10,
    severity_distribution: { critical: 1, high: 2, medium: 3, low: 1, info: 1, unrated: 2 },
    recently_added: [],
    top_affected_assets: [],
    top_cwe_categories: [],
    vulnerability_trends: [],
    resolved_count: 0,
  };

  it('counts « Non évaluée » after Info, linked to its filter', async () => {
    mockApi(() => ({ body: summary }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('.chart-donut')).not.toBeNull());
    const rows = tableRows(page.container.querySelector('.chart-donut tbody'));
    expect(rows).toEqual(['Critique | 1', 'Élevée | 2', 'Moyenne | 3', 'Faible | 1', 'Info | 1', 'Non évaluée | 2']);
    const links = [...page.container.querySelectorAll('.sev-links a')];
    expect(links.map((a) => text(a))).toEqual(['Critique1', 'Élevée2', 'Moyenne3', 'Faible1', 'Info1', 'Non évaluée2']);
    expect(links.at(-1)!.getAttribute('href')).toBe('/vulnerabilities/list?severity=unrated&is_resolved=false');
    expect(links.at(-1)!.querySelector('.sev-dot.sev-unrated')).not.toBeNull();
  });

  it('reads an older answer without `unrated` as 0', async () => {
    const { unrated: _unrated, ...older } = summary.severity_distribution;
    mockApi(() => ({ body: { ...summary, total_vulnerabilities: 8, severity_distribution: older } }));
    page.render('/vulnerabilities', <VulnerabilityDashboardPage />);
    await until(() => expect(page.container.querySelector('.chart-donut')).not.toBeNull());
    expect(tableRows(page.container.querySelector('.chart-donut tbody')).at(-1)).toBe('Non évaluée | 0');
    expect(text([...page.container.querySelectorAll('.sev-links a')].at(-1))).toBe('Non évaluée0');
    expect(tableRows(page.container.querySelector('.chart-donut tfoot'))).toEqual(['Total | 8']);
  });
});
