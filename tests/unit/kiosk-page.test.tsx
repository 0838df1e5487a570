import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { online } from '../../src/app/connectivity.ts';
import { session } from '../../src/lib/auth/session.ts';
import { signIn } from './screen-helpers.tsx';
import KioskPage from '../../src/app/kiosk/kiosk-page.tsx';
import { nextRefreshDelay, parseKioskConfig } from '../../src/app/kiosk/kiosk-config.ts';
import { dataAge } from '../../src/app/kiosk/kiosk-panels.tsx';
import vulnerabilitySample from '../../sample-data/vulnerability-summary.json';
import { mountEachTest } from './support/mount.tsx';

let calls: { url: URL }[];
let down: boolean;
const sampleSummary = () => json(vulnerabilitySample, 200, { 'x-vigie-source': 'sample' });
/** The answer of GET /api/vulnerabilities/summary/: the sample unless a test says otherwise. */
let vulnerabilitySummary = sampleSummary;

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

const DASHBOARD = {
  vulnerabilities: { total: 300, open: 248, critical: 14, high: 52, kev: 9, resolved: 52 },
  assets: { total: 40, critical: 6 },
  threats: { total: 12, active: 5 },
  scans: { total: 20, running: 1, last_completed_at: '2025-06-02T07:00:00Z' },
  tasks: { running: 2, failed_24h: 1 },
  last_cve_update: '2025-06-02T02:07:41Z',
  generated_at: '2025-06-02T08:00:00Z',
};

const TASKS = {
  recent_tasks: [
    {
      id: 'a',
      name: 'Indexation des CVE',
      full_name: 'vulnerabilities.tasks.index_cves_5_years',
      status: 'STARTED',
      date_done: null,
      result: null,
      meta: { progress: 63 },
    },
    {
      id: 'b',
      name: 'Synchronisation KEV',
      full_name: 'vulnerabilities.tasks.sync_cisa_kev',
      status: 'FAILURE',
      date_done: '2025-06-02T06:01:32Z',
      result: 'Échec',
      meta: { error: 'Délai dépassé' },
    },
  ],
};

/** Per-path answers a test sets instead of the defaults below. */
const overrides = new Map<string, () => Response>();

function answer(url: URL): Response {
  const override = overrides.get(url.pathname);
  if (override) return override();
  switch (url.pathname) {
    case '/api/dashboard/summary/':
      return json(DASHBOARD);
    case '/api/celery/tasks/recent/':
      return json(TASKS);
    case '/api/vulnerabilities/summary/':
      return vulnerabilitySummary();
    case '/api/threats/summary/':
      return json({
        threats_count: 2,
        by_severity: [],
        by_status: [{ status: 'ACTIVE', count: 2 }],
        recent_threats: [
          {
            id: 1,
            title: 'Force brute sur le VPN',
            description: '',
            threat_type: 'brute_force',
            severity: 'high',
            status: 'ACTIVE',
            is_mitigated: false,
            mitigated_at: null,
            source: 'SIEM',
            cve_id: null,
            asset_id: null,
            asset: null,
            created_at: '2025-06-02T07:00:00Z',
            updated_at: '2025-06-02T07:00:00Z',
          },
        ],
      });
    default:
      return json({ detail: 'introuvable' }, 404);
  }
}

async function settle() {
  for (let i = 0; i < 5; i++) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
  }
}

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
  await settle();
}

function setHidden(hidden: boolean) {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  act(() => {
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2025-06-02T08:05:00Z'));
  calls = [];
  overrides.clear();
  down = false;
  vulnerabilitySummary = sampleSummary;
  online.value = true;
  // A person's kiosk (signed in, set by the URL); the paired screen's is in kiosk-device.test.tsx.
  signIn('analyst');
  setClientEnvironment({
    fetch: async (input: RequestInfo | URL) => {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        'http://localhost',
      );
      calls.push({ url });
      if (down) throw new TypeError('Failed to fetch');
      return answer(url);
    },
  });
});
afterEach(() => {
  session.value = null;
  resetApiClient();
  vi.useRealTimers();
  online.value = true;
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
});

const view = mountEachTest();

async function render(url: string) {
  window.history.replaceState(null, '', url);
  view.render(<KioskPage />);
  await settle();
}

const title = () => view.container.querySelector('.kiosk-title')!.textContent;

