import { act, type ReactElement } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, screenQueries, settle, setupScreen, setValue, signIn, withProfile } from './screen-helpers.tsx';
import { TENANT } from './support/admin-fixtures.ts';
import SystemSettingsPage from '../../src/features/admin/system-settings-page.tsx';
import SecurityPoliciesPage from '../../src/features/admin/security-page.tsx';
import TenantsPage from '../../src/features/admin/tenants-page.tsx';
import PermissionsPage from '../../src/features/admin/permissions-page.tsx';
import ConfigPage from '../../src/features/admin/config-page.tsx';
import LogsPage from '../../src/features/admin/logs-page.tsx';
import { resetTenantMemory } from '../../src/features/admin/admin-api.ts';
import { clearAdminLocalData } from '../../src/features/admin/admin-local.ts';
import { UsersPage } from '../../src/features/users/users-page.tsx';
import { clearUsersLocalData } from '../../src/features/users/users-local.ts';
import { SYSTEM_SETTINGS_DEFAULTS } from '../server/support/contract.ts';

const screen = setupScreen();

function superuser() {
  signIn('admin');
  withProfile({ is_superuser: true });
}

const render = (element: ReactElement, url = '/admin') => screen.render(element, url);

const { text, $, button, writes } = screenQueries(screen);

async function submit(form: HTMLFormElement) {
  act(() => void form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
}

beforeEach(async () => {
  resetTenantMemory();
  await clearAdminLocalData();
  await clearUsersLocalData();
});

describe('system settings', () => {
  beforeEach(() => {
    superuser();
    screen.handler = (method, _url, body) =>
      method === 'PATCH' ? json({ ...SYSTEM_SETTINGS_DEFAULTS, ...(body as object) }) : json(SYSTEM_SETTINGS_DEFAULTS);
  });

  it('one typed control per spec §3 setting', async () => {
    await render(<SystemSettingsPage />);
    expect($<HTMLInputElement>('input[name="api_timeout"]').type).toBe('number');
    expect($<HTMLInputElement>('input[name="api_timeout"]').min).toBe('1');
    expect($<HTMLInputElement>('input[name="api_timeout"]').max).toBe('300');
    expect($<HTMLInputElement>('input[name="debug_mode"]').type).toBe('checkbox');
    expect($<HTMLSelectElement>('select[name="environment"]').value).toBe('development');
    expect($<HTMLSelectElement>('select[name="log_level"]').options).toHaveLength(5);
    for (const key of Object.keys(SYSTEM_SETTINGS_DEFAULTS)) expect($(`[name="${key}"]`), key).not.toBeNull();
  });

  it('shows a wrong value next to its field and sends nothing', async () => {
    await render(<SystemSettingsPage />);
    const timeout = $<HTMLInputElement>('input[name="api_timeout"]');
    act(() => setValue(timeout, '0'));
    await submit($<HTMLFormElement>('form'));
    expect(timeout.getAttribute('aria-invalid')).toBe('true');
    const message = document.getElementById(timeout.getAttribute('aria-describedby')!)!;
    expect(message.textContent).toBe('Délai des requêtes API : un entier entre 1 et 300 (secondes) est attendu.');
    expect($('[role="alert"]').textContent).toContain('corrigez les champs signalés');
    expect(writes()).toHaveLength(0);
  });

  it('sends only what changed, and shows the server’s field errors', async () => {
    await render(<SystemSettingsPage />);
    screen.handler = () =>
      json(
        {
          detail: '« timezone » doit être un fuseau horaire IANA.',
          code: 'validation_error',
          fields: { log_retention_days: ['« log_retention_days » doit être un entier entre 1 et 3650 (jours).'] },
        },
        400,
      );
    act(() => setValue($<HTMLInputElement>('input[name="log_retention_days"]'), '90'));
    await submit($<HTMLFormElement>('form'));
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.body).toEqual({ log_retention_days: 90 });
    const field = $<HTMLInputElement>('input[name="log_retention_days"]');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(text()).toContain('« log_retention_days » doit être un entier entre 1 et 3650 (jours).');
    expect(text()).toContain('« timezone » doit être un fuseau horaire IANA.');
  });

  it('warns clearly before maintenance mode is switched on', async () => {
    await render(<SystemSettingsPage />);
    expect(text()).not.toContain('Attention : mode maintenance.');
    act(() => $<HTMLInputElement>('input[name="maintenance_mode"]').click());
    expect(text()).toContain('Attention : mode maintenance.');
    expect(text()).toContain('sauf aux administrateurs');
    await submit($<HTMLFormElement>('form'));
    expect(writes()[0]!.body).toEqual({ maintenance_mode: true });
    expect(text()).toContain('Mode maintenance actif.');
  });

  it('tenant admins read without editing', async () => {
    signIn('admin');
    await render(<SystemSettingsPage />);
    expect(text()).toContain('Lecture seule');
    expect([...screen.container.querySelectorAll('fieldset')].every((f) => f.disabled)).toBe(true);
    expect(button('Enregistrer')).toBeUndefined();
  });
});

