import { beforeEach, describe, expect, it, vi } from 'vitest';
import { json, setupScreen, signIn } from './screen-helpers.tsx';
import { TENANT } from './support/admin-fixtures.ts';
import {
  fetchAdminPermissions,
  fetchConfig,
  fetchLogs,
  fetchStatus,
  fetchTenants,
  resetTenantMemory,
  SAMPLE_TENANTS,
  updateConfig,
  createTenant,
  type StoredTenants,
} from '../../src/features/admin/admin-api.ts';
import { ADMIN_TENANTS_CACHE_KEY, clearAdminLocalData } from '../../src/features/admin/admin-local.ts';
import { ADMIN_USERS_CACHE_KEY, clearUsersLocalData } from '../../src/features/users/users-local.ts';
import {
  DELETE_MESSAGES,
  deleteUser,
  fetchUsers,
  SAMPLE_USERS,
  USERS_FORBIDDEN,
} from '../../src/features/users/users-api.ts';
import { installSignOutCleanup } from '../../src/app/app.tsx';
import { clearSession, session } from '../../src/lib/auth/session.ts';
import { FALLBACK_ADMIN_PERMISSIONS } from '../../src/lib/auth/roles.ts';
import { ApiError } from '../../src/lib/api-client.ts';
import { kvGet, kvSet } from '../../src/lib/storage.ts';

// app.tsx reaches the PWA plugin's virtual module through the layout's update prompt, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();

const paths = () => screen.calls.map((c) => `${c.method} ${c.url.pathname}`);

beforeEach(async () => {
  signIn('admin');
  resetTenantMemory();
  await clearAdminLocalData();
  await clearUsersLocalData();
});

