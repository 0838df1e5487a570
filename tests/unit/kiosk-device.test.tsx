import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { session } from '../../src/lib/auth/session.ts';
import { kvDelete, kvGet, kvSet } from '../../src/lib/storage.ts';
import { DISPLAY_CREDENTIAL_KEY, type Display, type DisplayCredential } from '../../src/lib/display-device.ts';
import KioskPage from '../../src/app/kiosk/kiosk-page.tsx';
import { formatPairingCode } from '../../src/app/kiosk/display-api.ts';
import { audit } from '../../src/app/audit.ts';
import { mountEachTest } from './support/mount.tsx';

/** One API call as the kiosk sent it. */
interface Call {
  method: string;
  url: URL;
  headers: Record<string, string>;
  credentials: RequestCredentials | undefined;
  body: unknown;
}

let calls: Call[];
let handler: (call: Call) => Response | Promise<Response>;

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

const TOKEN = 'vgd_' + 'a'.repeat(43);
const RENEWED = 'vgd_' + 'b'.repeat(43);

function display(changes: Partial<Display> = {}): Display {
  return {
    id: 3,
    name: 'Mur du SOC',
    tenants: [{ id: 't1', name: 'Alpha' }],
    panels: ['vulnerabilities', 'threats'],
    rotation_s: 30,
    theme: 'dark',
    text_size: 'normal',
    created_at: '2025-06-01T08:00:00Z',
    created_by: 'ana',
    last_seen_at: null,
    last_ip: null,
    version: null,
    revoked_at: null,
    ...changes,
  };
}

const SUMMARY = {
  total_vulnerabilities: 300,
  open_count: 248,
  ssvc_act_count: 4,
  kev_count: 9,
  severity_distribution: { critical: 14, high: 52, medium: 100, low: 70, info: 12, unrated: 0 },
  recently_added: [],
  top_affected_assets: [],
  top_cwe_categories: [],
  vulnerability_trends: [],
};

const THREATS = { threats_count: 2, by_severity: [], by_status: [{ status: 'ACTIVE', count: 2 }], recent_threats: [] };

const finding = (id: number, cve: string, score: number) => ({
  id,
  title: `Faille ${cve}`,
  cve_id: cve,
  severity: 'critical',
  cvss_score: score,
  kev: true,
  epss_score: null,
  asset: { id: 1, name: 'srv-web-01' },
  is_resolved: false,
  created_at: '2025-06-01T08:00:00Z',
});

const SLA = {
  open_with_due_date: 40,
  overdue: 7,
  due_soon: 3,
  resolved_in_window: 10,
  resolved_on_time: 8,
  window_days: 90,
  generated_at: '2025-06-02T08:00:00Z',
};

const RISKS = {
  open: 5,
  projects: 2,
  initial: [
    { likelihood: 4, impact: 4, count: 3 },
    { likelihood: 2, impact: 3, count: 2 },
  ],
  residual: [{ likelihood: 1, impact: 2, count: 5 }],
};

const EVENTS = [
  {
    id: 9,
    kind: 'message',
    level: 'warning',
    title: 'Exercice de crise à 15 h',
    link: null,
    created_at: '2025-06-02T07:50:00Z',
  },
  {
    id: 4,
    kind: 'kev_match',
    level: 'critical',
    title: 'CVE-2024-3400 activement exploitée (catalogue KEV)',
    link: '/vulnerabilities/list?text=CVE-2024-3400',
    created_at: '2025-06-01T08:05:00Z',
  },
];

/** The panels' reads, as the server answers a display (tenant-independent here). */
function panelAnswer(url: URL): Response {
  switch (url.pathname) {
    case '/api/vulnerabilities/summary/':
      return json(SUMMARY);
    case '/api/threats/summary/':
      return json(THREATS);
    case '/api/celery/tasks/':
      return json({ recent_tasks: [], scheduled_tasks: [] });
    case '/api/dashboard/summary/':
      return json({ vulnerabilities: { open: 248 } });
    case '/api/vulnerabilities/sla-report/':
      return json(SLA);
    case '/api/dashboard/risks/':
      return json({ risks: RISKS, generated_at: '2025-06-02T08:00:00Z' });
    case '/api/dashboard/events/':
      return json({ results: EVENTS, generated_at: '2025-06-02T08:00:00Z' });
    case '/api/vulnerabilities/vulnerabilities/':
      return json({
        count: url.searchParams.get('ssvc') === 'act' ? 4 : 9,
        next: null,
        previous: null,
        results: [finding(1, 'CVE-2024-3400', 10), finding(2, 'CVE-2023-4966', 9.4)],
      });
    default:
      return json({ detail: 'introuvable' }, 404);
  }
}