describe('kiosk configuration', () => {
  it('reads panels, interval, theme and text size from the URL, with defaults', () => {
    expect(parseKioskConfig('')).toEqual({
      panels: ['vulnerabilities', 'threats', 'tasks', 'overview'],
      intervalS: 30,
      theme: 'dark',
      textSize: 'normal',
    });
    expect(parseKioskConfig('?panels=tasks,bogus,overview,tasks&interval=12')).toEqual({
      panels: ['tasks', 'overview'],
      intervalS: 12,
      theme: 'dark',
      textSize: 'normal',
    });
    expect(parseKioskConfig('?panels=&interval=1').intervalS).toBe(5);
    expect(parseKioskConfig('?interval=abc').intervalS).toBe(30);
    expect(parseKioskConfig('?panels=ACT,kev,overdue&theme=light&text=xlarge')).toEqual({
      panels: ['act', 'kev', 'overdue'],
      intervalS: 30,
      theme: 'light',
      textSize: 'xlarge',
    });
    expect(parseKioskConfig('?theme=pink&text=huge')).toMatchObject({ theme: 'dark', textSize: 'normal' });
  });

  it('refreshes every minute while visible, with backoff after failures', () => {
    expect(nextRefreshDelay(0)).toBe(60_000);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => nextRefreshDelay(n))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 120_000,
    ]);
  });

  it('tells the age of the data, « à l’instant » only for what the server just sent', () => {
    const now = Date.parse('2025-06-02T14:08:00');
    const age = (at: string, justReceived = false) => dataAge(Date.parse(at), now, justReceived).replace(/\s/g, ' ');
    expect(age('2025-06-02T14:05:00')).toBe('Données de 14:05, il y a 3 min');
    expect(age('2025-06-02T14:07:40', true)).toBe('Données de 14:07, à l’instant');
    expect(age('2025-06-02T14:07:40')).toBe('Données de 14:07, il y a moins d’une minute');
    expect(age('2025-06-02T14:05:00', true)).toBe('Données de 14:05, il y a 3 min');
    expect(age('2025-06-02T11:00:00')).toBe('Données de 11:00, il y a 3 h');
  });
});

