import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, securityPolicies, users } from '../../server/src/db/schema.ts';
import { signIn, TEST_PASSWORD } from './helpers.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf } from './support/world.ts';

describe(`refresh tokens (${backend})`, () => {
  const t = useTestApp();

  const refresh = (body: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: body as object });
  const me = (access: string) =>
    t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${access}` } });

  it('rotates on every use: a new pair that works, accepted as refresh or refresh_token', async () => {
    const first = await signIn(t.app, 'analyste');
    const a = await refresh({ refresh: first.refresh });
    expect(a.statusCode).toBe(200);
    const pair = a.json();
    expect(pair.refresh).not.toBe(first.refresh);
    expect(pair.access.split('.')).toHaveLength(3);
    expect(pair.expires_in).toBe(3600);
    expect((await me(pair.access)).statusCode).toBe(200);

    const b = await refresh({ refresh_token: pair.refresh });
    expect(b.statusCode).toBe(200);
  });

  it('revokes the whole family when a used refresh token comes back, and audits it', async () => {
    const first = await signIn(t.app, 'analyste');
    const second = (await refresh({ refresh: first.refresh })).json();
    const replay = await refresh({ refresh: first.refresh });
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ detail: 'Token expiré ou invalide', code: 'token_not_valid' });
    // The legitimate holder's newer token died with the family.
    expect((await refresh({ refresh: second.refresh })).statusCode).toBe(401);

    const rows = await auditEventsOf(t.database.db, { eventType: 'refresh_token_reuse' });
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows[0]!.severity).toBe('CRITICAL');
    expect(rows[0]!.tenantId).not.toBeNull();
  });

  it('lets exactly one of two concurrent uses of the same token win', async () => {
    const first = await signIn(t.app, 'analyste');
    const results = await Promise.all([refresh({ refresh: first.refresh }), refresh({ refresh: first.refresh })]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401]);
  });

  it('refuses missing, malformed and access tokens with a 4xx', async () => {
    const { access } = await signIn(t.app, 'analyste');
    const missing = await refresh({});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toHaveProperty('refresh');
    expect((await refresh({ refresh: '' })).statusCode).toBe(400);
    expect((await refresh({ refresh: 'abc' })).statusCode).toBe(401);
    expect((await refresh({ refresh: access })).statusCode).toBe(401);
    expect((await refresh({ refresh: 42 })).statusCode).toBe(400);
  });

  it('stops refreshing once the account is deactivated', async () => {
    const { refresh: token } = await signIn(t.app, 'lecteur');
    await t.database.db.update(users).set({ isActive: false }).where(eq(users.username, 'lecteur'));
    expect((await refresh({ refresh: token })).statusCode).toBe(401);
    await t.database.db.update(users).set({ isActive: true }).where(eq(users.username, 'lecteur'));
  });
});

describe(`logout (${backend})`, () => {
  const t = useTestApp();

  it.each(['/api/token/logout/', '/api/auth/logout/', '/api/logout/'])(
    '%s revokes the refresh family, is idempotent and audited',
    async (url) => {
      const s = await signIn(t.app, 'manager');
      const out = await t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${s.access}` },
        payload: { refresh: s.refresh },
      });
      expect(out.statusCode).toBe(200);
      const again = await t.app.inject({ method: 'POST', url, payload: { refresh: s.refresh } });
      expect(again.statusCode).toBe(200);
      const r = await t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: { refresh: s.refresh } });
      expect(r.statusCode).toBe(401);
      const logouts = await auditEventsOf(t.database.db, { eventType: 'user_logout' });
      expect(logouts.length).toBeGreaterThan(0);
    },
  );

  it('revokes the session named by the access token alone, or by a logout-token header', async () => {
    const a = await signIn(t.app, 'manager');
    await t.app.inject({ method: 'POST', url: '/api/logout/', headers: { authorization: `Token ${a.access}` } });
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: { refresh: a.refresh } })).statusCode,
    ).toBe(401);

    const b = await signIn(t.app, 'manager');
    await t.app.inject({ method: 'POST', url: '/api/auth/logout/', headers: { 'logout-token': b.refresh } });
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: { refresh: b.refresh } })).statusCode,
    ).toBe(401);
  });

  it('kills the access token of a logged-out session at once', async () => {
    const s = await signIn(t.app, 'manager');
    const me = () =>
      t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${s.access}` } });
    expect((await me()).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: '/api/logout/', payload: { refresh: s.refresh } });
    expect((await me()).statusCode).toBe(401);
  });

  it('leaves other sessions of the same user alive', async () => {
    const phone = await signIn(t.app, 'manager');
    const laptop = await signIn(t.app, 'manager');
    await t.app.inject({ method: 'POST', url: '/api/token/logout/', payload: { refresh: phone.refresh } });
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/token/refresh/', payload: { refresh: laptop.refresh } }))
        .statusCode,
    ).toBe(200);
  });

  it('answers 200 to an empty or garbage logout and 400 to unknown fields', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/api/logout/' })).statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/logout/', payload: { refresh: 'x.y.z' } })).statusCode,
    ).toBe(200);
    expect((await t.app.inject({ method: 'POST', url: '/api/logout/', payload: { password: 'x' } })).statusCode).toBe(
      400,
    );
  });
});

describe(`sign-in protection (${backend})`, () => {
  const t = useTestApp();

  it('rate-limits sign-in attempts per account with a clear 429, then lets a fresh account through', async () => {
    await t.database.db.update(securityPolicies).set({ loginAttemptsPerMinute: 3 });
    const attempt = (username: string, password = 'wrong') =>
      t.app.inject({ method: 'POST', url: '/api/token/', payload: { username, password } });
    for (let i = 0; i < 3; i++) expect((await attempt('analyste')).statusCode).toBe(400);
    const limited = await attempt('analyste');
    expect(limited.statusCode).toBe(429);
    expect(limited.json().detail).toMatch(/^Trop de tentatives\. Réessayez dans \d+ secondes?\.$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Even the right password waits: the limit is on attempts, not failures.
    expect((await attempt('analyste', TEST_PASSWORD)).statusCode).toBe(429);
    expect((await attempt('lecteur', TEST_PASSWORD)).statusCode).toBe(200);
    await t.database.db.update(securityPolicies).set({ loginAttemptsPerMinute: 1000 });
  });

  it('rate-limits per IP across accounts', async () => {
    await t.database.db.update(securityPolicies).set({ loginAttemptsPerMinute: 2 });
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/token/',
        remoteAddress: '203.0.113.7',
        payload: { username: `nobody-${i}`, password: 'x' },
      });
      codes.push(res.statusCode);
    }
    expect(codes.slice(0, 6)).toEqual([400, 400, 400, 400, 400, 400]);
    expect(codes.slice(6)).toEqual([429, 429]);
    await t.database.db.update(securityPolicies).set({ loginAttemptsPerMinute: 1000 });
  });

  it('audits successful and failed sign-ins with IP, browser and OS', async () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
    await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      remoteAddress: '198.51.100.20',
      headers: { 'user-agent': ua },
      payload: { username: 'manager', password: TEST_PASSWORD },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      remoteAddress: '198.51.100.20',
      headers: { 'user-agent': ua },
      payload: { username: 'manager', password: 'bad' },
    });
    const rows = await t.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.username, 'manager'), eq(auditEvents.ipAddress, '198.51.100.20')));
    const login = rows.find((r) => r.eventType === 'user_login')!;
    const failed = rows.find((r) => r.eventType === 'login_failed')!;
    expect(login.details).toMatchObject({ browser: 'Chrome 126', os: 'Linux', success: true });
    expect(login.tenantId).not.toBeNull();
    expect(failed.details).toMatchObject({ success: false });
    expect(failed.severity).toBe('WARNING');
    expect(JSON.stringify(rows)).not.toContain(TEST_PASSWORD);
  });
});

describe(`cookie authentication and CSRF (${backend})`, () => {
  const t = useTestApp();

  it('sets an HttpOnly access cookie and a readable csrftoken cookie at sign-in', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'manager', password: TEST_PASSWORD },
    });
    const cookies = res.cookies as { name: string; httpOnly?: boolean; sameSite?: string; path?: string }[];
    const access = cookies.find((c) => c.name === 'vigie_access')!;
    const csrf = cookies.find((c) => c.name === 'csrftoken')!;
    expect(access.httpOnly).toBe(true);
    expect(access.path).toBe('/api');
    expect(csrf.httpOnly).toBeFalsy();
  });

  it('reads with the cookie alone, but refuses a cookie-authenticated write without the matching X-CSRFToken', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'manager', password: TEST_PASSWORD },
    });
    const jar = Object.fromEntries((res.cookies as { name: string; value: string }[]).map((c) => [c.name, c.value]));
    const cookie = `vigie_access=${jar.vigie_access}; csrftoken=${jar.csrftoken}`;

    const read = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { cookie } });
    expect(read.statusCode).toBe(200);

    // A write route behind authentication: PATCH /api/accounts/me/ (any authenticated write shows the rule).
    const noHeader = await t.app.inject({
      method: 'PATCH',
      url: '/api/accounts/me/',
      headers: { cookie },
      payload: {},
    });
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.json()).toEqual({ detail: 'Jeton CSRF manquant ou invalide.', code: 'csrf_failed' });

    const wrong = await t.app.inject({
      method: 'PATCH',
      url: '/api/accounts/me/',
      headers: { cookie, 'x-csrftoken': 'forged' },
      payload: {},
    });
    expect(wrong.statusCode).toBe(403);

    const right = await t.app.inject({
      method: 'PATCH',
      url: '/api/accounts/me/',
      headers: { cookie, 'x-csrftoken': jar.csrftoken! },
      payload: {},
    });
    expect(right.statusCode).not.toBe(403);
  });

  it('does not ask Bearer-authenticated writes for a CSRF token', async () => {
    const { access } = await signIn(t.app, 'manager');
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/accounts/me/',
      headers: { authorization: `Bearer ${access}` },
      payload: {},
    });
    expect(res.statusCode).not.toBe(403);
  });
});

describe(`logout by the access cookie (${backend})`, () => {
  const t = useTestApp();

  /** A browser session: its cookie header, the CSRF secret and the tokens. */
  async function browser() {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'manager', password: TEST_PASSWORD },
    });
    const jar = Object.fromEntries((res.cookies as { name: string; value: string }[]).map((c) => [c.name, c.value]));
    const { access, refresh } = res.json<{ access: string; refresh: string }>();
    return {
      cookie: `vigie_access=${jar.vigie_access}; csrftoken=${jar.csrftoken}`,
      csrf: jar.csrftoken!,
      access,
      refresh,
    };
  }
  const clearsCookie = (res: { cookies: unknown }) =>
    (res.cookies as { name: string; value: string }[]).some((c) => c.name === 'vigie_access' && c.value === '');
  const stillSignedIn = (access: string) =>
    t.app
      .inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${access}` } })
      .then((r) => r.statusCode === 200);

  it.each(['/api/logout/', '/api/token/logout/', '/api/auth/logout/'])(
    '%s with the cookie alone needs X-CSRFToken, like every cookie write',
    async (url) => {
      const s = await browser();
      const forged = await t.app.inject({ method: 'POST', url, headers: { cookie: s.cookie } });
      expect(forged.statusCode).toBe(403);
      expect(forged.json()).toEqual({ detail: 'Jeton CSRF manquant ou invalide.', code: 'csrf_failed' });
      expect(clearsCookie(forged)).toBe(false);
      const wrong = await t.app.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'x-csrftoken': 'faux' } });
      expect(wrong.statusCode).toBe(403);
      expect(await stillSignedIn(s.access)).toBe(true);

      const real = await t.app.inject({ method: 'POST', url, headers: { cookie: s.cookie, 'x-csrftoken': s.csrf } });
      expect(real.statusCode).toBe(200);
      expect(clearsCookie(real)).toBe(true);
      // The cookie's session ends with it.
      expect(await stillSignedIn(s.access)).toBe(false);
    },
  );

  it('leaves a Bearer or a refresh-token logout as it was, cookie or not', async () => {
    const a = await browser();
    const bearer = await t.app.inject({
      method: 'POST',
      url: '/api/logout/',
      headers: { cookie: a.cookie, authorization: `Bearer ${a.access}` },
    });
    expect(bearer.statusCode).toBe(200);
    expect(await stillSignedIn(a.access)).toBe(false);

    const b = await browser();
    const byToken = await t.app.inject({
      method: 'POST',
      url: '/api/logout/',
      headers: { cookie: b.cookie },
      payload: { refresh: b.refresh },
    });
    expect(byToken.statusCode).toBe(200);
    expect(await stillSignedIn(b.access)).toBe(false);
  });
});
