import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { and, count, eq, sql } from 'drizzle-orm';
import appPlugin from '../../server/src/app.ts';
import { FASTIFY_OPTIONS } from '../../server/src/build-app.ts';
import type { Database } from '../../server/src/db/client.ts';
import { auditEvents, idempotencyKeys, tenants, users } from '../../server/src/db/schema.ts';
import { TokenService } from '../../server/src/lib/tokens.ts';
import { SecretBox } from '../../server/src/lib/secret-box.ts';
import { ACCESS_COOKIE, CSRF_COOKIE, CSRF_HEADER } from '../../server/src/plugins/app/authentication.ts';
import { freshDatabase, signIn, TEST_PASSWORD, TEST_SECRET } from './helpers.ts';
import { backend, useTestApp } from './support/app.ts';

const newKey = () => randomUUID();
const replayed = (res: LightMyRequestResponse) => res.headers['idempotent-replayed'];

const rowsFor = (database: Database, key: string) =>
  database.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key));

const userCount = async (database: Database) => (await database.db.select({ n: count() }).from(users))[0]!.n;

const newUser = (name: string) => ({
  username: name,
  email: `${name}@acme-securite.fr`,
  password: 'Un-mot-de-passe-initial-42',
  first_name: 'Idem',
  last_name: 'Potent',
  role: 'user',
});

