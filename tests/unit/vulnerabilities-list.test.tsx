import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import VulnerabilityListPage from '../../src/features/vulnerabilities/list-page.tsx';
import {
  filtersToApi,
  filtersToSearch,
  hasFilters,
  parseFilters,
} from '../../src/features/vulnerabilities/list-filters.ts';
import { fr, mockApi, setup, withScrollerHeight, text, until, type Call } from './vulnerabilities-helpers.tsx';

const TOTAL = 100_000;

function row(i: number) {
  return {
    id: i + 1,
    title: `Vulnérabilité ${i}`,
    cve_id: `CVE-2026-${String(i).padStart(5, '0')}`,
    severity: ['critical', 'high', 'medium', 'low', 'info'][i % 5],
    cvss_score: 7.5,
    kev: i % 2 === 0,
    epss_score: 0.5,
    asset: { id: 1, name: 'fw-01' },
    is_resolved: false,
    ssvc_decision: (['act', 'attend', 'track_star', 'track', null] as const)[i % 5],
    created_at: '2026-11-12T14:05:00Z',
  };
}

function listHandler(total = TOTAL) {
  return (call: Call) => {
    if (call.path === '/api/assets/') return { body: { count: 1, results: [{ id: 1, name: 'fw-01' }] } };
    const page = Number(call.query.page);
    const size = Number(call.query.page_size);
    const start = (page - 1) * size;
    const results = Array.from({ length: Math.max(0, Math.min(size, total - start)) }, (_, k) => row(start + k));
    return { body: { count: total, next: null, previous: null, results } };
  };
}

const listCalls = (calls: Call[]) => calls.filter((c) => c.path === '/api/vulnerabilities/vulnerabilities/');

let page: ReturnType<typeof setup>;
let restore: () => void;
beforeEach(() => {
  page = setup();
  restore = withScrollerHeight();
});
afterEach(() => {
  page.cleanup();
  restore();
});

describe('list filters ↔ URL', () => {
  it('round-trips every filter through the query string', () => {
    const search =
      'severity=high,critical,bogus&is_resolved=false&kev=true&asset=4&cve=CVE-2024-3400&scan=12&text=log4j' +
      '&ssvc=act,TRACK_STAR,urgent&ordering=-cvss_score';
    const f = parseFilters(search);
    expect(f).toEqual({
      severity: ['critical', 'high'],
      is_resolved: 'false',
      kev: 'true',
      asset: '4',
      cve: 'CVE-2024-3400',
      scan: '12',
      text: 'log4j',
      // CISA's table order, known decisions only.
      ssvc: ['track_star', 'act'],
      ordering: '-cvss_score',
    });
    expect(parseFilters(filtersToSearch(f))).toEqual(f);
    expect(filtersToSearch(parseFilters(''))).toBe('');
  });

  it('sends the SSVC decisions to the API as a comma list, and counts them as a filter', () => {
    const f = parseFilters('ssvc=act&ordering=-ssvc_decision');
    expect(filtersToSearch(f)).toBe('ssvc=act&ordering=-ssvc_decision');
    expect(filtersToApi(f)).toEqual({ ordering: '-ssvc_decision', ssvc: 'act' });
    expect(hasFilters(f)).toBe(true);
    expect(hasFilters(parseFilters('ssvc=urgent'))).toBe(false);
    expect(parseFilters('ordering=ssvc_decision').ordering).toBe('ssvc_decision');
  });
});