describe('security policies', () => {
  it('2FA per role as checkboxes, sent in the server’s order', async () => {
    superuser();
    screen.handler = (method, _url, body) =>
      json({
        password_min_length: 8,
        password_require_uppercase: false,
        password_require_lowercase: false,
        password_require_digit: false,
        password_require_symbol: false,
        login_attempts_per_minute: 10,
        two_factor_required_roles: ['manager'],
        session_lifetime_minutes: 10080,
        lockout_threshold: 10,
        lockout_minutes: 15,
        allow_registration: true,
        updated_at: null,
        ...(method === 'PATCH' && typeof body === 'object' && body !== null ? body : {}),
      });
    await render(<SecurityPoliciesPage />);
    act(() => $<HTMLInputElement>('input[name="two_factor_required_roles.admin"]').click());
    expect(text()).toContain('Vous êtes concerné');
    await submit($<HTMLFormElement>('form'));
    expect(writes()[0]!.body).toEqual({ two_factor_required_roles: ['admin', 'manager'] });
    expect(text()).toContain('Modifications enregistrées.');
  });
});

describe('tenants', () => {
  beforeEach(() => {
    superuser();
    screen.handler = (method) => (method === 'DELETE' ? new Response(null, { status: 204 }) : json([TENANT]));
  });

  it('lists name, domain, plan, status and user count', async () => {
    await render(<TenantsPage />, '/admin/tenants');
    const cells = [...$('tbody tr').querySelectorAll('td')].map((td) => td.textContent);
    expect(cells.slice(0, 6)).toEqual(['Acme', 'acme.fr', 'Entreprise', 'Active', '7', '01/05/2025']);
  });

  it('deletes only once the domain is typed back, and sends it as the confirmation', async () => {
    await render(<TenantsPage />, '/admin/tenants');
    act(() => $<HTMLButtonElement>('button[data-action="delete"]').click());
    const confirm = button('Supprimer définitivement de la liste');
    expect(confirm.disabled).toBe(true);
    const input = $<HTMLInputElement>('.admin-danger input');
    act(() => setValue(input, 'acme.com'));
    expect(confirm.disabled).toBe(true);
    act(() => setValue(input, ' ACME.fr '));
    expect(confirm.disabled).toBe(false);
    act(() => confirm.click());
    await settle();
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.method).toBe('DELETE');
    expect(writes()[0]!.url.pathname).toBe(`/api/admin/tenants/${TENANT.id}/`);
    expect(writes()[0]!.body).toEqual({ confirm: 'ACME.fr' });
    expect(text()).toContain('Organisation « Acme » supprimée (restaurable).');
  });

  it('shows the server’s refusal of a delete', async () => {
    await render(<TenantsPage />, '/admin/tenants');
    screen.handler = () =>
      json({ detail: 'Confirmation requise : saisissez le domaine.', code: 'confirmation_required' }, 400);
    act(() => $<HTMLButtonElement>('button[data-action="delete"]').click());
    act(() => setValue($<HTMLInputElement>('.admin-danger input'), 'acme.fr'));
    act(() => button('Supprimer définitivement de la liste').click());
    await settle();
    expect($('.admin-danger [role="alert"]').textContent).toBe('Confirmation requise : saisissez le domaine.');
  });

  it('restores a deleted tenant (superusers, with the deleted ones shown)', async () => {
    screen.handler = (method) =>
      method === 'POST' ? json(TENANT) : json([{ ...TENANT, deleted_at: '2026-01-01T00:00:00Z' }]);
    await render(<TenantsPage />, '/admin/tenants?deleted=1');
    expect(screen.calls[0]!.url.searchParams.get('include_deleted')).toBe('true');
    expect(text()).toContain('Supprimée');
    act(() => $<HTMLButtonElement>('button[data-action="restore"]').click());
    await settle();
    expect(writes()[0]!.url.pathname).toBe(`/api/admin/tenants/${TENANT.id}/restore/`);
    expect(text()).toContain('Organisation « Acme » restaurée.');
  });

  it('checks the editor’s fields before sending, then shows the server’s', async () => {
    await render(<TenantsPage />, '/admin/tenants');
    act(() => button('Nouvelle organisation').click());
    const form = $<HTMLFormElement>('form.admin-form');
    act(() => setValue(form.querySelector<HTMLInputElement>('input[id$="-domain"]')!, 'pas un domaine'));
    await submit(form);
    expect(text()).toContain('Le nom de l’organisation est requis.');
    expect(text()).toContain('Domaine invalide');
    expect(writes()).toHaveLength(0);

    screen.handler = () =>
      json(
        {
          detail: 'Une organisation utilise déjà ce domaine.',
          fields: { domain: ['Une organisation utilise déjà ce domaine.'] },
        },
        409,
      );
    act(() => setValue(form.querySelector<HTMLInputElement>('input[id$="-name"]')!, 'Beta'));
    act(() => setValue(form.querySelector<HTMLInputElement>('input[id$="-domain"]')!, 'Beta.fr'));
    await submit(form);
    expect(writes()[0]!.body).toMatchObject({ name: 'Beta', domain: 'beta.fr', subscription_plan: 'Business' });
    expect(form.querySelector('input[id$="-domain"]')!.getAttribute('aria-invalid')).toBe('true');
  });

  it('both list paths down: the sample tenants, marked, without actions', async () => {
    screen.handler = () => json({}, 503);
    await render(<TenantsPage />, '/admin/tenants');
    expect($('caption').textContent).toBe('Exemple — ces organisations ne sont pas réelles');
    expect($('.data-origin').textContent).toBe('Données d’exemple');
    expect($('[data-source="sample"]')).not.toBeNull();
    expect(screen.container.querySelectorAll('button[data-action]')).toHaveLength(0);
  });
});

