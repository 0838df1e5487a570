import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { signIn } from './helpers.ts';
import { useTestApp } from './support/app.ts';

/** Every identity endpoint that takes a body or an id. */
const ENDPOINTS: { method: 'POST' | 'PATCH' | 'DELETE' | 'GET'; url: string; auth: boolean }[] = [
  { method: 'POST', url: '/api/token/', auth: false },
  { method: 'POST', url: '/api/token/refresh/', auth: false },
  { method: 'POST', url: '/api/token/logout/', auth: false },
  { method: 'POST', url: '/api/auth/logout/', auth: true },
  { method: 'POST', url: '/api/logout/', auth: true },
  { method: 'POST', url: '/api/register/', auth: false },
  { method: 'PATCH', url: '/api/accounts/me/', auth: true },
  { method: 'POST', url: '/api/accounts/admin/create/', auth: true },
  { method: 'POST', url: '/api/accounts/2fa/enable/', auth: true },
  { method: 'POST', url: '/api/accounts/2fa/verify/', auth: true },
  { method: 'POST', url: '/api/accounts/2fa/disable/', auth: true },
  { method: 'POST', url: '/api/accounts/password/reset/', auth: false },
  { method: 'POST', url: '/api/accounts/password/reset/confirm/', auth: false },
  { method: 'POST', url: '/api/accounts/password/change/', auth: true },
  { method: 'POST', url: '/api/admin/users/', auth: true },
  { method: 'PATCH', url: '/api/admin/users/{id}/', auth: true },
  { method: 'DELETE', url: '/api/admin/users/{id}/', auth: true },
  { method: 'GET', url: '/api/admin/users/{id}/', auth: true },
];

const FIELDS = [
  'username',
  'email',
  'identifier',
  'password',
  'otp',
  'refresh',
  'refresh_token',
  'logout_token',
  'confirm_password',
  'first_name',
  'last_name',
  'role',
  'token',
  'new_password',
  'old_password',
  'is_active',
  'is_staff',
  'is_superuser',
  '__proto__',
  'constructor',
];

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), jsonValue, { maxKeys: 6 }),
  jsonValue,
  fc.string().map((s) => ({ raw: s })),
);

const pathId = fc.oneof(
  fc.integer({ min: -5, max: 100000 }).map(String),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constant('1e3'),
);

describe('random bodies on identity endpoints', () => {
  const t = useTestApp();
  let access: string;
  beforeAll(async () => {
    access = (await signIn(t.app, 'admin')).access;
  });

  it('never answer 5xx, and every error carries a detail message', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), body, pathId, fc.boolean(), async (ep, payload, id, asText) => {
        const url = ep.url.replace('{id}', id || '0');
        const raw =
          typeof payload === 'object' && payload !== null && 'raw' in payload && typeof payload.raw === 'string';
        const res = await t.app.inject({
          method: ep.method,
          url,
          headers: {
            ...(ep.auth ? { authorization: `Bearer ${access}` } : {}),
            'content-type': asText && !raw ? 'text/plain' : 'application/json',
          },
          ...(ep.method === 'GET' ? {} : { payload: raw ? (payload as { raw: string }).raw : JSON.stringify(payload) }),
        });
        expect(res.statusCode, `${ep.method} ${url} ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(typeof res.json().detail).toBe('string');
      }),
      { numRuns: 300, seed: 20261122 },
    );
  });
});