describe('tenant list fallbacks (spec §8)', () => {
  it('primary path: the admin list, live, and written to admin_tenants_cache', async () => {
    screen.handler = (_m, url) => (url.pathname === '/api/admin/tenants/' ? json([TENANT]) : json({}, 500));
    const list = await fetchTenants();
    expect(list.source).toBe('admin');
    expect(list.origin).toEqual({ source: 'network' });
    expect(list.data.map((t) => t.name)).toEqual(['Acme']);
    expect(paths()).toEqual(['GET /api/admin/tenants/']);
    const stored = await kvGet<StoredTenants>(ADMIN_TENANTS_CACHE_KEY);
    expect(stored?.sample).toBe(false);
    expect(stored?.tenants.map((t) => t.id)).toEqual([TENANT.id]);
  });

  it('superusers may ask for the deleted ones too', async () => {
    screen.handler = () => json([TENANT]);
    await fetchTenants({ includeDeleted: true });
    expect(screen.calls[0]!.url.searchParams.get('include_deleted')).toBe('true');
  });

  it('primary fails → /tenants/, marked as the fallback path, and kept', async () => {
    screen.handler = (_m, url) =>
      url.pathname === '/api/tenants/' ? json([{ ...TENANT, name: 'Acme (secours)' }]) : json({ detail: 'x' }, 500);
    const list = await fetchTenants();
    expect(paths()).toEqual(['GET /api/admin/tenants/', 'GET /api/tenants/']);
    expect(list.source).toBe('fallback-path');
    expect(list.data[0]!.name).toBe('Acme (secours)');
    expect((await kvGet<StoredTenants>(ADMIN_TENANTS_CACHE_KEY))?.tenants[0]!.name).toBe('Acme (secours)');
  });

  it('both fail and nothing was stored → two sample tenants seeded in admin_tenants_cache, marked sample', async () => {
    screen.handler = () => json({ detail: 'Backend down' }, 503);
    const list = await fetchTenants();
    expect(list.source).toBe('sample');
    expect(list.origin).toEqual({ source: 'sample' });
    expect(list.data).toHaveLength(2);
    expect(list.data.every((t) => t.name.startsWith('Exemple'))).toBe(true);
    expect(list.error).toBe('Backend connection failed');
    const stored = await kvGet<StoredTenants>(ADMIN_TENANTS_CACHE_KEY);
    expect(stored).toMatchObject({ sample: true, tenants: SAMPLE_TENANTS });
    // Read again: still the stored samples, still marked.
    expect((await fetchTenants()).source).toBe('sample');
  });

  it('both fail after an earlier successful read → the stored copy, marked as cached with its date', async () => {
    screen.handler = () => json([TENANT]);
    await fetchTenants();
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    const list = await fetchTenants();
    expect(list.source).toBe('local-cache');
    expect(list.origin?.source).toBe('cache');
    expect(typeof list.origin?.storedAt).toBe('number');
    expect(list.data.map((t) => t.id)).toEqual([TENANT.id]);
  });

  it('local copy unreadable → this session’s in-memory copy; nothing at all → an empty list', async () => {
    screen.handler = () => json([TENANT]);
    await fetchTenants();
    await kvSet(ADMIN_TENANTS_CACHE_KEY, 'abîmé');
    screen.handler = () => json({}, 500);
    const memory = await fetchTenants();
    expect(memory.source).toBe('memory');
    expect(memory.data.map((t) => t.id)).toEqual([TENANT.id]);

    resetTenantMemory();
    const empty = await fetchTenants();
    expect(empty).toMatchObject({ source: 'empty', data: [], origin: undefined });
    expect(empty.error).toBe('Backend connection failed');
  });

  it('tenant writes rethrow the server’s French message and fields', async () => {
    screen.handler = () =>
      json(
        {
          detail: 'Une organisation utilise déjà ce domaine.',
          code: 'duplicate_domain',
          fields: { domain: ['Une organisation utilise déjà ce domaine.'] },
        },
        409,
      );
    const err = await createTenant({ name: 'A', domain: 'acme.fr', contact_email: null, logo_url: null }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('Une organisation utilise déjà ce domaine.');
    expect((err as ApiError).fields.domain).toEqual(['Une organisation utilise déjà ce domaine.']);
  });

  it('sign-out clears admin_tenants_cache and the kept user list', async () => {
    const off = installSignOutCleanup();
    await kvSet(ADMIN_TENANTS_CACHE_KEY, { storedAt: 1, sample: false, tenants: [TENANT] });
    await kvSet(ADMIN_USERS_CACHE_KEY, { owner: '1:', storedAt: 1, users: [], count: 0 });
    await clearSession();
    await new Promise((r) => setTimeout(r, 20));
    expect(await kvGet(ADMIN_TENANTS_CACHE_KEY)).toBeUndefined();
    expect(await kvGet(ADMIN_USERS_CACHE_KEY)).toBeUndefined();
    off();
  });
});

describe('configuration, status, logs (spec §8)', () => {
  it('configuration: /admin/config/, then /system/config/, then an empty object', async () => {
    screen.handler = (_m, url) =>
      url.pathname === '/api/system/config/' ? json({ version: '0.1.0' }) : json({ detail: 'Introuvable' }, 404);
    expect((await fetchConfig()).data).toEqual({ version: '0.1.0' });
    expect(paths()).toEqual(['GET /api/admin/config/', 'GET /api/system/config/']);

    screen.handler = () => json({}, 500);
    const empty = await fetchConfig();
    expect(empty.data).toEqual({});
    expect(empty.error).toBe('Backend connection failed');
  });

  it('a refusal stops the chain: no fallback path is asked', async () => {
    screen.calls.length = 0;
    screen.handler = () => json({ detail: 'Vous n’avez pas les autorisations nécessaires' }, 403);
    const read = await fetchStatus();
    expect(read).toMatchObject({ data: {}, status: 403 });
    expect(paths()).toEqual(['GET /api/admin/status/']);
  });

  it('status: /admin/status/, then /system/status/, then an empty object', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    const read = await fetchStatus();
    expect(read.data).toEqual({});
    expect(paths()).toEqual(['GET /api/admin/status/', 'GET /api/system/status/']);
  });

  it('logs: the filters are sent; a failure gives an empty list with total 0', async () => {
    screen.handler = (_m, url) =>
      url.pathname === '/api/admin/logs/'
        ? json({ logs: [{ id: 1, time: '2026-05-04T09:12:31.402Z', level: 'info', message: 'GET /' }], total: 1 })
        : json({}, 404);
    const ok = await fetchLogs({ level: 'error', page: 2, page_size: 25 });
    expect(ok.data.total).toBe(1);
    expect(Object.fromEntries(screen.calls[0]!.url.searchParams)).toEqual({
      level: 'error',
      page: '2',
      page_size: '25',
    });

    screen.handler = () => json({}, 500);
    const failed = await fetchLogs({});
    expect(failed.data).toEqual({ logs: [], total: 0 });
    expect(paths().slice(-2)).toEqual(['GET /api/admin/logs/', 'GET /api/logs/']);
  });

  it('a configuration update error is rethrown with the field messages', async () => {
    screen.handler = () =>
      json(
        {
          detail: '« backup_retention_count » doit être un entier entre 1 et 365.',
          fields: { backup_retention_count: ['« backup_retention_count » doit être un entier entre 1 et 365.'] },
        },
        400,
      );
    await expect(updateConfig({ backup_retention_count: 0 })).rejects.toMatchObject({
      status: 400,
      message: '« backup_retention_count » doit être un entier entre 1 et 365.',
    });
  });
});