describe(`Idempotency-Key on the real routes (${backend})`, () => {
  const t = useTestApp();
  const access: Record<string, string> = {};
  beforeAll(async () => {
    for (const name of ['admin', 'analyste', 'lecteur']) access[name] = (await signIn(t.app, name)).access;
  });

  const write = (
    who: string | null,
    method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload: object | undefined,
    key?: string,
  ) =>
    t.app.inject({
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: {
        ...(who ? { authorization: `Bearer ${access[who]}` } : {}),
        ...(key !== undefined ? { 'idempotency-key': key } : {}),
      },
    });
  const createUser = (body: object, key?: string) => write('admin', 'POST', '/api/admin/users/', body, key);
  const patchMe = (who: string, body: object, key?: string) => write(who, 'PATCH', '/api/accounts/me/', body, key);
  const firstNameOf = async (username: string) =>
    (await t.database.db.select().from(users).where(eq(users.username, username)))[0]!.firstName;

  it('answers a replay with the first answer, marked Idempotent-Replayed, without running the route again', async () => {
    const key = newKey();
    const before = await userCount(t.database);
    const first = await createUser(newUser('idem_replay'), key);
    expect(first.statusCode).toBe(201);
    expect(replayed(first)).toBeUndefined();

    const second = await createUser(newUser('idem_replay'), key);
    expect(second.statusCode).toBe(201);
    expect(replayed(second)).toBe('true');
    expect(second.headers['content-type']).toMatch(/^application\/json/);
    expect(second.json()).toEqual(first.json());

    expect(await userCount(t.database)).toBe(before + 1);
    const created = await t.database.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.eventType, 'user_created'), eq(auditEvents.description, 'Utilisateur créé : idem_replay')),
      );
    expect(created).toHaveLength(1);

    // Without the key the same request is a new one, refused as a duplicate: the replay did not run it.
    const again = await createUser(newUser('idem_replay'));
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('duplicate_username');
    expect(replayed(again)).toBeUndefined();

    const [row] = await rowsFor(t.database, key);
    expect(row).toMatchObject({ state: 'done', statusCode: 201, method: 'POST', path: '/api/admin/users/' });
  });

  it('never replays one caller’s answer to another caller using the same key', async () => {
    const key = newKey();
    const mine = await patchMe('analyste', { first_name: 'Même' }, key);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().username).toBe('analyste');

    const theirs = await patchMe('lecteur', { first_name: 'Même' }, key);
    expect(theirs.statusCode).toBe(200);
    expect(replayed(theirs)).toBeUndefined();
    expect(theirs.json().username).toBe('lecteur');
    expect(await firstNameOf('lecteur')).toBe('Même');

    const rows = await rowsFor(t.database, key);
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.scopeHash)).size).toBe(2);
    // The request hash is a keyed digest over the caller and the request: equal requests of two callers hash
    // apart, and a body holding a password cannot be guessed back from the table without the server's key.
    expect(new Set(rows.map((r) => r.requestHash)).size).toBe(2);

    // And each caller still gets its own answer back.
    const mineAgain = await patchMe('analyste', { first_name: 'Même' }, key);
    expect(replayed(mineAgain)).toBe('true');
    expect(mineAgain.json().username).toBe('analyste');
  });

  it('scopes a cookie session by its user, not as an anonymous caller', async () => {
    const key = newKey();
    const viaCookie = (who: string) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/accounts/me/',
        payload: { first_name: 'Cookie' },
        headers: {
          cookie: `${ACCESS_COOKIE}=${access[who]}; ${CSRF_COOKIE}=csrf-value`,
          [CSRF_HEADER]: 'csrf-value',
          'idempotency-key': key,
        },
      });
    const mine = await viaCookie('analyste');
    expect(mine.statusCode).toBe(200);
    const theirs = await viaCookie('lecteur');
    expect(theirs.statusCode).toBe(200);
    expect(replayed(theirs)).toBeUndefined();
    expect(theirs.json().username).toBe('lecteur');
    expect(replayed(await viaCookie('analyste'))).toBe('true');
    // The scope is the user, so the same write through another of the user's sessions (or after a token
    // refresh, as the service worker's replay does) is recognised and not applied twice.
    expect(replayed(await patchMe('analyste', { first_name: 'Cookie' }, key))).toBe('true');
    expect(await rowsFor(t.database, key)).toHaveLength(2);
  });

  it('refuses a key reused for another body, path or method with 422, without running the route', async () => {
    const key = newKey();
    expect((await patchMe('analyste', { first_name: 'Premier' }, key)).statusCode).toBe(200);

    const otherBody = await patchMe('analyste', { first_name: 'Second' }, key);
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json()).toEqual({
      detail: 'Cette clé Idempotency-Key a déjà servi pour une autre requête.',
      code: 'idempotency_key_reused',
    });
    expect(await firstNameOf('analyste')).toBe('Premier');

    const otherPath = await write('analyste', 'POST', '/api/accounts/admin/create/', {}, key);
    expect(otherPath.statusCode).toBe(422);
    expect(otherPath.json().code).toBe('idempotency_key_reused');

    // The same body sent to another tenant (X-Tenant-ID) is another request too.
    const tenantIds = (await t.database.db.select({ id: tenants.id }).from(tenants)).map((r) => r.id);
    const inTenant = (tenant: string) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/accounts/me/',
        payload: { first_name: 'Camille' },
        headers: { authorization: `Bearer ${access.admin}`, 'idempotency-key': key, 'x-tenant-id': tenant },
      });
    expect((await inTenant(tenantIds[0]!)).statusCode).toBe(200);
    expect((await inTenant(tenantIds[1]!)).statusCode).toBe(422);
    expect(replayed(await inTenant(tenantIds[0]!))).toBe('true');

    const [row] = await rowsFor(t.database, key);
    expect(row).toMatchObject({ state: 'done', statusCode: 200, method: 'PATCH', path: '/api/accounts/me/' });
  });

  it('rejects a malformed key with 400 and leaves requests without a key, or reads, alone', async () => {
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(129), 'clé-accentuée-invalide', 'a,b,c,d,e,f,g,h']) {
      const res = await patchMe('analyste', { first_name: 'Jamais' }, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toEqual({ detail: 'En-tête Idempotency-Key invalide.', code: 'invalid_idempotency_key' });
    }
    expect(await firstNameOf('analyste')).not.toBe('Jamais');
    // Boundaries: 8 and 128 characters are fine.
    expect((await patchMe('analyste', { first_name: 'Huit' }, 'abcdefgh')).statusCode).toBe(200);
    expect((await patchMe('analyste', { first_name: 'Long' }, 'k'.repeat(128))).statusCode).toBe(200);

    const read = await t.app.inject({
      method: 'GET',
      url: '/api/users/me/',
      headers: { authorization: `Bearer ${access.analyste}`, 'idempotency-key': 'short' },
    });
    expect(read.statusCode).toBe(200);

    const rowsBefore = (await t.database.db.select({ n: count() }).from(idempotencyKeys))[0]!.n;
    for (const name of ['Sans', 'Clé']) {
      const res = await patchMe('analyste', { first_name: name });
      expect(res.statusCode).toBe(200);
      expect(replayed(res)).toBeUndefined();
      expect(await firstNameOf('analyste')).toBe(name);
    }
    expect((await t.database.db.select({ n: count() }).from(idempotencyKeys))[0]!.n).toBe(rowsBefore);
  });

  it('lets only one of two concurrent first attempts run', async () => {
    const key = newKey();
    const before = await userCount(t.database);
    const [a, b] = await Promise.all([createUser(newUser('idem_race'), key), createUser(newUser('idem_race'), key)]);
    expect(await userCount(t.database)).toBe(before + 1);
    const ran = [a, b].filter((r) => r.statusCode === 201 && replayed(r) === undefined);
    expect(ran).toHaveLength(1);
    const other = ran[0] === a ? b : a;
    if (other.statusCode === 409) {
      expect(other.json()).toEqual({
        detail: 'Une requête avec cette clé Idempotency-Key est déjà en cours.',
        code: 'idempotency_in_progress',
      });
    } else {
      // The winner finished before the other looked: that one is a replay.
      expect(other.statusCode).toBe(201);
      expect(replayed(other)).toBe('true');
    }
  });

  it('keeps no row for a request refused before its handler, and replays a refusal from the handler', async () => {
    const key = newKey();
    const anonymous = await write(null, 'PATCH', '/api/accounts/me/', { first_name: 'Anonyme' }, key);
    expect(anonymous.statusCode).toBe(401);
    expect(await rowsFor(t.database, key)).toHaveLength(0);

    const forbidden = await write('analyste', 'POST', '/api/admin/users/', newUser('idem_forbidden'), key);
    expect(forbidden.statusCode).toBe(403);
    expect(await rowsFor(t.database, key)).toHaveLength(0);

    const badKey = newKey();
    const invalid = await createUser({ ...newUser('idem_invalid'), email: 'pas-une-adresse' }, badKey);
    expect(invalid.statusCode).toBe(400);
    const again = await createUser({ ...newUser('idem_invalid'), email: 'pas-une-adresse' }, badKey);
    expect(again.statusCode).toBe(400);
    expect(replayed(again)).toBe('true');
    expect(again.json()).toEqual(invalid.json());
  });

  it('ignores and overwrites an answer older than 24 h', async () => {
    const key = newKey();
    expect((await createUser(newUser('idem_old'), key)).statusCode).toBe(201);
    await t.database.db
      .update(idempotencyKeys)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(idempotencyKeys.key, key));

    const late = await createUser(newUser('idem_old'), key);
    // The route ran again (and found the account it made the first time).
    expect(replayed(late)).toBeUndefined();
    expect(late.statusCode).toBe(400);
    expect(late.json().code).toBe('duplicate_username');

    const rows = await rowsFor(t.database, key);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: 'done', statusCode: 400 });
    expect(Date.now() - rows[0]!.createdAt.getTime()).toBeLessThan(3600_000);
  });

  it('stores no token, no password and no request body', async () => {
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'manager', password: TEST_PASSWORD },
      headers: { 'idempotency-key': newKey() },
    });
    expect(login.statusCode).toBe(200);
    const session = login.json<{ access: string; refresh: string }>();
    // Credential endpoints ignore the key: a second sign-in is a new sign-in, not a replay of tokens.
    expect(replayed(login)).toBeUndefined();

    const key = newKey();
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/accounts/me/',
      payload: { first_name: 'Claire' },
      headers: { authorization: `Bearer ${session.access}`, 'idempotency-key': key },
    });
    expect(res.statusCode).toBe(200);
    expect(await rowsFor(t.database, key)).toHaveLength(1);
    expect(await createUser(newUser('idem_secret'), newKey())).toHaveProperty('statusCode', 201);

    const rows = await t.database.db.select().from(idempotencyKeys);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.some((r) => r.path.startsWith('/api/token/'))).toBe(false);
    const dump = JSON.stringify(rows);
    for (const secret of [session.access, session.refresh, ...Object.values(access), 'Un-mot-de-passe-initial-42']) {
      expect(dump).not.toContain(secret);
    }
    expect(dump).not.toMatch(/bearer/i);
    expect(dump).not.toContain(TEST_PASSWORD);
  });

  it('keeps the table out of reach of the tenant-scoped role', async () => {
    await expect(
      t.database.db.transaction(async (tx) => {
        await tx.execute(sql`set local role vigie_app`);
        await tx.execute(sql`select count(*) from idempotency_keys`);
      }),
    ).rejects.toThrow();
  });
});

