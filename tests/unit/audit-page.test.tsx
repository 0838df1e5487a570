import { act } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import AuditPage from '../../src/features/audit/audit-page.tsx';
import type { AuditEvent } from '../../src/features/audit/audit-api.ts';
import { sampleAuditPage } from '../../src/features/audit/audit-sample.ts';
import { mayReadAudit } from '../../src/app/layout.tsx';
import { session } from '../../src/lib/auth/session.ts';

// The layout's update prompt needs the PWA plugin's virtual module, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();

function auditEvent(id: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    id,
    timestamp: '2025-06-02T08:15:00Z',
    event_type: 'configuration_change',
    user: 'marie.dupont',
    ip_address: '192.0.2.14',
    description: `Modification ${id}`,
    severity: 'WARNING',
    tenant_id: 'tenant-1',
    details: { browser: 'Firefox 139', os: 'Windows 11', success: true },
    source: 'server',
    extra: { setting: 'password_min_length', new_value: 14 },
    ...extra,
  };
}

beforeEach(() => {
  signIn('admin');
  screen.handler = () =>
    json({
      results: [auditEvent(1), auditEvent(2, { severity: 'CRITICAL', event_type: 'user_login', user: null })],
      total: 23,
      page: 1,
      size: 10,
      pages: 3,
    });
});

async function render(url: string) {
  window.history.replaceState(null, '', url);
  act(() => screen.root.render(<AuditPage />));
  await settle();
}

const reads = () => screen.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/audit/results/');
const rows = () => screen.container.querySelectorAll('tbody tr');
const text = () => screen.container.textContent ?? '';
const button = (label: string) =>
  [...screen.container.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === label)!;

function setValue(el: HTMLInputElement | HTMLSelectElement, value: string) {
  const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
  el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
}

