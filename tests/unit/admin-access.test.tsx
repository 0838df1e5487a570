import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { navigate } from 'wouter/use-browser-location';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import { renderLayout } from './support/layout.tsx';
import { App, installTwoFactorGate, TwoFactorNotice } from '../../src/app/app.tsx';
import AdminLayout, { AdminHome } from '../../src/features/admin/admin-shell.tsx';
import { session } from '../../src/lib/auth/session.ts';
import { apiRequest, setClientEnvironment } from '../../src/lib/api-client.ts';
import { twoFactorSetupNotice } from '../../src/lib/two-factor-gate.ts';

// The layout's update prompt needs the PWA plugin's virtual module, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();

const GATE = {
  detail: 'Authentification à deux facteurs obligatoire : configurez-la pour continuer.',
  code: 'two_factor_setup_required',
  two_factor_setup_required: true,
};

const text = () => screen.container.textContent ?? '';
const navLabels = () => [...screen.container.querySelectorAll('nav.topnav a')].map((a) => a.textContent);

function withProfile(changes: Record<string, unknown>) {
  session.value = { ...session.value!, profile: { ...session.value!.profile, ...changes } };
}

/** Settles (inside act) until `ready` holds: lazy screens load in real time. */
async function until(ready: () => boolean) {
  for (let i = 0; i < 50 && !ready(); i++) await settle();
  expect(ready()).toBe(true);
}

describe('the « Administration » entry', () => {
  it.each([
    ['user', {}],
    ['manager', {}],
    ['readonly', {}],
    ['user', { is_staff: true }],
  ])('is hidden from a %s %j', async (role, flags) => {
    signIn(role);
    withProfile(flags);
    await renderLayout(screen);
    expect(navLabels()).not.toContain('Administration');
    expect(navLabels()).not.toContain('Utilisateurs');
  });

  it('shows to a tenant admin, a superuser, and an admin by membership of the current tenant', async () => {
    signIn('admin');
    await renderLayout(screen);
    expect(navLabels()).toContain('Administration');
    expect(navLabels()).not.toContain('Utilisateurs');
    expect(screen.container.querySelector('nav.topnav a[href="/admin"]')).not.toBeNull();

    act(() => {
      signIn('user');
      withProfile({ is_superuser: true });
    });
    await renderLayout(screen);
    expect(navLabels()).toContain('Administration');

    act(() => {
      signIn('user');
      withProfile({
        current_tenant: { id: 't1', name: 'Acme' },
        tenant_memberships: [{ tenant_id: 't1', role: 'admin' }],
      });
    });
    await renderLayout(screen);
    expect(navLabels()).toContain('Administration');
  });
});

describe('the administration frame', () => {
  const subnav = () => [...screen.container.querySelectorAll('nav.admin-subnav a')].map((a) => a.textContent);

  it('refuses non-administrators', async () => {
    signIn('manager');
    act(() =>
      screen.root.render(
        <AdminLayout>
          <AdminHome />
        </AdminLayout>,
      ),
    );
    expect(text()).toContain('Cette partie est réservée aux administrateurs.');
    expect(screen.container.querySelector('nav.admin-subnav')).toBeNull();
  });

  it('a superuser sees every screen in the sub-navigation', async () => {
    signIn('admin');
    withProfile({ is_superuser: true });
    window.history.replaceState(null, '', '/admin');
    act(() =>
      screen.root.render(
        <AdminLayout>
          <AdminHome />
        </AdminLayout>,
      ),
    );
    expect(subnav()).toEqual([
      'Vue d’ensemble',
      'Organisations',
      'Utilisateurs',
      'Écrans',
      'Modèles',
      'Paramètres système',
      'Politiques de sécurité',
      'Permissions',
      'Configuration',
      'Journaux serveur',
      'Sauvegardes',
      'État du système',
    ]);
    expect(screen.container.querySelector('nav.admin-subnav a[aria-current="page"]')!.textContent).toBe(
      'Vue d’ensemble',
    );
  });

  it('a tenant admin does not see the platform screens, and is told so on one', async () => {
    signIn('admin');
    window.history.replaceState(null, '', '/admin/logs');
    act(() =>
      screen.root.render(
        <AdminLayout>
          <p>journaux</p>
        </AdminLayout>,
      ),
    );
    expect(subnav()).not.toContain('Journaux serveur');
    expect(subnav()).not.toContain('État du système');
    expect(subnav()).not.toContain('Sauvegardes');
    expect(subnav()).toContain('Modèles');
    expect(subnav()).toContain('Organisations');
    expect(text()).toContain('Cet écran est réservé aux superutilisateurs.');
    expect(text()).not.toContain('journaux');
  });
});

