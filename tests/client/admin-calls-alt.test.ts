import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetClientState, useClient, type Observed } from './harness.ts';
import { useStubBackend } from './stub-backend.ts';
import { saveSession } from '../../src/lib/auth/session.ts';
import type { ApiError } from '../../src/lib/api-client.ts';
import { createUser, deleteUser, fetchUser, fetchUsers, updateUser } from '../../src/features/users/users-api.ts';

type Handler = (body: Record<string, unknown>) => { status: number; json?: unknown };

/**
 * A DRF-style backend: no /api/admin/users/ at all, the accounts under /api/users/ and /api/users/{id}/ (the
 * second step of the spec §7 chains). Each test installs its routes; anything else is a 404.
 */
let routes: Record<string, Handler> = {};
let seen: Observed;
const base = useStubBackend(({ method, path, body }) => routes[`${method} ${path}`]?.(body));

beforeEach(async () => {
  await resetClientState();
  routes = {};
  seen = useClient(base(), '/admin/users');
  await saveSession({
    tokens: { access_token: 'a.b.c', refresh_token: 'r', expires_at: Date.now() + 3_600_000 },
    profile: { id: 1, username: 'root', email: 'root@client.fr', is_active: true, is_superuser: true },
  });
});
afterEach(async () => resetClientState());

const calls = () => seen.requests.map((r) => `${r.method} ${r.path}`);
const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as ApiError);

const JEAN = {
  id: 12,
  username: 'jdupont',
  email: 'j.dupont@client.fr',
  first_name: 'Jean',
  last_name: 'Dupont',
  is_active: true,
  role: 'user',
  is_staff: false,
  is_superuser: false,
};

describe('user administration on a DRF-style backend (spec §7 fallbacks)', () => {
  it('lists on /users/ (a plain array) once /admin/users/ is unknown', async () => {
    routes['GET /api/users/'] = () => ({ status: 200, json: [JEAN] });
    const list = await fetchUsers();
    expect(list.users).toEqual([JEAN]);
    expect(calls()).toEqual(['GET /api/admin/users/', 'GET /api/users/']);
  });

  it('creates on /users/ once /admin/users/ is unknown (404)', async () => {
    const sent: unknown[] = [];
    routes['POST /api/users/'] = (body) => {
      sent.push(body);
      return { status: 201, json: { ...JEAN, id: 13, username: body.username } };
    };
    const created = await createUser({
      username: 'mdurand',
      email: 'm.durand@client.fr',
      first_name: '',
      last_name: '',
      password: 'un-mot-de-passe-solide',
      confirm_password: 'un-mot-de-passe-solide',
      role: 'user',
    });
    expect(created).toMatchObject({ id: 13, username: 'mdurand' });
    expect(sent).toHaveLength(1);
    expect(calls()).toEqual(['POST /api/admin/users/', 'POST /api/users/']);
  });

  it('creation goes down the whole list chain, then gives the first failure', async () => {
    const err = await failure(
      createUser({
        username: 'x',
        email: 'x@client.fr',
        first_name: '',
        last_name: '',
        password: 'p',
        confirm_password: 'p',
        role: 'user',
      }),
    );
    expect(err!.status).toBe(404);
    expect(calls()).toEqual([
      'POST /api/admin/users/',
      'POST /api/users/',
      'POST /api/accounts/users/',
      'POST /api/accounts/admin/users/',
    ]);
  });

  it('a refusal on the first path is the answer: the chain stops there', async () => {
    routes['POST /api/admin/users/'] = () => ({ status: 403, json: { detail: 'Refusé.' } });
    routes['POST /api/users/'] = () => ({ status: 201, json: JEAN });
    const err = await failure(
      createUser({
        username: 'x',
        email: 'x@client.fr',
        first_name: '',
        last_name: '',
        password: 'p',
        confirm_password: 'p',
        role: 'user',
      }),
    );
    expect(err!.status).toBe(403);
    expect(calls()).toEqual(['POST /api/admin/users/']);
  });

  it('reads one account on /users/{id}/', async () => {
    routes['GET /api/users/12/'] = () => ({ status: 200, json: JEAN });
    expect(await fetchUser(12)).toEqual(JEAN);
    expect(calls()).toEqual(['GET /api/admin/users/12/', 'GET /api/users/12/']);
  });

  it('changes a role on /users/{id}/ with the spec §6 payload, also when the admin path answers 405', async () => {
    const sent: unknown[] = [];
    routes['PATCH /api/admin/users/12/'] = () => ({ status: 405, json: { detail: 'Method "PATCH" not allowed.' } });
    routes['PATCH /api/users/12/'] = (body) => {
      sent.push(body);
      return { status: 200, json: { ...JEAN, ...body } };
    };
    const updated = await updateUser(12, { role: 'admin', is_superuser: true, is_staff: true });
    expect(updated).toMatchObject({ role: 'admin', is_superuser: true, is_staff: true });
    expect(sent).toEqual([{ role: 'admin', is_superuser: true, is_staff: true }]);
    expect(calls()).toEqual(['PATCH /api/admin/users/12/', 'PATCH /api/users/12/']);
  });

  it('deletes on /users/{id}/', async () => {
    routes['DELETE /api/users/12/'] = () => ({ status: 204 });
    await deleteUser(12);
    expect(calls()).toEqual(['DELETE /api/admin/users/12/', 'DELETE /api/users/12/']);
  });
});
