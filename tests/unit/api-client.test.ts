import { beforeEach, describe, expect, it } from 'vitest';
import { apiRequest, normalizeApiPath, resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';

describe('normalizeApiPath', () => {
  it.each([
    ['/users/me/', '/api/users/me/'],
    ['users/me/', '/api/users/me/'],
    ['/api/users/me/', '/api/users/me/'],
    ['/api/api/users/me/', '/api/users/me/'],
    ['/api//api//users//me/', '/api/users/me/'],
    ['//health/', '/api/health/'],
    ['/api', '/api'],
    ['/apiary/', '/api/apiary/'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeApiPath(input)).toBe(expected);
  });
});

describe('403 per spec §4/§8: a refused action stays on its screen, a refused session is sent to sign in', () => {
  const navigated: string[] = [];
  const answer403 = (code: string) => async () =>
    new Response(JSON.stringify({ detail: 'Refusé.', code }), {
      status: 403,
      headers: { 'Content-Type': 'application/json' },
    });

  beforeEach(() => {
    resetApiClient();
    navigated.length = 0;
    setClientEnvironment({ navigate: (url) => navigated.push(url), pathname: () => '/projects' });
  });

  it('keeps a refused action in the page where the screen expects refusals', async () => {
    setClientEnvironment({ fetch: answer403('permission_denied') });
    await expect(apiRequest('/projects/1/', { allowForbidden: true })).rejects.toMatchObject({ status: 403 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(navigated).toEqual([]);
  });

  it.each(['tenant_forbidden', 'no_tenant', 'csrf_failed', 'not_authenticated'])(
    'redirects on a session refusal (%s) even there, after 100 ms',
    async (code) => {
      setClientEnvironment({ fetch: answer403(code) });
      await expect(apiRequest('/projects/1/', { allowForbidden: true })).rejects.toMatchObject({ status: 403 });
      expect(navigated).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(navigated).toEqual(['/login?session_expired=true']);
    },
  );
});