describe('AuditPage', () => {
  it('names the application’s own event types in French, keeping unknown ones as sent', async () => {
    screen.handler = () =>
      json({
        results: [
          auditEvent(1, { event_type: 'login', source: 'frontend' }),
          auditEvent(2, { event_type: 'tenant_switch', source: 'frontend' }),
          auditEvent(3, { event_type: 'custom_thing' }),
        ],
        total: 3,
        page: 1,
        size: 10,
        pages: 1,
      });
    await render('/audit');
    const types = [...rows()].map((r) => r.querySelectorAll('td')[2]?.textContent);
    expect(types).toEqual(['Connexion (application)', 'Changement d’organisation', 'custom_thing']);
  });

  it('shows the events with French severity badges, dates and the total', async () => {
    await render('/audit');
    expect(rows()).toHaveLength(2);
    const badges = [...screen.container.querySelectorAll('tbody .audit-badge')].map((b) => b.textContent);
    expect(badges).toEqual(['Avertissement', 'Critique']);
    expect(text()).toContain('23 événements');
    expect(text()).toContain('Modification de configuration');
    expect(text()).toContain('Anonyme');
    expect(screen.container.querySelector('tbody time')!.textContent).toMatch(/^02\/06\/2025 \d\d:15:00$/);
    expect(screen.container.querySelector('.data-origin')).toBeNull();
  });

  it('reads its filters from the URL and sends them with page and size 10', async () => {
    await render(
      '/audit?event_type=user_login&severity=ERROR&user=ana&date_from=2025-06-01&date_to=2025-06-02&q=mot&page=2',
    );
    expect(Object.fromEntries(reads()[0]!.url.searchParams)).toEqual({
      page: '2',
      size: '10',
      event_type: 'user_login',
      severity: 'ERROR',
      user: 'ana',
      date_from: '2025-06-01',
      date_to: '2025-06-02',
      q: 'mot',
    });
    expect(screen.container.querySelector<HTMLInputElement>('input[name="user"]')!.value).toBe('ana');
  });

  it('writes changed filters into the URL, back at page 1, and reloads', async () => {
    await render('/audit?page=3');
    const severity = screen.container.querySelectorAll<HTMLSelectElement>('.audit-toolbar select')[1]!;
    act(() => setValue(severity, 'CRITICAL'));
    await settle();
    expect(new URLSearchParams(window.location.search).get('severity')).toBe('CRITICAL');
    expect(new URLSearchParams(window.location.search).has('page')).toBe(false);

    const form = screen.container.querySelector<HTMLFormElement>('form.audit-search')!;
    act(() => {
      setValue(form.querySelector<HTMLInputElement>('input[name="user"]')!, 'paul');
      setValue(form.querySelector<HTMLInputElement>('input[name="date_from"]')!, '2025-05-01');
      setValue(form.querySelector<HTMLInputElement>('input[name="q"]')!, 'scan');
    });
    act(() => form.requestSubmit());
    await settle();
    const last = reads().at(-1)!.url.searchParams;
    expect(Object.fromEntries(last)).toEqual({
      page: '1',
      size: '10',
      severity: 'CRITICAL',
      user: 'paul',
      date_from: '2025-05-01',
      q: 'scan',
    });
    expect(window.location.search).toContain('user=paul');
  });

  it('refuses a start date after the end date', async () => {
    await render('/audit');
    const form = screen.container.querySelector<HTMLFormElement>('form.audit-search')!;
    act(() => {
      setValue(form.querySelector<HTMLInputElement>('input[name="date_from"]')!, '2025-06-05');
      setValue(form.querySelector<HTMLInputElement>('input[name="date_to"]')!, '2025-06-01');
    });
    act(() => form.requestSubmit());
    await settle();
    expect(form.querySelector('[role="alert"]')!.textContent).toBe('La date de début doit précéder la date de fin.');
    expect(reads()).toHaveLength(1);
  });

  it('pages with the pager', async () => {
    await render('/audit');
    expect(text()).toContain('Page 1 sur 3');
    act(() => button('Suivante').click());
    await settle();
    expect(new URLSearchParams(window.location.search).get('page')).toBe('2');
    expect(reads().at(-1)!.url.searchParams.get('page')).toBe('2');
  });

  it('opens the detail panel with every field, details and extra', async () => {
    await render('/audit');
    act(() => rows()[0]!.querySelector<HTMLButtonElement>('[data-action="detail"]')!.click());
    const panel = screen.container.querySelector('.audit-detail')!;
    const terms = [...panel.querySelectorAll('dt')].map((d) => d.textContent);
    expect(terms).toEqual(
      expect.arrayContaining(['Identifiant', 'Date', 'Type', 'Gravité', 'Utilisateur', 'Adresse IP', 'Tenant']),
    );
    expect(terms).toEqual(expect.arrayContaining(['Navigateur', 'Système', 'Réussite', 'setting', 'new_value']));
    expect(panel.textContent).toContain('Firefox 139');
    expect(panel.textContent).toContain('Windows 11');
    expect(panel.textContent).toContain('Oui');
    expect(panel.textContent).toContain('password_min_length');
    expect(panel.textContent).toContain('192.0.2.14');
    act(() => button('Fermer').click());
    expect(screen.container.querySelector('.audit-detail')).toBeNull();
  });

  it.each(['csv', 'json'] as const)('says so in French when the %s export fails', async (format) => {
    const base = screen.handler;
    screen.handler = (method, url, body) =>
      url.pathname.startsWith('/api/audit/export/') ? json({ detail: 'boom' }, 500) : base(method, url, body);
    await render('/audit?severity=ERROR');
    act(() => button(`Exporter en ${format.toUpperCase()}`).click());
    await settle();
    const call = screen.calls.find((c) => c.url.pathname.startsWith('/api/audit/export/'))!;
    expect(call.url.pathname).toBe(`/api/audit/export/${format}/`);
    expect(call.url.searchParams.get('severity')).toBe('ERROR');
    expect(screen.container.querySelector('.audit-export [role="alert"]')!.textContent).toBe(
      `Impossible d'exporter les données d'audit en ${format}.`,
    );
  });

  it('shows the spec §8 generated sample, marked as such, when the read fails', async () => {
    screen.handler = () => json({ detail: 'down' }, 503);
    await render('/audit');
    expect(rows()).toHaveLength(10);
    // The figure carries the « exemple » mark beside it.
    expect(text()).toContain('42exemple événements');
    expect(text()).toContain('Page 1 sur 5');
    expect(screen.container.querySelector('.data-origin.sample')!.textContent).toBe('Données d’exemple');
    expect(screen.container.querySelector('caption')!.textContent).toContain('Exemple');
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toContain('Backend connection failed');
  });

  it('shows the sample on a network failure too, and it is deterministic', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    await render('/audit?page=2');
    expect(rows()).toHaveLength(10);
    expect(text()).toContain('Page 2 sur 5');
    expect(sampleAuditPage(2)).toEqual(sampleAuditPage(2));
    expect(new Set(sampleAuditPage(1).results.map((e) => e.event_type)).size).toBeGreaterThanOrEqual(5);
  });

  it('shows the French forbidden message on 403, and no sample', async () => {
    signIn('user');
    screen.handler = () =>
      json({ detail: "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource" }, 403);
    await render('/audit');
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource",
    );
    expect(rows()).toHaveLength(0);
    expect(screen.container.querySelector('.data-origin')).toBeNull();
    expect(text()).not.toContain('42');
  });

  it('shows cached data with its age', async () => {
    screen.handler = () =>
      json({ results: [auditEvent(1)], total: 1, page: 1, size: 10, pages: 1 }, 200, {
        'x-vigie-source': 'cache',
        'x-vigie-stored-at': String(Date.UTC(2025, 5, 2, 12, 5)),
      });
    await render('/audit');
    expect(screen.container.querySelector('.data-origin')!.textContent).toMatch(/^Données en cache du 02\/06 à/);
  });

  it('offers « Tous les tenants » to superusers only', async () => {
    await render('/audit?tenant=all');
    expect(text()).not.toContain('Tous les tenants');
    expect(reads()[0]!.url.searchParams.has('tenant')).toBe(false);
  });

  it('sends tenant=all when a superuser asks for every tenant', async () => {
    session.value = { ...session.value!, profile: { ...session.value!.profile, is_superuser: true } };
    await render('/audit');
    const toggle = [...screen.container.querySelectorAll('label')].find((l) => l.textContent === 'Tous les tenants')!;
    act(() => toggle.querySelector('input')!.click());
    await settle();
    expect(reads().at(-1)!.url.searchParams.get('tenant')).toBe('all');
    expect(screen.container.querySelector('thead')!.textContent).toContain('Tenant');
  });
});

describe('mayReadAudit', () => {
  const base = { id: 1, username: 'ana', email: 'ana@example.fr' };
  it('lets tenant admins and managers, staff and superusers read the trail', () => {
    const membership = (role: string) => ({ ...base, tenant_memberships: [{ tenant_id: 't1', role }] });
    expect(mayReadAudit(membership('admin'), 't1')).toBe(true);
    expect(mayReadAudit(membership('manager'), 't1')).toBe(true);
    expect(mayReadAudit(membership('user'), 't1')).toBe(false);
    expect(mayReadAudit(membership('readonly'), 't1')).toBe(false);
    expect(mayReadAudit({ ...membership('user'), is_staff: true }, 't1')).toBe(true);
    expect(mayReadAudit({ ...membership('readonly'), is_superuser: true }, 't1')).toBe(true);
  });
});