describe('vulnerability list', () => {
  it('shows the total, fetches pages as rows come into view and keeps the DOM small', async () => {
    const calls = mockApi(listHandler());
    page.render('/vulnerabilities/list?severity=critical,high&kev=true', <VulnerabilityListPage />);
    await until(() => expect(page.container.querySelectorAll('tr.row:not(.loading)').length).toBeGreaterThan(0));
    const c = page.container;
    expect(text(c.querySelector('.list-bar .count'))).toBe(`${fr(TOTAL)} vulnérabilités`);
    expect(listCalls(calls)[0]!.query).toMatchObject({
      page: '1',
      page_size: '200',
      severity: 'critical,high',
      kev: 'true',
      ordering: '-created_at',
    });
    expect(c.querySelectorAll('tbody tr').length).toBeLessThan(100);
    expect(c.querySelector('table')!.getAttribute('aria-rowcount')).toBe(String(TOTAL + 1));
    expect(text(c.querySelector('tr.row'))).toContain('CVE-2026-00000');
    expect(listCalls(calls)).toHaveLength(1);

    // Scroll to row 50 100: page 251 (rows 50 000 to 50 199) is asked for, and only that one.
    const scroller = c.querySelector<HTMLElement>('.vuln-scroller')!;
    await act(async () => {
      scroller.scrollTop = 50_100 * 44;
      scroller.dispatchEvent(new Event('scroll'));
      await new Promise((r) => setTimeout(r, 20));
    });
    await until(() => expect(text(c.querySelector('tr.row:not(.loading)'))).toContain('CVE-2026-50'));
    const pages = listCalls(calls).map((k) => k.query.page);
    expect(pages).toEqual(['1', '251']);
    expect(c.querySelectorAll('tbody tr').length).toBeLessThan(100);
    const first = c.querySelector('tr.row')!;
    expect(Number(first.getAttribute('aria-rowindex'))).toBeGreaterThan(49_000);
  });

  it('writes filter changes to the URL, refetches, and follows the back button', async () => {
    const calls = mockApi(listHandler(1254));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(text(page.container.querySelector('.count'))).toBe(`${fr(1254)} vulnérabilités`));
    const c = page.container;
    const critical = c.querySelector<HTMLInputElement>('input[name="severity"][value="critical"]')!;
    act(() => critical.click());
    expect(location.search).toBe('?severity=critical');
    await until(() => expect(listCalls(calls).at(-1)!.query.severity).toBe('critical'));
    expect(c.querySelector<HTMLInputElement>('input[value="critical"]')!.checked).toBe(true);

    const status = c.querySelector<HTMLSelectElement>('#vf-status')!;
    act(() => {
      status.value = 'true';
      status.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(location.search).toBe('?severity=critical&is_resolved=true');

    await act(async () => {
      history.back();
      await new Promise((r) => setTimeout(r, 30));
    });
    await until(() => expect(location.search).toBe('?severity=critical'));
    await until(() => expect(c.querySelector<HTMLSelectElement>('#vf-status')!.value).toBe(''));
    expect(c.querySelector<HTMLInputElement>('input[value="critical"]')!.checked).toBe(true);
    await until(() => expect(text(c.querySelector('.count'))).toBe(`${fr(1254)} vulnérabilités`));
  });

  it('debounces the text filter into the URL and sorts from the column headers', async () => {
    const calls = mockApi(listHandler(3));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(page.container.querySelectorAll('tr.row:not(.loading)')).toHaveLength(3));
    const input = page.container.querySelector<HTMLInputElement>('#vf-text')!;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, 'log4j');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(location.search).toBe('');
    await until(() => expect(location.search).toBe('?text=log4j'));
    await until(() => expect(listCalls(calls).at(-1)!.query.text).toBe('log4j'));
    expect(input.value).toBe('log4j');

    const cvss = [...page.container.querySelectorAll('thead button')].find((b) => text(b).startsWith('CVSS'))!;
    act(() => (cvss as HTMLButtonElement).click());
    expect(new URLSearchParams(location.search).get('ordering')).toBe('-cvss_score');
    await until(() => expect(listCalls(calls).at(-1)!.query.ordering).toBe('-cvss_score'));
    await until(() => expect(page.container.querySelectorAll('thead th[aria-sort]')).toHaveLength(1));
    const sorted = [...page.container.querySelectorAll('thead th[aria-sort]')];
    expect(sorted.map((th) => [text(th), th.getAttribute('aria-sort')])).toEqual([['CVSS ↓', 'descending']]);
  });

  it('shows each finding’s SSVC decision, filters by decision and sorts by it, Act first', async () => {
    const calls = mockApi(listHandler(5));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(page.container.querySelectorAll('tr.row:not(.loading)')).toHaveLength(5));
    const c = page.container;
    const badges = [...c.querySelectorAll('tbody tr.row')].map((tr) => tr.querySelector('.ssvc-badge'));
    expect(badges.map((b) => b?.getAttribute('title') ?? null)).toEqual([
      'À traiter maintenant (Act)',
      'Traiter en priorité (Attend)',
      'Suivre de près (Track*)',
      'Suivre (Track)',
      null,
    ]);
    expect(text(badges[0]!.querySelector('[aria-hidden="true"]'))).toBe('Act');
    // The fifth is resolved: no decision.
    expect(text(c.querySelectorAll('tbody tr.row')[4]!.querySelectorAll('td')[3])).toBe('—');

    const act = c.querySelector<HTMLInputElement>('input[name="ssvc"][value="act"]')!;
    expect(act.closest('fieldset')!.querySelector('legend')!.textContent).toBe('Décision SSVC');
    act.click();
    await until(() => expect(location.search).toBe('?ssvc=act'));
    await until(() => expect(listCalls(calls).at(-1)!.query.ssvc).toBe('act'));
    c.querySelector<HTMLInputElement>('input[name="ssvc"][value="attend"]')!.click();
    await until(() => expect(location.search).toBe('?ssvc=attend%2Cact'));
    await until(() => expect(listCalls(calls).at(-1)!.query.ssvc).toBe('attend,act'));

    const header = () => [...c.querySelectorAll('thead button')].find((b) => text(b).startsWith('SSVC'));
    await until(() => expect(header()).toBeDefined());
    (header() as HTMLButtonElement).click();
    await until(() => expect(new URLSearchParams(location.search).get('ordering')).toBe('-ssvc_decision'));
    await until(() => expect(listCalls(calls).at(-1)!.query.ordering).toBe('-ssvc_decision'));
  });

  it('says so when nothing matches, and shows errors in French', async () => {
    mockApi(listHandler(0));
    page.render('/vulnerabilities/list?kev=true', <VulnerabilityListPage />);
    await until(() =>
      expect(text(page.container.querySelector('.empty'))).toContain('Aucune vulnérabilité ne correspond'),
    );
    expect(text(page.container.querySelector('.count'))).toBe('0 vulnérabilité');

    mockApi(() => ({ status: 403, body: { detail: 'Accès refusé à la ressource' } }));
    page.render('/vulnerabilities/list?kev=false', <VulnerabilityListPage />);
    await until(() => expect(text(page.container.querySelector('[role="alert"]'))).toBe('Accès refusé à la ressource'));
  });
});