describe('the console’s routes in the app', () => {
  it('each screen loads lazily inside the frame, which stays while moving between screens', async () => {
    signIn('admin');
    withProfile({ is_superuser: true });
    screen.handler = (_m, url) => (url.pathname === '/api/admin/tenants/' ? json([]) : json({}));
    window.history.replaceState(null, '', '/admin');
    act(() => screen.root.render(<App />));
    await until(() => text().includes('Vous administrez toute la plateforme.'));
    const frame = screen.container.querySelector('nav.admin-subnav');
    expect(frame).not.toBeNull();
    expect(screen.container.querySelector('nav.topnav a[aria-current="page"]')!.textContent).toBe('Administration');

    act(() => navigate('/admin/tenants'));
    await until(() => text().includes('Aucune organisation.'));
    expect(screen.container.querySelector('nav.admin-subnav')).toBe(frame);
    expect(screen.container.querySelector('nav.admin-subnav a[aria-current="page"]')!.textContent).toBe(
      'Organisations',
    );
  });

  it('refuses a signed-in non-administrator', async () => {
    signIn('user');
    window.history.replaceState(null, '', '/admin/tenants');
    act(() => screen.root.render(<App />));
    await until(() => text().includes('Cette partie est réservée aux administrateurs.'));
    expect(screen.calls.some((c) => c.url.pathname.startsWith('/api/admin/'))).toBe(false);
  });
});

describe('2FA required by policy (403 two_factor_setup_required)', () => {
  it('shows the message and goes to the 2FA setup, without signing out or redirecting to sign-in', async () => {
    signIn('user');
    const go = vi.fn();
    const pageNavigate = vi.fn();
    setClientEnvironment({ navigate: pageNavigate, pathname: () => '/projects' });
    const off = installTwoFactorGate(go);
    screen.handler = (_m, url) => (url.pathname === '/api/users/me/' ? json({ id: 1 }) : json(GATE, 403));
    window.history.replaceState(null, '', '/projects');

    await expect(apiRequest('/projects/')).rejects.toThrow(GATE.detail);
    // Even where a 403 is an expected answer of the screen.
    await expect(apiRequest('/admin/users/', { allowForbidden: true })).rejects.toThrow(GATE.detail);
    expect(go).toHaveBeenCalledWith('/settings');
    expect(twoFactorSetupNotice.value).toBe(GATE.detail);
    await new Promise((r) => setTimeout(r, 150));
    expect(pageNavigate).not.toHaveBeenCalled();
    expect(session.value).not.toBeNull();

    act(() => screen.root.render(<TwoFactorNotice />));
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toContain(GATE.detail);
    expect(screen.container.querySelector('a')!.getAttribute('href')).toBe('/settings');

    // An open path (the profile) proves nothing; a gated one answering means 2FA is on.
    await apiRequest('/users/me/');
    expect(twoFactorSetupNotice.value).toBe(GATE.detail);
    screen.handler = () => json([]);
    await act(async () => {
      await apiRequest('/projects/');
    });
    expect(twoFactorSetupNotice.value).toBeNull();
    await settle();
    expect(screen.container.querySelector('[role="alert"]')).toBeNull();
    off();
  });

  it('in the app: a gated screen leads to the settings, and navigation works again after setup', async () => {
    signIn('user');
    let enabled = false;
    screen.handler = (method, url) => {
      const p = url.pathname;
      if (p === '/api/accounts/2fa/status/') return json({ enabled });
      if (p === '/api/accounts/2fa/enable/')
        return json({ secret: 'ABCDEF', otpauth_url: 'otpauth://x', enabled: false });
      if (p === '/api/accounts/2fa/verify/') {
        enabled = true;
        return json({ enabled: true });
      }
      if (!enabled) return json(GATE, 403);
      if (p === '/api/projects/') return json({ count: 0, next: null, previous: null, results: [] });
      return method === 'GET' ? json({}) : json({});
    };
    window.history.replaceState(null, '', '/projects');
    act(() => screen.root.render(<App />));
    await until(() => window.location.pathname === '/settings' && text().includes('Activer'));
    expect(text()).toContain(GATE.detail);
    expect(text()).toContain('Double authentification');
    expect(session.value).not.toBeNull();

    const activate = [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Activer')!;
    act(() => activate.click());
    await settle();
    const code = screen.container.querySelector<HTMLInputElement>('#tfa-code')!;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(code, '123456');
      code.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => void code.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(text()).toContain('Double authentification activée.');

    act(() => navigate('/projects'));
    await until(() => twoFactorSetupNotice.value === null && !!screen.container.querySelector('h1'));
    await settle();
    expect(window.location.pathname).toBe('/projects');
    expect(twoFactorSetupNotice.value).toBeNull();
    expect(text()).not.toContain(GATE.detail);
  });
});