describe(`Idempotency-Key with test routes (${backend})`, () => {
  let app: FastifyInstance;
  let database: Database;
  let drop: () => Promise<void>;
  let staticDir: string;
  const calls = { boom: 0, slow: 0, big: 0, text: 0, empty: 0 };
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    ({ database, drop } = await freshDatabase());
    staticDir = mkdtempSync(path.join(tmpdir(), 'vigie-idem-'));
    app = Fastify(FASTIFY_OPTIONS);
    // The real app, plus throwaway routes in the same context (so its hooks apply to them).
    await app.register(async (scope) => {
      await appPlugin(scope, {
        database,
        tokens: new TokenService(TEST_SECRET),
        secretBox: new SecretBox('test-encryption-key'),
        staticDir,
        filesDir: staticDir,
        runJobs: false,
      });
      scope.post('/api/test/boom/', async () => {
        calls.boom++;
        throw new Error('boom');
      });
      scope.post('/api/test/slow/', async () => {
        calls.slow++;
        const n = calls.slow;
        await gate;
        return { n };
      });
      scope.post('/api/test/big/', async () => {
        calls.big++;
        return { filler: 'x'.repeat(70 * 1024), n: calls.big };
      });
      scope.post('/api/test/text/', async (_request, reply) => {
        calls.text++;
        return reply.type('text/plain; charset=utf-8').send(`texte ${calls.text}`);
      });
      scope.delete('/api/test/empty/', async (_request, reply) => {
        calls.empty++;
        return reply.code(204).send();
      });
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await drop();
    rmSync(staticDir, { recursive: true, force: true });
  });

  const post = (url: string, key: string, payload: object = { a: 1 }) =>
    app.inject({ method: 'POST', url, payload, headers: { 'idempotency-key': key } });

  it('purges rows older than 24 h when a new key is taken', async () => {
    await database.db.insert(idempotencyKeys).values([
      {
        scopeHash: 'someone',
        key: 'expired-key',
        method: 'POST',
        path: '/api/x/',
        requestHash: 'h',
        state: 'done',
        attemptId: randomUUID(),
        statusCode: 201,
        createdAt: sql`now() - interval '25 hours'`,
      },
      {
        scopeHash: 'someone',
        key: 'recent-key',
        method: 'POST',
        path: '/api/x/',
        requestHash: 'h',
        state: 'done',
        attemptId: randomUUID(),
        statusCode: 201,
        createdAt: sql`now() - interval '23 hours'`,
      },
    ]);
    // First key taken by this instance: the purge runs.
    expect((await post('/api/test/slow/', newKey())).statusCode).toBe(200);
    const keys = (await database.db.select().from(idempotencyKeys)).map((r) => r.key);
    expect(keys).not.toContain('expired-key');
    expect(keys).toContain('recent-key');
  });

  it('keeps no row after a 5xx, so the retry runs again', async () => {
    const key = newKey();
    const first = await post('/api/test/boom/', key);
    expect(first.statusCode).toBe(500);
    expect(await rowsFor(database, key)).toHaveLength(0);
    const retry = await post('/api/test/boom/', key);
    expect(retry.statusCode).toBe(500);
    expect(replayed(retry)).toBeUndefined();
    expect(calls.boom).toBe(2);
  });

  it('answers 409 to a second attempt while the first is running, then replays the first answer', async () => {
    const key = newKey();
    const before = calls.slow;
    gate = new Promise((resolve) => (release = resolve));
    const first = post('/api/test/slow/', key);
    while (calls.slow === before) await new Promise((r) => setTimeout(r, 5));

    const second = await post('/api/test/slow/', key);
    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('idempotency_in_progress');
    expect((await rowsFor(database, key))[0]!.state).toBe('in_progress');

    release();
    const done = await first;
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ n: before + 1 });

    const third = await post('/api/test/slow/', key);
    expect(third.statusCode).toBe(200);
    expect(replayed(third)).toBe('true');
    expect(third.json()).toEqual({ n: before + 1 });
    expect(calls.slow).toBe(before + 1);
  });

  it('takes over a key left in_progress by an attempt that died', async () => {
    const key = newKey();
    const before = calls.slow;
    expect((await post('/api/test/slow/', key)).statusCode).toBe(200);
    // As if the process had crashed mid-request ten minutes ago.
    await database.db
      .update(idempotencyKeys)
      .set({
        state: 'in_progress',
        statusCode: null,
        responseBody: null,
        createdAt: sql`now() - interval '10 minutes'`,
      })
      .where(eq(idempotencyKeys.key, key));
    const retry = await post('/api/test/slow/', key);
    expect(retry.statusCode).toBe(200);
    expect(replayed(retry)).toBeUndefined();
    expect(calls.slow).toBe(before + 2);
    expect((await rowsFor(database, key))[0]!.state).toBe('done');
  });

  it('replays large or non-JSON answers as their status with a JSON null, and empty answers as empty', async () => {
    const bigKey = newKey();
    const big = await post('/api/test/big/', bigKey);
    expect(big.statusCode).toBe(200);
    expect((await rowsFor(database, bigKey))[0]).toMatchObject({ state: 'done', statusCode: 200, responseBody: null });
    const bigAgain = await post('/api/test/big/', bigKey);
    expect(bigAgain.statusCode).toBe(200);
    expect(replayed(bigAgain)).toBe('true');
    expect(bigAgain.json()).toBeNull();
    expect(calls.big).toBe(1);

    const textKey = newKey();
    expect((await post('/api/test/text/', textKey)).body).toBe('texte 1');
    const textAgain = await post('/api/test/text/', textKey);
    expect(textAgain.statusCode).toBe(200);
    expect(textAgain.headers['content-type']).toMatch(/^application\/json/);
    expect(textAgain.json()).toBeNull();
    expect(calls.text).toBe(1);

    const emptyKey = newKey();
    const del = () =>
      app.inject({ method: 'DELETE', url: '/api/test/empty/', headers: { 'idempotency-key': emptyKey } });
    expect((await del()).statusCode).toBe(204);
    const delAgain = await del();
    expect(delAgain.statusCode).toBe(204);
    expect(delAgain.body).toBe('');
    expect(replayed(delAgain)).toBe('true');
    expect(calls.empty).toBe(1);
  });
});
