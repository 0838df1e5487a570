import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../src/app/app.tsx';
import OrganizationsPage from '../../src/features/organizations/organizations-page.tsx';
import { currentTenantId, session } from '../../src/lib/auth/session.ts';
import { json, screenQueries, settle, setupScreen, signIn, withProfile } from './screen-helpers.tsx';

// The layout's update prompt needs the PWA plugin's virtual module, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();
const { text, $ } = screenQueries(screen);

const MEMBER_OF_TWO = {
  tenants: [
    { id: 't2', name: 'Vernier Industrie' },
    { id: 't1', name: 'Acme Sécurité' },
  ],
  tenant_memberships: [
    { tenant_id: 't1', tenant_name: 'Acme Sécurité', role: 'manager' },
    { tenant_id: 't2', tenant_name: 'Vernier Industrie', role: 'readonly' },
  ],
  current_tenant: { id: 't1', name: 'Acme Sécurité' },
};

async function until(ready: () => boolean) {
  for (let i = 0; i < 50 && !ready(); i++) await settle();
  expect(ready()).toBe(true);
}

describe('« Mes organisations »', () => {
  it('lists each tenant with the role held there, marks the current one and switches to another', async () => {
    signIn('user');
    withProfile(MEMBER_OF_TWO);
    act(() => {
      session.value = { ...session.value!, tenantId: 't1' };
    });
    screen.handler = (_m, url) =>
      url.pathname === '/api/users/me/'
        ? json({ ...session.value!.profile, current_tenant: { id: 't2', name: 'Vernier Industrie' } })
        : json({});
    await screen.render(<OrganizationsPage />, '/tenants');

    expect($('h1').textContent).toBe('Mes organisations');
    const rows = [...screen.container.querySelectorAll('tbody tr')].map((r) => r.textContent);
    expect(rows[0]).toContain('Acme Sécurité');
    expect(rows[0]).toContain('Responsable');
    expect(rows[0]).toContain('Organisation courante');
    expect(rows[1]).toContain('Vernier Industrie');
    expect(rows[1]).toContain('Lecture seule');
    expect(text()).not.toContain('Gérer toutes les organisations');

    const choose = [...screen.container.querySelectorAll('button')].find((b) => b.textContent?.startsWith('Choisir'))!;
    await act(async () => choose.click());
    await settle();
    expect(currentTenantId()).toBe('t2');
    expect(window.location.pathname).toBe('/dashboard');
  });

  it('says so when the account belongs to no tenant, and offers a superuser the administration', async () => {
    signIn('user');
    withProfile({ tenants: [], tenant_memberships: [], is_superuser: true });
    await screen.render(<OrganizationsPage />, '/organizations');
    expect(text()).toContain("Vous n'êtes membre d'aucune organisation");
    expect($('a[href="/admin/tenants"]').textContent).toBe('Gérer toutes les organisations');
  });
});

describe('the /tenants and /organizations routes', () => {
  it.each(['/tenants', '/organizations'])('%s sends a signed-out visitor to the sign-in page', async (path) => {
    session.value = null;
    window.history.replaceState(null, '', path);
    act(() => screen.root.render(<App />));
    await until(() => window.location.pathname === '/login');
  });

  it('names where a signed-out visitor was going, so that signing in leads back there (a wall’s QR code)', async () => {
    session.value = null;
    window.history.replaceState(null, '', '/displays?code=K7QH-4MZP');
    act(() => screen.root.render(<App />));
    await until(() => window.location.pathname === '/login');
    expect(new URLSearchParams(window.location.search).get('next')).toBe('/displays?code=K7QH-4MZP');
  });

  it('lets a paired wall screen or its pairing code show at /kiosk without a session', async () => {
    session.value = null;
    window.history.replaceState(null, '', '/kiosk');
    act(() => screen.root.render(<App />));
    await new Promise((r) => setTimeout(r, 50));
    expect(window.location.pathname).toBe('/kiosk');
  });

  it.each(['/tenants', '/organizations'])('%s shows the user’s organisations when signed in', async (path) => {
    signIn('user');
    withProfile(MEMBER_OF_TWO);
    window.history.replaceState(null, '', path);
    act(() => screen.root.render(<App />));
    await until(() => text().includes('Mes organisations'));
    expect(text()).not.toContain('Page introuvable');
  });
});