/** The server's side of docs/displays.md, as far as these tests need it. */
let me: () => Response;
let pairings: number;
let pollStatus: () => Response;

function server(call: Call): Response {
  const { method, url } = call;
  if (method === 'POST' && url.pathname === '/api/displays/pairings/') {
    pairings += 1;
    const code = pairings === 1 ? 'K7QH4MZP' : 'ab12cd34';
    return json(
      {
        id: `p${pairings}`,
        code,
        poll_secret: `secret${pairings}`,
        expires_at: new Date(Date.now() + 600_000).toISOString(),
      },
      201,
    );
  }
  if (method === 'GET' && url.pathname.startsWith('/api/displays/pairings/')) return pollStatus();
  if (url.pathname === '/api/displays/me/') return me();
  return panelAnswer(url);
}

async function settle() {
  for (let i = 0; i < 8; i++) {
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

beforeEach(async () => {
  // IndexedDB (fake-indexeddb) schedules its work with setImmediate: left real, so the credential store works.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  vi.setSystemTime(new Date('2025-06-02T08:05:00Z'));
  session.value = null;
  calls = [];
  pairings = 0;
  me = () => json({ display: display() });
  pollStatus = () => json({ status: 'pending', expires_at: new Date(Date.now() + 600_000).toISOString() });
  handler = server;
  await kvDelete(DISPLAY_CREDENTIAL_KEY);
  setClientEnvironment({
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        'http://localhost',
      );
      const call: Call = {
        method: (init?.method ?? 'GET').toUpperCase(),
        url,
        headers: Object.fromEntries([...new Headers(init?.headers).entries()].map(([k, v]) => [k.toLowerCase(), v])),
        credentials: init?.credentials,
        body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : init?.body,
      };
      calls.push(call);
      return handler(call);
    },
  });
});

afterEach(async () => {
  resetApiClient();
  vi.useRealTimers();
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
  await kvDelete(DISPLAY_CREDENTIAL_KEY);
});

const view = mountEachTest();

async function render() {
  window.history.replaceState(null, '', '/kiosk');
  view.render(<KioskPage />);
  await settle();
}

async function paired(d: Display = display()) {
  await kvSet(DISPLAY_CREDENTIAL_KEY, { token: TOKEN, display: d } satisfies DisplayCredential);
  await render();
}

const $ = <T extends Element = HTMLElement>(selector: string) => view.container.querySelector<T>(selector);
const text = (selector: string) => $(selector)?.textContent?.replace(/\s/g, ' ') ?? null;
const title = () => text('.kiosk-title');
const steps = () => [...view.container.querySelectorAll('[aria-label="Panneaux"] li')].map((li) => li.textContent);
const tenantSteps = () =>
  [...view.container.querySelectorAll('[aria-label="Organisations"] li')].map(
    (li) => `${li.textContent}${li.getAttribute('aria-current') ? ' (en cours)' : ''}`,
  );
const pairingPosts = () => calls.filter((c) => c.method === 'POST' && c.url.pathname === '/api/displays/pairings/');
const polls = () => calls.filter((c) => c.method === 'GET' && c.url.pathname.startsWith('/api/displays/pairings/'));
const panelCalls = () => calls.filter((c) => !c.url.pathname.startsWith('/api/displays/'));