describe('admin permissions (spec §6)', () => {
  it('read from /admin/permissions/', async () => {
    screen.handler = () => json({ is_superuser: false, is_staff: false, permissions: ['view_user'], groups: [] });
    const read = await fetchAdminPermissions();
    expect(read.assumed).toBe(false);
    expect(read.data.permissions).toEqual(['view_user']);
  });

  it('unreadable on every path → the UI-only fallback, said to be assumed', async () => {
    screen.handler = () => json({}, 404);
    const read = await fetchAdminPermissions();
    expect(paths()).toEqual([
      'GET /api/admin/permissions/',
      'GET /api/accounts/permissions/',
      'GET /api/custom_admin/permissions/',
    ]);
    expect(read.assumed).toBe(true);
    expect(read.data).toEqual(FALLBACK_ADMIN_PERMISSIONS);
  });

  it('a 403 is an answer, not an outage: no assumed rights', async () => {
    screen.handler = () => json({ detail: 'Refusé.' }, 403);
    const read = await fetchAdminPermissions();
    expect(read.assumed).toBe(false);
    expect(read.status).toBe(403);
    expect(read.data.is_superuser).toBe(false);
  });
});

describe('user list and delete (spec §8 "Users")', () => {
  const user = {
    id: 5,
    username: 'bob',
    email: 'bob@example.fr',
    first_name: 'Bob',
    last_name: 'Martin',
    is_active: true,
    role: 'user',
    last_login: null,
  };

  it('keeps the list read, and shows it when the list later fails', async () => {
    screen.handler = () => json({ count: 1, results: [user] });
    expect((await fetchUsers()).users).toEqual([user]);
    screen.handler = () => json({}, 500);
    const list = await fetchUsers();
    expect(list.origin.source).toBe('cache');
    expect(list.users).toEqual([user]);
    expect(list.error).toBe('Backend connection failed');
  });

  it('nothing kept → sample users, marked sample, after every list path was tried', async () => {
    screen.handler = () => json({}, 500);
    const list = await fetchUsers();
    expect(list.origin).toEqual({ source: 'sample' });
    expect(list.users).toEqual(SAMPLE_USERS);
    expect(paths()).toEqual([
      'GET /api/admin/users/',
      'GET /api/users/',
      'GET /api/accounts/users/',
      'GET /api/accounts/admin/users/',
    ]);
  });

  it('a 403 is not papered over: the spec §6 message, no fallback', async () => {
    screen.handler = () => json({ detail: 'Refusé' }, 403);
    await expect(fetchUsers()).rejects.toMatchObject({ status: 403, message: USERS_FORBIDDEN });
    expect(screen.calls).toHaveLength(1);
  });

  it('delete: the server’s detail on a refusal, the spec §8 message without one, and without a token', async () => {
    screen.handler = () => json({ detail: 'Vous ne pouvez pas supprimer ce compte.' }, 403);
    await expect(deleteUser(5)).rejects.toThrow('Vous ne pouvez pas supprimer ce compte.');
    screen.handler = () => new Response('', { status: 403 });
    await expect(deleteUser(5)).rejects.toThrow(DELETE_MESSAGES.denied);
    session.value = null;
    await expect(deleteUser(5)).rejects.toThrow(DELETE_MESSAGES.noToken);
  });

  it('delete falls back to /users/{id}/ when the admin path is unknown', async () => {
    screen.handler = (_m, url) =>
      url.pathname === '/api/users/5/' ? new Response(null, { status: 204 }) : json({}, 404);
    await deleteUser(5);
    expect(paths()).toEqual(['DELETE /api/admin/users/5/', 'DELETE /api/users/5/']);
  });
});
