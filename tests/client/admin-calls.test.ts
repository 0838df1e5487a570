import { describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../server/helpers.ts';
import { useVigieClient } from './harness.ts';
import { login } from '../../src/features/auth/api/login.ts';
import {
  createUser,
  deleteUser,
  editPayload,
  fetchUser,
  updateUser,
  type AdminUser,
  type UserChanges,
} from '../../src/features/users/users-api.ts';
import type { ApiError } from '../../src/lib/api-client.ts';
import { fetchHealth, fetchSystemLogs } from '../../src/features/admin/admin-api.ts';
import { serverLogs } from '../../server/src/db/schema.ts';

const { t, seen } = useVigieClient('/admin/users');

const calls = () => seen.requests.map((r) => `${r.method} ${r.path}`);
const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as ApiError);

const changesOf = (u: AdminUser): UserChanges => ({
  email: u.email,
  first_name: u.first_name,
  last_name: u.last_name,
  role: u.role,
  is_active: u.is_active,
});

let n = 0;
/** A new member of the signed-in admin's tenant, through the client's create call. */
async function newMember(role = 'user'): Promise<AdminUser> {
  n++;
  return createUser({
    username: `membre${n}`,
    email: `membre${n}@acme-securite.fr`,
    first_name: 'Membre',
    last_name: String(n),
    password: 'un-mot-de-passe-solide-2026',
    confirm_password: 'un-mot-de-passe-solide-2026',
    role,
  });
}

describe('user administration calls (spec §7) against the Vigie server', () => {
  it('creates on /admin/users/ and reads the account back by id on /admin/users/{id}/', async () => {
    await login({ username: 'admin', password: TEST_PASSWORD });
    seen.requests.length = 0;
    const created = await newMember('manager');
    expect(created).toMatchObject({ username: `membre${n}`, role: 'manager', is_active: true });
    const read = await fetchUser(created.id);
    expect(read).toMatchObject({ id: created.id, username: created.username, email: created.email, role: 'manager' });
    expect(calls()).toEqual(['POST /api/admin/users/', `GET /api/admin/users/${created.id}/`]);
  });

  it('a superuser’s role change sends the spec §6 payload and the server applies both flags', async () => {
    await login({ username: 'admin', password: TEST_PASSWORD });
    const member = await newMember();
    const before = changesOf(member);
    seen.requests.length = 0;
    const promoted = await updateUser(member.id, editPayload(before, { ...before, role: 'admin' }, true));
    expect(promoted).toMatchObject({ role: 'admin', is_superuser: true, is_staff: true });
    expect(await fetchUser(member.id)).toMatchObject({ role: 'admin', is_superuser: true, is_staff: true });
    const demoted = await updateUser(member.id, editPayload(changesOf(promoted), { ...before, role: 'user' }, true));
    expect(demoted).toMatchObject({ role: 'user', is_superuser: false, is_staff: false });
    expect(calls()).toEqual([
      `PATCH /api/admin/users/${member.id}/`,
      `GET /api/admin/users/${member.id}/`,
      `PATCH /api/admin/users/${member.id}/`,
    ]);
  });

  it('a tenant admin changes a role with the role alone; the platform flags would be refused', async () => {
    await login({ username: 'admin', password: TEST_PASSWORD });
    // A superuser making an admin makes a superuser (spec §6); this one is the tenant's admin only.
    const tenantAdmin = await newMember('admin');
    await updateUser(tenantAdmin.id, { is_superuser: false, is_staff: false });
    expect(await fetchUser(tenantAdmin.id)).toMatchObject({ role: 'admin', is_superuser: false, is_staff: false });
    const member = await newMember();
    await login({ username: tenantAdmin.username, password: 'un-mot-de-passe-solide-2026' });
    const before = changesOf(member);
    const payload = editPayload(before, { ...before, role: 'readonly', first_name: 'Relu' }, false);
    expect(payload).toEqual({ role: 'readonly', first_name: 'Relu' });
    expect(await updateUser(member.id, payload)).toMatchObject({ role: 'readonly', first_name: 'Relu' });
    const refused = await failure(updateUser(member.id, { role: 'admin', is_superuser: true, is_staff: true }));
    expect(refused!.status).toBe(403);
    expect(seen.navigations).toEqual([]);
  });

  it('field errors of a creation come back from the first path, which is not left for the next', async () => {
    await login({ username: 'admin', password: TEST_PASSWORD });
    seen.requests.length = 0;
    const err = await failure(
      createUser({
        username: 'x y',
        email: 'pas-un-email',
        first_name: '',
        last_name: '',
        password: 'un-mot-de-passe-solide-2026',
        confirm_password: 'un-mot-de-passe-solide-2026',
        role: 'user',
      }),
    );
    expect(err!.status).toBe(400);
    expect(err!.fields).toMatchObject({ username: [expect.any(String)], email: [expect.any(String)] });
    expect(calls()).toEqual(['POST /api/admin/users/']);
  });

  it('after a delete, the account is found on neither path of the chain', async () => {
    await login({ username: 'admin', password: TEST_PASSWORD });
    const member = await newMember();
    seen.requests.length = 0;
    await deleteUser(member.id);
    const err = await failure(fetchUser(member.id));
    expect(err!.status).toBe(404);
    expect(calls()).toEqual([
      `DELETE /api/admin/users/${member.id}/`,
      `GET /api/admin/users/${member.id}/`,
      `GET /api/users/${member.id}/`,
    ]);
  });
});

describe('system calls (spec §7 /system/health/, /system/logs/) against the Vigie server', () => {
  it('reads the service’s health without a session', async () => {
    const health = await fetchHealth();
    expect(health.error).toBeUndefined();
    expect(health.data).toMatchObject({ status: 'ok', database: 'ok', version: expect.any(String) });
    expect(calls()).toEqual(['GET /api/system/health/']);
  });

  it('reads the newest warnings and worse as a superuser, with the line count asked', async () => {
    const marker = `client-syslog-${Date.now()}`;
    // An hour ahead, so they come before the lines the suite's own requests log meanwhile.
    const at = (m: number) => new Date(Date.now() + 3_600_000 - m * 60_000);
    await t.database.db.insert(serverLogs).values([
      { time: at(3), level: 'info', message: `${marker} info`, context: {} },
      { time: at(2), level: 'warning', message: `${marker} warning`, statusCode: 429, context: {} },
      { time: at(1), level: 'error', message: `${marker} error`, context: { secret: 'non' } },
    ]);
    await login({ username: 'admin', password: TEST_PASSWORD });
    seen.requests.length = 0;
    const read = await fetchSystemLogs(2);
    expect(read.error).toBeUndefined();
    expect(read.data.logs.map((l) => l.message)).toEqual([`${marker} error`, `${marker} warning`]);
    expect(read.data.logs[1]).toMatchObject({ level: 'warning', status_code: 429 });
    expect(read.data.logs[0]).not.toHaveProperty('context');
    expect(read.data.total).toBeGreaterThanOrEqual(2);
    expect(calls()).toEqual(['GET /api/system/logs/']);
  });

  it('a manager is refused: an empty list with total 0 and the 403, no redirect (spec §8)', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    const read = await fetchSystemLogs();
    expect(read).toMatchObject({ data: { logs: [], total: 0 }, status: 403 });
    expect(seen.navigations).toEqual([]);
  });
});