function setHidden(hidden: boolean) {
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  act(() => {
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

describe('pairing an unpaired screen', () => {
  it('formats a code as the « Écrans » screen asks for it', () => {
    expect(formatPairingCode('k7qh4mzp')).toBe('K7QH-4MZP');
    expect(formatPairingCode('K7QH-4MZP')).toBe('K7QH-4MZP');
  });

  it('asks for a code without any credential and shows it large, with its QR code and the minutes left', async () => {
    await render();
    expect(pairingPosts()).toHaveLength(1);
    const post = pairingPosts()[0]!;
    expect(post.body).toEqual({});
    expect(post.headers.authorization).toBeUndefined();
    expect(title()).toBe('Appairer cet écran');
    expect(text('.kiosk-pairing-code')).toBe('K7QH-4MZP');
    const qr = $('.kiosk-pairing-qr svg[role="img"]')!;
    expect(qr.getAttribute('aria-label')).toBe('QR code d’appairage de cet écran, code K7QH-4MZP');
    expect(qr.querySelector('path')!.getAttribute('d')!.length).toBeGreaterThan(100);
    expect(text('.kiosk-pairing-left')).toBe('Valable encore 10 min');
    await advance(4 * 60_000);
    expect(text('.kiosk-pairing-left')).toBe('Valable encore 6 min');
  });

  it('polls every 3 s with its secret, and asks a new code when this one expires', async () => {
    await render();
    expect(polls()).toHaveLength(0);
    await advance(3_000);
    expect(polls()).toHaveLength(1);
    expect(polls()[0]!.url.pathname).toBe('/api/displays/pairings/p1/');
    expect(polls()[0]!.headers['x-display-pairing']).toBe('secret1');
    await advance(3_000);
    expect(polls()).toHaveLength(2);
    await advance(10 * 60_000);
    expect(pairingPosts()).toHaveLength(2);
    expect(text('.kiosk-pairing-code')).toBe('AB12-CD34');
    expect(text('.kiosk-pairing-left')).toMatch(/^Valable encore (9|10) min$/);
  });

  it('asks a new code when the server says the pairing expired or does not know it', async () => {
    await render();
    pollStatus = () => json({ status: 'expired', expires_at: new Date().toISOString() });
    await advance(3_000);
    expect(pairingPosts()).toHaveLength(2);
    expect(text('.kiosk-pairing-code')).toBe('AB12-CD34');
    pollStatus = () => json({ detail: 'Appairage introuvable.' }, 404);
    await advance(3_000);
    expect(pairingPosts()).toHaveLength(3);
  });

  it('says why when no code can be had, and asks again by itself', async () => {
    handler = (call) =>
      call.method === 'POST'
        ? json({ detail: 'Trop de demandes d’appairage : réessayez dans quelques minutes.' }, 429, {
            'retry-after': '60',
          })
        : server(call);
    await render();
    expect(text('.kiosk-unavailable')).toBe('Trop de demandes d’appairage : réessayez dans quelques minutes.');
    handler = server;
    await advance(60_000);
    expect(text('.kiosk-pairing-code')).toBe('K7QH-4MZP');
  });

  it('polls nothing while hidden; visible again, it polls at once, or asks a new code if this one expired', async () => {
    await render();
    await advance(3_000);
    expect(polls()).toHaveLength(1);
    setHidden(true);
    await advance(3 * 60_000);
    expect(polls()).toHaveLength(1);
    setHidden(false);
    await settle();
    expect(polls()).toHaveLength(2);
    await advance(3_000);
    expect(polls()).toHaveLength(3);
    // Hidden past the code's 10 minutes: back in view, a new code rather than a poll of the dead one.
    setHidden(true);
    await advance(11 * 60_000);
    expect(polls()).toHaveLength(3);
    expect(pairingPosts()).toHaveLength(1);
    setHidden(false);
    await settle();
    expect(polls()).toHaveLength(3);
    expect(pairingPosts()).toHaveLength(2);
    expect(text('.kiosk-pairing-code')).toBe('AB12-CD34');
  });

  it('once approved, stores the credential and starts the wall with it', async () => {
    await render();
    pollStatus = () => json({ status: 'approved', token: TOKEN, display: display() });
    await advance(3_000);
    expect(await kvGet(DISPLAY_CREDENTIAL_KEY)).toEqual({ token: TOKEN, display: display() });
    expect(title()).toBe('Vulnérabilités — Alpha');
    const meCall = calls.find((c) => c.url.pathname === '/api/displays/me/')!;
    expect(meCall.headers.authorization).toBe(`Display ${TOKEN}`);
    expect(
      panelCalls()
        .map((c) => c.url.pathname)
        .sort(),
    ).toEqual(['/api/threats/summary/', '/api/vulnerabilities/summary/']);
    // No more polling once paired.
    const before = polls().length;
    await advance(30_000);
    expect(polls()).toHaveLength(before);
  });
});

describe('a paired screen', () => {
  it('sends its own credential and tenant on every read, never a person’s token or cookies', async () => {
    await paired();
    expect(panelCalls().length).toBeGreaterThan(0);
    for (const c of [...panelCalls(), calls.find((x) => x.url.pathname === '/api/displays/me/')!]) {
      expect(c.headers.authorization).toBe(`Display ${TOKEN}`);
      expect(c.headers['x-tenant-id']).toBe('t1');
      expect(c.headers['x-csrftoken']).toBeUndefined();
      expect(c.credentials).toBe('omit');
    }
    expect($('.kiosk-name')!.textContent).toBe('Mur du SOC');
    // No way back to an app this screen is not signed in to.
    expect([...view.container.querySelectorAll('a')].some((a) => a.textContent === 'Quitter le kiosque')).toBe(false);
  });

  it('applies the configuration read from /me/: panel order, theme, text size, rotation', async () => {
    me = () =>
      json({
        display: display({ panels: ['overdue', 'kev', 'act'], theme: 'light', text_size: 'xlarge', rotation_s: 10 }),
      });
    await paired();
    const root = $('.kiosk')!;
    expect(root.classList.contains('theme-light')).toBe(true);
    expect(root.classList.contains('kiosk-text-xlarge')).toBe(true);
    expect(steps()).toEqual(['Actions en retard', 'Exploitées (KEV)', 'À traiter maintenant']);
    // One tenant: no tenant list, its name in the title.
    expect(tenantSteps()).toEqual([]);
    expect(title()).toBe('Actions en retard — Alpha');
    expect(text('[data-panel="overdue"]')).toContain('7En retard');
    await advance(10_000);
    expect(title()).toBe('Exploitées (KEV) — Alpha');
    const kev = calls.find((c) => c.url.searchParams.get('kev') === 'true')!;
    expect(Object.fromEntries(kev.url.searchParams)).toEqual({
      kev: 'true',
      is_resolved: 'false',
      ordering: '-cvss_score',
      page_size: '10',
    });
    expect(text('[data-panel="kev"]')).toContain('CVE-2024-3400');
    await advance(10_000);
    expect(title()).toBe('À traiter maintenant — Alpha');
    const actCall = calls.find((c) => c.url.searchParams.get('ssvc') === 'act')!;
    expect(Object.fromEntries(actCall.url.searchParams)).toEqual({
      ssvc: 'act',
      is_resolved: 'false',
      ordering: '-cvss_score',
      page_size: '10',
    });
    expect(text('[data-panel="act"] [data-figure]')).toBe('4');
  });

  it('shows the risk heat map and the team’s last events, read with its credential', async () => {
    const wall = display({ panels: ['risks', 'events'] });
    me = () => json({ display: wall });
    await paired(wall);
    const read = (path: string) => panelCalls().find((c) => c.url.pathname === path);
    expect(read('/api/dashboard/risks/')?.headers.authorization).toBe(`Display ${TOKEN}`);
    expect(read('/api/dashboard/events/')?.headers.authorization).toBe(`Display ${TOKEN}`);
    expect(title()).toBe('Carte des risques — Alpha');
    const cell = (caption: string, likelihood: number, impact: number) =>
      [...view.container.querySelectorAll('.rm-matrix')]
        .find((t) => t.querySelector('caption')?.textContent === caption)
        ?.querySelector(`td[data-likelihood="${likelihood}"][data-impact="${impact}"] .rm-count`)?.textContent;
    expect(cell('Risque initial', 4, 4)).toBe('3');
    expect(cell('Risque initial', 2, 3)).toBe('2');
    expect(cell('Risque initial', 1, 1)).toBe('0');
    expect(cell('Risque résiduel (après traitement)', 1, 2)).toBe('5');
    expect(text('.kiosk-figures')).toContain('Risques ouverts');

    await advance(30_000);
    expect(title()).toBe('Dernières alertes — Alpha');
    const rows = [...view.container.querySelectorAll('.kiosk-event')].map((li) => li.textContent?.replace(/\s+/g, ' '));
    expect(rows).toEqual([
      'AvertissementMessageExercice de crise à 15 hil y a 15 min',
      'CritiqueKEVCVE-2024-3400 activement exploitée (catalogue KEV)01/06 08:05',
    ]);
  });

  it('applies a change made in « Écrans » at the next refresh', async () => {
    await paired();
    expect(steps()).toEqual(['Vulnérabilités', 'Menaces']);
    expect($('.kiosk')!.classList.contains('theme-dark')).toBe(true);
    me = () => json({ display: display({ panels: ['threats', 'overview'], theme: 'light', text_size: 'large' }) });
    await advance(60_000);
    expect(steps()).toEqual(['Menaces', 'Vue d’ensemble']);
    expect($('.kiosk')!.classList.contains('theme-light')).toBe(true);
    expect($('.kiosk')!.classList.contains('kiosk-text-large')).toBe(true);
    expect(text('[data-panel="threats"]')).toContain('Menaces');
    // Kept for a start without the server.
    expect(((await kvGet(DISPLAY_CREDENTIAL_KEY)) as DisplayCredential).display.panels).toEqual([
      'threats',
      'overview',
    ]);
  });

  it('keeps its last configuration when /me/ fails', async () => {
    me = () => {
      throw new TypeError('Failed to fetch');
    };
    await paired(display({ panels: ['kev'] }));
    await advance(60_000);
    expect(calls.filter((c) => c.url.pathname === '/api/displays/me/')).toHaveLength(2);
    expect(steps()).toEqual([]);
    expect(title()).toBe('Exploitées (KEV) — Alpha');
    expect(text('[data-panel="kev"]')).toContain('CVE-2024-3400');
    expect(await kvGet(DISPLAY_CREDENTIAL_KEY)).toEqual({ token: TOKEN, display: display({ panels: ['kev'] }) });
  });

  it('stores a renewed credential and reads with it from then on', async () => {
    me = () => json({ display: display(), renewed_token: RENEWED });
    await paired();
    expect(((await kvGet(DISPLAY_CREDENTIAL_KEY)) as DisplayCredential).token).toBe(RENEWED);
    // The panels of that same refresh already use it.
    for (const c of panelCalls()) expect(c.headers.authorization).toBe(`Display ${RENEWED}`);
    me = () => json({ display: display() });
    calls = [];
    await advance(60_000);
    expect(calls.find((c) => c.url.pathname === '/api/displays/me/')!.headers.authorization).toBe(`Display ${RENEWED}`);
  });

  it('shows each panel of each of its tenants, titled with the tenant’s name, read in that tenant', async () => {
    const two = display({
      tenants: [
        { id: 't1', name: 'Alpha' },
        { id: 't2', name: 'Beta' },
      ],
      panels: ['vulnerabilities', 'overdue'],
      rotation_s: 5,
    });
    me = () => json({ display: two });
    await paired(two);
    expect(title()).toBe('Vulnérabilités — Alpha');
    expect(tenantSteps()).toEqual(['Alpha (en cours)', 'Beta']);
    expect(steps()).toEqual(['Vulnérabilités', 'Actions en retard']);
    const tenantsOf = (path: string) =>
      panelCalls()
        .filter((c) => c.url.pathname === path)
        .map((c) => c.headers['x-tenant-id'])
        .sort();
    expect(tenantsOf('/api/vulnerabilities/summary/')).toEqual(['t1', 't2']);
    expect(tenantsOf('/api/vulnerabilities/sla-report/')).toEqual(['t1', 't2']);
    await advance(5_000);
    expect(title()).toBe('Actions en retard — Alpha');
    expect(text('[data-panel="overdue"]')).toContain('7En retard');
    await advance(5_000);
    expect(title()).toBe('Vulnérabilités — Beta');
    expect(tenantSteps()).toEqual(['Alpha', 'Beta (en cours)']);
    await advance(10_000);
    expect(title()).toBe('Vulnérabilités — Alpha');
  });

  it('forgets a revoked credential (401 on /me/) and shows a new pairing code within one refresh', async () => {
    await paired();
    expect(title()).toBe('Vulnérabilités — Alpha');
    me = () => json({ detail: 'Écran révoqué ou inconnu : appairez-le à nouveau.' }, 401);
    await advance(60_000);
    expect(title()).toBe('Appairer cet écran');
    expect(text('.kiosk-pairing-code')).toBe('K7QH-4MZP');
    expect(await kvGet(DISPLAY_CREDENTIAL_KEY)).toBeUndefined();
  });

  it('sends its client audit events with its own credential while its wall runs, anonymously once revoked', async () => {
    await paired();
    const sent = () => calls.filter((c) => c.method === 'POST' && c.url.pathname === '/api/audit/events/');
    handler = (call) =>
      call.url.pathname === '/api/audit/events/' ? json({ accepted: 1, duplicates: 0 }, 202) : server(call);
    await act(async () => {
      await audit.log('api_error', { status: 0, path: '/api/threats/summary/' }, 'error');
      await audit.flush();
    });
    expect(sent()).toHaveLength(1);
    expect(sent()[0]!.headers.authorization).toBe(`Display ${TOKEN}`);
    expect(sent()[0]!.headers['x-tenant-id']).toBe('t1');

    me = () => json({ detail: 'Écran révoqué ou inconnu : appairez-le à nouveau.', code: 'display_unknown' }, 401);
    await advance(60_000);
    expect(text('.kiosk-title')).toBe('Appairer cet écran');
    await act(async () => {
      await audit.log('api_error', { status: 0 }, 'error');
      await audit.flush();
    });
    expect(sent()).toHaveLength(2);
    expect(sent()[1]!.headers.authorization).toBeUndefined();
    await audit.clear();
  });

  it('forgets it too on a 401 from a panel', async () => {
    await paired();
    handler = (call) =>
      call.url.pathname === '/api/threats/summary/'
        ? json({ detail: 'Écran révoqué ou inconnu : appairez-le à nouveau.' }, 401)
        : server(call);
    await advance(60_000);
    expect(title()).toBe('Appairer cet écran');
    expect(await kvGet(DISPLAY_CREDENTIAL_KEY)).toBeUndefined();
  });

  it('keeps its wall on a 403 (a panel the server does not allow): the refusal stays on that panel', async () => {
    handler = (call) =>
      call.url.pathname === '/api/threats/summary/'
        ? json({ detail: 'Écran d’affichage : accès limité aux panneaux du mur.' }, 403)
        : server(call);
    await paired();
    await advance(30_000);
    expect(title()).toBe('Menaces — Alpha');
    expect(text('.kiosk-unavailable')).toContain('Écran d’affichage : accès limité aux panneaux du mur.');
    expect(await kvGet(DISPLAY_CREDENTIAL_KEY)).toBeDefined();
  });
});

describe('data age and alarms', () => {
  const clock = (at: number) => {
    const d = new Date(at);
    const two = (n: number) => String(n).padStart(2, '0');
    return { day: `${two(d.getDate())}/${two(d.getMonth() + 1)}`, time: `${two(d.getHours())}:${two(d.getMinutes())}` };
  };

  it('is quiet while fresh, amber past twice the refresh interval, red past 15 minutes, with the exact words', async () => {
    await paired(display({ panels: ['vulnerabilities'] }));
    const receivedAt = Date.now();
    const { day, time } = clock(receivedAt);
    expect($('.kiosk-alarm')).toBeNull();
    expect(text('.kiosk-age')).toBe(`Données de ${time}, à l’instant`);
    handler = () => {
      throw new TypeError('Failed to fetch');
    };
    await advance(60_000);
    expect($('.kiosk-alarm')).toBeNull();
    // Never « à l'instant » about what it did not just receive.
    expect(text('.kiosk-age')).toBe(`Données de ${time}, il y a 1 min`);
    // In French, never the client's internal word for it.
    expect(text('.kiosk-stale')).toBe('Mise à jour impossible (serveur injoignable) — dernières données affichées');
    await advance(60_000 + 15_000);
    const amber = $('.kiosk-alarm')!;
    expect(amber.classList.contains('kiosk-alarm-amber')).toBe(true);
    expect(amber.getAttribute('role')).toBe('status');
    expect(amber.textContent).toBe(`Données du ${day} à ${time} — serveur injoignable depuis 2 min`);
    await advance(10 * 60_000);
    expect(text('.kiosk-alarm')).toBe(`Données du ${day} à ${time} — serveur injoignable depuis 12 min`);
    expect($('.kiosk-alarm-amber')).not.toBeNull();
    await advance(3 * 60_000 + 15_000);
    const red = $('.kiosk-alarm')!;
    expect(red.classList.contains('kiosk-alarm-red')).toBe(true);
    expect(red.getAttribute('role')).toBe('alert');
    expect(red.textContent).toBe(`Données du ${day} à ${time} — serveur injoignable depuis 15 min`);
    expect(text('.kiosk-age')).toBe(`Données de ${time}, il y a 15 min`);
    // The server back: the bar goes at the next attempt.
    handler = server;
    await advance(120_000);
    expect($('.kiosk-alarm')).toBeNull();
    expect(text('.kiosk-age')).toMatch(/, à l’instant$/);
  });

  it('dates a kept copy by when it was kept, never « à l’instant », and raises the bar on its age', async () => {
    const storedAt = Date.now() - 20_000;
    handler = (call) => {
      const answer = server(call);
      if (call.url.pathname !== '/api/vulnerabilities/summary/') return answer;
      answer.headers.set('x-vigie-source', 'cache');
      answer.headers.set('x-vigie-stored-at', String(storedAt));
      return answer;
    };
    await paired(display({ panels: ['vulnerabilities'] }));
    const { day, time } = clock(storedAt);
    expect(text('.kiosk-age')).toBe(`Données de ${time}, il y a moins d’une minute`);
    expect($('.kiosk-alarm')).toBeNull();
    await advance(3 * 60_000);
    expect(text('.kiosk-alarm')).toBe(`Données du ${day} à ${time} — serveur injoignable depuis 3 min`);
  });

  it('never shows sample data as live: marked, no age, no alarm', async () => {
    handler = (call) => {
      const answer = server(call);
      if (call.url.pathname === '/api/vulnerabilities/summary/') answer.headers.set('x-vigie-source', 'sample');
      return answer;
    };
    await paired(display({ panels: ['vulnerabilities'] }));
    expect(text('.kiosk-sample')).toBe('Exemple — ces chiffres ne sont pas ceux de votre organisation');
    expect($('.kiosk-age')).toBeNull();
    await advance(20 * 60_000);
    expect($('.kiosk-alarm')).toBeNull();
    for (const f of view.container.querySelectorAll('[data-figure]'))
      expect(f.nextElementSibling?.textContent).toBe('exemple');
  });
});

describe('refresh of a paired screen', () => {
  it('asks nothing while hidden, and refreshes at once when visible or back online', async () => {
    await paired();
    const first = calls.length;
    expect(first).toBe(3);
    setHidden(true);
    await advance(20 * 60_000);
    expect(calls).toHaveLength(first);
    setHidden(false);
    await settle();
    expect(calls).toHaveLength(2 * first);
    act(() => {
      window.dispatchEvent(new Event('online'));
    });
    await settle();
    expect(calls).toHaveLength(3 * first);
  });

  it('backs off while the server fails', async () => {
    await paired();
    handler = () => {
      throw new TypeError('Failed to fetch');
    };
    const at = () => calls.filter((c) => c.url.pathname === '/api/displays/me/').length;
    await advance(60_000);
    const failed = at();
    await advance(5_000);
    expect(at()).toBe(failed + 1);
    await advance(9_000);
    expect(at()).toBe(failed + 1);
    await advance(1_000);
    expect(at()).toBe(failed + 2);
  });
});