describe('users, permissions, configuration, logs', () => {
  beforeEach(() => signIn('admin'));

  it('users: sample users when the list fails, clearly marked, nothing to delete', async () => {
    screen.handler = () => json({}, 500);
    await render(<UsersPage />, '/admin/users');
    expect($('caption').textContent).toBe('Exemple — ces utilisateurs ne sont pas réels');
    expect(text()).toContain('des utilisateurs d’exemple sont affichés');
    expect(screen.container.querySelectorAll('button[data-action="delete"]')).toHaveLength(0);
  });

  it('users: delete after confirmation, with the server’s refusal shown', async () => {
    screen.handler = (method) =>
      method === 'DELETE'
        ? json({ detail: 'Vous ne pouvez pas supprimer ce compte.' }, 403)
        : json({
            count: 1,
            results: [
              { id: 5, username: 'bob', email: 'b@x.fr', first_name: '', last_name: '', is_active: true, role: 'user' },
            ],
          });
    await render(<UsersPage />, '/admin/users');
    act(() => $<HTMLButtonElement>('button[data-action="delete"]').click());
    act(() => button('Oui, supprimer').click());
    await settle();
    expect(writes()[0]!.url.pathname).toBe('/api/admin/users/5/');
    expect($('[role="alert"]').textContent).toBe('Vous ne pouvez pas supprimer ce compte.');
  });

  it('users: creates an account in the tenant named in the URL, showing the server’s field errors first', async () => {
    let attempts = 0;
    screen.handler = (method, _url, body) => {
      if (method !== 'POST') return json({ count: 0, results: [] });
      attempts++;
      if (attempts === 1)
        return json(
          {
            detail: 'Mot de passe invalide : au moins un chiffre.',
            fields: { password: ['Mot de passe invalide : au moins un chiffre.'] },
          },
          400,
        );
      return json({ id: 9, ...(body as object), is_active: true, last_login: null }, 201);
    };
    await render(<UsersPage />, `/admin/users?tenant=${TENANT.id}&name=Acme`);
    expect(text()).toContain('Organisation : Acme');
    act(() => button('Nouvel utilisateur').click());
    const form = $<HTMLFormElement>('form[aria-label="Nouvel utilisateur"]');
    setValue($<HTMLInputElement>('#new-user-username'), 'j.lemaire');
    setValue($<HTMLInputElement>('#new-user-email'), 'j.lemaire@acme.fr');
    setValue($<HTMLInputElement>('#new-user-password'), 'motdepasse');
    setValue($<HTMLInputElement>('#new-user-confirm_password'), 'motdepasse');
    await submit(form);
    expect($('#new-user-password-error').textContent).toBe('Mot de passe invalide : au moins un chiffre.');
    expect($<HTMLInputElement>('#new-user-username').value).toBe('j.lemaire');
    setValue($<HTMLInputElement>('#new-user-password'), 'motdepasse-2026');
    setValue($<HTMLInputElement>('#new-user-confirm_password'), 'motdepasse-2026');
    await submit(form);
    const posts = writes();
    expect(posts).toHaveLength(2);
    expect(posts[1]!.url.pathname).toBe('/api/admin/users/');
    expect(posts[1]!.headers?.['x-tenant-id']).toBe(TENANT.id);
    expect(text()).toContain('Utilisateur « j.lemaire » créé.');
    expect(screen.container.querySelector('[data-user-id="9"]')).not.toBeNull();
  });

  it('users: edits an account in place, sending only what changed, the role among them', async () => {
    const bob = {
      id: 5,
      username: 'bob',
      email: 'b@x.fr',
      first_name: '',
      last_name: '',
      is_active: true,
      role: 'user',
    };
    screen.handler = (method, _url, body) =>
      method === 'PATCH'
        ? json({ ...bob, ...(body as object), last_login: null })
        : json({ count: 1, results: [{ ...bob, last_login: null }] });
    await render(<UsersPage />, '/admin/users');
    act(() => $<HTMLButtonElement>('button[aria-label="Modifier : bob"]').click());
    const form = $<HTMLFormElement>('form[aria-label="Modifier l’utilisateur bob"]');
    setValue($<HTMLInputElement>('#edit-user-5-first_name'), 'Bob');
    setValue($<HTMLSelectElement>('#edit-user-5-role'), 'manager');
    await submit(form);
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.method).toBe('PATCH');
    expect(writes()[0]!.url.pathname).toBe('/api/admin/users/5/');
    expect(writes()[0]!.body).toEqual({ first_name: 'Bob', role: 'manager' });
    expect(text()).toContain('Utilisateur « bob » modifié.');
    const row = $('[data-user-id="5"]').textContent;
    expect(row).toContain('Responsable');
    expect(row).toContain('Bob');
  });

  it('users: a superuser creates an administrator account, with the spec §5 check and §8 messages', async () => {
    superuser();
    let listed = 0;
    let refuse = true;
    screen.handler = (method, url, body) => {
      if (method === 'GET') {
        listed++;
        return json({ count: 0, results: [] });
      }
      expect(url.pathname).toBe('/api/accounts/admin/create/');
      if (refuse) return json({ detail: 'Interdit' }, 403);
      return json({ id: 12, ...(body as object), role: 'admin', is_active: true }, 201);
    };
    await render(<UsersPage />, '/admin/users');
    act(() => button('Nouveau compte administrateur').click());
    const form = $<HTMLFormElement>('form[aria-label="Nouveau compte administrateur"]');
    setValue($<HTMLInputElement>('#new-admin-username'), 'rssi');
    setValue($<HTMLInputElement>('#new-admin-email'), 'rssi@acme.fr');
    setValue($<HTMLInputElement>('#new-admin-password'), 'court');
    await submit(form);
    expect(writes()).toHaveLength(0);
    expect(text()).toContain('Le mot de passe doit contenir au moins 8 caractères');
    setValue($<HTMLInputElement>('#new-admin-password'), 'motdepasse-long');
    await submit(form);
    expect(text()).toContain('Création de compte admin non autorisée');
    expect($<HTMLInputElement>('#new-admin-username').value).toBe('rssi');
    refuse = false;
    const before = listed;
    await submit(form);
    const post = writes().at(-1)!;
    expect(post.body).toMatchObject({ username: 'rssi', is_staff: true, is_superuser: true });
    expect(text()).toContain('Compte administrateur « rssi » créé.');
    // The list is read again: the new account is a member of the current organisation.
    expect(listed).toBeGreaterThan(before);
  });

  const bob = { id: 5, username: 'bob', email: 'b@x.fr', first_name: '', last_name: '', is_active: true };
  const memberAs = (role: string) => {
    signIn('user');
    withProfile({
      current_tenant: { id: TENANT.id, name: 'Acme' },
      tenant_memberships: [{ tenant_id: TENANT.id, tenant_name: 'Acme', role }],
    });
  };

  it('users: a tenant admin adds and edits members but creates no administrator account', async () => {
    screen.handler = () => json({ count: 1, results: [{ ...bob, role: 'user', last_login: null }] });
    memberAs('admin');
    await render(<UsersPage />, '/admin/users');
    expect(text()).toContain('Nouvel utilisateur');
    expect(text()).not.toContain('Nouveau compte administrateur');
    expect(screen.container.querySelector('button[aria-label="Modifier : bob"]')).not.toBeNull();
  });

  it('users: without the user permissions (a manager) the list has no action', async () => {
    screen.handler = () => json({ count: 1, results: [{ ...bob, role: 'user', last_login: null }] });
    memberAs('manager');
    await render(<UsersPage />, '/admin/users');
    expect(text()).toContain('bob');
    expect(text()).not.toContain('Nouvel utilisateur');
    expect(screen.container.querySelector('button[aria-label="Modifier : bob"]')).toBeNull();
    expect(screen.container.querySelector('button[aria-label^="Supprimer"]')).toBeNull();
  });

  it('users: one’s own row edits names and address only', async () => {
    const me = {
      id: 1,
      username: 'ana',
      email: 'a@x.fr',
      first_name: '',
      last_name: '',
      is_active: true,
      role: 'admin',
    };
    screen.handler = () => json({ count: 1, results: [{ ...me, last_login: null }] });
    await render(<UsersPage />, '/admin/users');
    act(() => $<HTMLButtonElement>('button[aria-label="Modifier : ana"]').click());
    expect(screen.container.querySelector('#edit-user-1-role')).toBeNull();
    expect(text()).toContain('Votre propre rôle et l’accès à votre compte se changent par un autre administrateur.');
  });

  it('users: a superuser’s role change sends the spec §6 payload, flags with the role, and says what it does', async () => {
    superuser();
    const carol = { ...bob, id: 7, username: 'carol', role: 'user', last_login: null };
    screen.handler = (method, _url, body) =>
      method === 'PATCH' ? json({ ...carol, ...(body as object) }) : json({ count: 1, results: [carol] });
    await render(<UsersPage />, '/admin/users');
    act(() => $<HTMLButtonElement>('button[aria-label="Modifier : carol"]').click());
    setValue($<HTMLSelectElement>('#edit-user-7-role'), 'admin');
    expect($('[role="note"]').textContent).toBe(
      'Administrateur : le compte devient aussi superutilisateur et staff, sur toute la plateforme.',
    );
    await submit($<HTMLFormElement>('form[aria-label="Modifier l’utilisateur carol"]'));
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.url.pathname).toBe('/api/admin/users/7/');
    expect(writes()[0]!.body).toEqual({ role: 'admin', is_superuser: true, is_staff: true });
    expect($('[data-user-id="7"]').textContent).toContain('Administrateur');
  });

  it('users: a superuser’s demotion sends both flags false; a tenant admin’s role change sends the role alone', async () => {
    const staff = { ...bob, id: 8, username: 'dan', role: 'manager', is_staff: true, last_login: null };
    const patched: unknown[] = [];
    screen.handler = (method, _url, body) => {
      if (method !== 'PATCH') return json({ count: 1, results: [staff] });
      patched.push(body);
      return json({ ...staff, ...(body as object) });
    };
    const changeRole = async (role: string) => {
      await render(<UsersPage />, '/admin/users');
      act(() => $<HTMLButtonElement>('button[aria-label="Modifier : dan"]').click());
      setValue($<HTMLSelectElement>('#edit-user-8-role'), role);
      await submit($<HTMLFormElement>('form[aria-label="Modifier l’utilisateur dan"]'));
    };
    superuser();
    await changeRole('readonly');
    expect(patched.at(-1)).toEqual({ role: 'readonly', is_superuser: false, is_staff: false });
    memberAs('admin');
    await changeRole('user');
    expect(patched.at(-1)).toEqual({ role: 'user' });
  });

  it('users: details read the account by id (spec §7), flags and dates included; a failure is said', async () => {
    const full = {
      ...bob,
      first_name: 'Bob',
      last_name: 'Martin',
      role: 'manager',
      is_staff: true,
      is_superuser: false,
      date_joined: '2026-01-05T08:00:00Z',
      last_login: null,
    };
    let fail = false;
    screen.handler = (_method, url) =>
      url.pathname === '/api/admin/users/5/'
        ? fail
          ? json({ detail: 'Utilisateur introuvable.' }, 400)
          : json(full)
        : json({ count: 1, results: [{ ...bob, role: 'user', last_login: null }] });
    await render(<UsersPage />, '/admin/users');
    act(() => $<HTMLButtonElement>('button[aria-label="Détails : bob"]').click());
    await settle();
    const detail = $('[data-user-detail="5"]').textContent;
    expect(screen.calls.filter((c) => c.url.pathname === '/api/admin/users/5/')).toHaveLength(1);
    expect(detail).toContain('Bob Martin');
    expect(detail).toContain('Rôle dans l’organisationResponsable');
    expect(detail).toContain('SuperutilisateurNon');
    expect(detail).toContain('StaffOui');
    expect(detail).toContain('Dernière connexionJamais');
    expect($<HTMLButtonElement>('button[aria-label="Détails : bob"]').getAttribute('aria-expanded')).toBe('true');
    act(() => $<HTMLButtonElement>('button[aria-label="Détails : bob"]').click());
    expect(screen.container.querySelector('[data-user-detail="5"]')).toBeNull();
    fail = true;
    act(() => $<HTMLButtonElement>('button[aria-label="Détails : bob"]').click());
    await settle();
    expect($('[data-user-detail="5"]').textContent).toBe('Impossible de lire ce compte : Utilisateur introuvable.');
  });

  it('users: sample rows offer no details', async () => {
    screen.handler = () => json({}, 500);
    await render(<UsersPage />, '/admin/users');
    expect(screen.container.querySelector('button[aria-label^="Détails"]')).toBeNull();
  });

  it('permissions: the spec §6 fallback is shown as assumed', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    await render(<PermissionsPage />, '/admin/permissions');
    expect($('[data-assumed="true"]').textContent).toContain('Permissions supposées.');
    expect(text()).toContain('Supprimer des utilisateurs');
  });

  it('configuration: runtime read-only view, editable keys with the server’s field error', async () => {
    superuser();
    screen.handler = (method) =>
      method === 'PATCH'
        ? json(
            {
              detail: '« backup_location » : le dossier « /nope » n’existe pas.',
              fields: { backup_location: ['« backup_location » : le dossier « /nope » n’existe pas.'] },
            },
            400,
          )
        : json({
            version: '0.1.0',
            database: { kind: 'postgres' },
            data_dir: '/var/lib/vigie',
            document_storage: { kind: 's3', bucket: 'vigie-documents', region: 'eu-west-3' },
            secrets: { jwt_secret: 'environment' },
            editable: { backup_location: null, backup_retention_count: 10 },
          });
    await render(<ConfigPage />, '/admin/config');
    expect(text()).toContain('PostgreSQL');
    expect(text()).toContain('S3 — compartiment vigie-documents (eu-west-3)');
    expect(text()).toContain('fournie par variable d’environnement');
    const form = $<HTMLFormElement>('form.admin-form');
    act(() => setValue(form.querySelector<HTMLInputElement>('input')!, '/nope'));
    await submit(form);
    expect(writes()[0]!.body).toEqual({ backup_location: '/nope', backup_retention_count: 10 });
    expect(form.querySelector('.vm-field-error')!.textContent).toBe(
      '« backup_location » : le dossier « /nope » n’existe pas.',
    );
  });

  it('configuration: an empty object when it cannot be read', async () => {
    superuser();
    screen.handler = () => json({}, 500);
    await render(<ConfigPage />, '/admin/config');
    expect(text()).toContain('Impossible de charger la configuration : Backend connection failed');
    expect(text()).toContain('Aucune configuration à afficher.');
  });

  it('logs: filters read from the URL, paged by 25, with the export buttons', async () => {
    superuser();
    screen.handler = () =>
      json({
        logs: [
          {
            id: 812,
            time: '2026-05-04T09:12:31.402Z',
            level: 'warning',
            message: 'GET /api/assets/9999/ 404',
            status_code: 404,
            response_time_ms: 3.41,
            username: 'analyste',
            context: { ip: '203.0.113.7' },
          },
        ],
        total: 60,
      });
    await render(<LogsPage />, '/admin/logs?level=warning&q=assets&page=2');
    expect(Object.fromEntries(screen.calls[0]!.url.searchParams)).toEqual({
      page: '2',
      page_size: '25',
      level: 'warning',
      q: 'assets',
    });
    expect(text()).toContain('60 lignes');
    expect(text()).toContain('Avertissement');
    expect(text()).toContain('Page 2 sur 3');
    expect(button('Exporter en CSV')).toBeDefined();
    act(() => button('Afficher').click());
    expect(text()).toContain('203.0.113.7');
  });

  it('logs: an empty list with total 0 when they cannot be read', async () => {
    superuser();
    screen.handler = () => json({}, 500);
    await render(<LogsPage />, '/admin/logs');
    expect(text()).toContain('Impossible de charger les journaux');
    expect(text()).toContain('0 lignes');
    expect(text()).toContain('Aucune ligne de journal.');
  });
});