describe('KioskPage', () => {
  it('renders without the layout chrome, dark, and rotates panels on the interval', async () => {
    await render('/kiosk?panels=overview,tasks,vulnerabilities&interval=10');
    const kiosk = view.container.querySelector('.kiosk')!;
    expect(kiosk.classList.contains('theme-dark')).toBe(true);
    expect(view.container.querySelector('nav')).toBeNull();
    expect(title()).toBe('Vue d’ensemble');
    expect(view.container.querySelector('[data-panel="overview"]')!.textContent).toContain('248');
    await advance(10_000);
    expect(title()).toBe('Tâches de fond');
    const tasks = view.container.querySelector('[data-panel="tasks"]')!;
    expect(tasks.querySelector('[role="progressbar"]')!.getAttribute('aria-valuenow')).toBe('63');
    expect(tasks.textContent).toContain('Délai dépassé');
    await advance(10_000);
    expect(title()).toBe('Vulnérabilités');
    const vulns = view.container.querySelector('[data-panel="vulnerabilities"]')!;
    expect(vulns.querySelector('.data-origin')!.textContent).toBe('Données d’exemple');
    expect(vulns.querySelector('[data-severity="critical"]')!.textContent).toContain('14');
    // Sample figures never pass for live ones across a room: a large notice, each figure marked, no age.
    expect(vulns.querySelector('.kiosk-sample')!.textContent).toBe(
      'Exemple — ces chiffres ne sont pas ceux de votre organisation',
    );
    const figures = [...vulns.querySelectorAll('[data-figure]')];
    expect(figures.length).toBeGreaterThan(0);
    for (const f of figures) expect(f.nextElementSibling?.textContent).toBe('exemple');
    expect(vulns.querySelector('.kiosk-age')).toBeNull();
    // A live panel carries neither.
    const overview = () => view.container.querySelector('[data-panel="overview"]');
    expect(overview()?.querySelector('.kiosk-sample') ?? null).toBeNull();
    await advance(10_000);
    expect(title()).toBe('Vue d’ensemble');
    expect(view.container.querySelector('.kiosk-steps [aria-current="step"]')!.textContent).toBe('Vue d’ensemble');
  });

  it('loads every panel once up front and shows the age of the last good data', async () => {
    // The live overview first (the vulnerabilities fixture is sample data, which shows no age).
    await render('/kiosk?panels=overview,vulnerabilities,threats,tasks');
    const paths = calls.map((c) => c.url.pathname).sort();
    expect(paths).toEqual([
      '/api/celery/tasks/recent/',
      '/api/dashboard/summary/',
      '/api/threats/summary/',
      '/api/vulnerabilities/summary/',
    ]);
    const age = () => view.container.querySelector('.kiosk-age')!.textContent.replace(/\s/g, ' ');
    expect(age()).toMatch(/^Données de \d\d:\d\d, à l’instant$/);
    down = true;
    await advance(3 * 60_000);
    expect(age()).toMatch(/^Données de \d\d:\d\d, il y a 3 min$/);
  });

  it('never says « à l’instant » about a kept copy, even a recent one, nor about one without a date', async () => {
    let storedAt: string | null = String(Date.now() - 20_000);
    let dashboard = () => json(DASHBOARD);
    overrides.set('/api/dashboard/summary/', () => {
      const r = dashboard();
      r.headers.set('x-vigie-source', 'cache');
      if (storedAt) r.headers.set('x-vigie-stored-at', storedAt);
      return r;
    });
    await render('/kiosk?panels=overview');
    const age = () => view.container.querySelector('.kiosk-age')!.textContent.replace(/\s/g, ' ');
    expect(age()).toMatch(/^Données de \d\d:\d\d, il y a moins d’une minute$/);
    storedAt = null;
    dashboard = () => json(DASHBOARD);
    await advance(60_000);
    expect(age()).toBe('Données conservées, date inconnue');
  });

  it('shows the open SSVC Act findings and the unrated ones beside the severities, marked as sample', async () => {
    await render('/kiosk?panels=vulnerabilities');
    const vulns = view.container.querySelector('[data-panel="vulnerabilities"]')!;
    expect(calls.find((c) => c.url.pathname === '/api/vulnerabilities/summary/')!.url.searchParams.get('days')).toBe(
      '30',
    );
    const figure = (label: string) =>
      [...vulns.querySelectorAll('.kiosk-figure')].find(
        (f) => f.querySelector('.kiosk-figure-label')?.textContent === label,
      );
    expect([...vulns.querySelectorAll('.kiosk-figure-label')].map((l) => l.textContent)).toEqual([
      'Vulnérabilités ouvertes',
      'À traiter maintenant (Act)',
      'Critiques',
      'Élevées',
      'Non évaluées',
      'Exploitées (KEV)',
    ]);
    const act = figure('À traiter maintenant (Act)')!;
    expect(act.querySelector('[data-figure]')!.textContent).toBe(String(vulnerabilitySample.ssvc_act_count));
    expect(act.querySelector('[data-sample-mark]')!.textContent).toBe('exemple');
    const unrated = figure('Non évaluées')!;
    expect(unrated.querySelector('[data-figure]')!.textContent).toBe(
      String(vulnerabilitySample.severity_distribution.unrated),
    );
    expect(unrated.querySelector('[data-sample-mark]')!.textContent).toBe('exemple');
    // The donut's « Non évaluée » slice comes after Info.
    const rows = [...vulns.querySelectorAll('.chart-donut tbody tr')].map((tr) => tr.getAttribute('data-severity'));
    expect(rows).toEqual(['critical', 'high', 'medium', 'low', 'info', 'unrated']);
    expect(vulns.querySelector('[data-severity="unrated"]')!.textContent).toBe(
      `Non évaluée${vulnerabilitySample.severity_distribution.unrated}`,
    );
  });

  it('reads a live summary without `unrated` as 0 and without an Act count as unknown, unmarked', async () => {
    const { unrated: _unrated, ...older } = vulnerabilitySample.severity_distribution;
    const { ssvc_act_count: _act, ...rest } = vulnerabilitySample;
    vulnerabilitySummary = () => json({ ...rest, severity_distribution: older });
    await render('/kiosk?panels=vulnerabilities');
    const vulns = view.container.querySelector('[data-panel="vulnerabilities"]')!;
    const value = (label: string) =>
      [...vulns.querySelectorAll('.kiosk-figure')]
        .find((f) => f.querySelector('.kiosk-figure-label')?.textContent === label)!
        .querySelector('[data-figure]')!.textContent;
    expect(value('Non évaluées')).toBe('0');
    expect(value('À traiter maintenant (Act)')).toBe('—');
    expect(value('Critiques')).toBe(String(vulnerabilitySample.severity_distribution.critical));
    expect(vulns.querySelector('[data-severity="unrated"] td')!.textContent).toBe('0');
    expect(vulns.querySelector('[data-sample-mark]')).toBeNull();
  });

  it('names a recent threat’s severity in French, never the API’s word', async () => {
    await render('/kiosk?panels=threats');
    const item = view.container.querySelector('.kiosk-list li')!;
    expect(item.textContent).toBe('ÉlevéeForce brute sur le VPN');
    expect(item.querySelector('.kiosk-sev.high')).not.toBeNull();
  });

  it('keeps the last data when the backend fails, backs off, then recovers by itself', async () => {
    await render('/kiosk?panels=overview');
    const alarm = () => view.container.querySelector('.kiosk-alarm');
    expect(alarm()).toBeNull();
    down = true;
    await advance(60_000);
    // A minute old: still fresh, no bar; the panel says its refresh failed.
    expect(alarm()).toBeNull();
    const panel = view.container.querySelector('[data-panel="overview"]')!;
    expect(panel.textContent).toContain('248');
    expect(panel.querySelector('.kiosk-stale')!.textContent).toContain('dernières données affichées');
    // Backoff: 5 s, then 10 s.
    const before = calls.length;
    await advance(5_000);
    expect(calls.length).toBe(before + 1);
    await advance(5_000);
    expect(calls.length).toBe(before + 1);
    down = false;
    await advance(5_000);
    expect(calls.length).toBe(before + 2);
    expect(alarm()).toBeNull();
    expect(view.container.querySelector('.kiosk-stale')).toBeNull();
  });

  it('refreshes at once when the browser comes back online', async () => {
    await render('/kiosk?panels=overview');
    const before = calls.length;
    act(() => {
      online.value = true;
      window.dispatchEvent(new Event('online'));
    });
    await settle();
    expect(calls.length).toBe(before + 1);
  });

  it('never shows a blank panel when the first load fails, and says so past twice the refresh interval', async () => {
    down = true;
    await render('/kiosk?panels=threats');
    expect(view.container.querySelector('.kiosk-unavailable')!.textContent).toContain('Données indisponibles');
    expect(view.container.querySelector('.kiosk-alarm')).toBeNull();
    await advance(2 * 60_000 + 15_000);
    expect(view.container.querySelector('.kiosk-alarm-amber')!.textContent).toBe(
      'Aucune donnée reçue — serveur injoignable depuis 2 min',
    );
  });

  it('pauses its refresh while the page is hidden, and refreshes at once when visible again', async () => {
    await render('/kiosk?panels=overview');
    expect(calls).toHaveLength(1);
    await advance(60_000);
    expect(calls).toHaveLength(2);
    setHidden(true);
    await advance(30 * 60_000);
    expect(calls).toHaveLength(2);
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    await settle();
    expect(calls).toHaveLength(2);
    setHidden(false);
    await settle();
    expect(calls).toHaveLength(3);
    await advance(60_000);
    expect(calls).toHaveLength(4);
  });

  it('hides the cursor after inactivity and shows it again on movement', async () => {
    await render('/kiosk?panels=overview');
    const kiosk = view.container.querySelector('.kiosk')!;
    expect(kiosk.classList.contains('kiosk-idle')).toBe(false);
    await advance(3_000);
    expect(kiosk.classList.contains('kiosk-idle')).toBe(true);
    act(() => {
      window.dispatchEvent(new Event('pointermove'));
    });
    expect(kiosk.classList.contains('kiosk-idle')).toBe(false);
  });

  it('asks for a screen wake lock when the browser offers one', async () => {
    const release = vi.fn(() => Promise.resolve());
    const request = vi.fn(() => Promise.resolve({ released: false, release }));
    Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: { request } });
    try {
      await render('/kiosk?panels=overview');
      expect(request).toHaveBeenCalledWith('screen');
      view.unmount();
      expect(release).toHaveBeenCalled();
    } finally {
      delete (navigator as { wakeLock?: unknown }).wakeLock;
    }
  });
});
