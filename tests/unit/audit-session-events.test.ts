import { afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { audit, startAudit } from '../../src/app/audit.ts';
import { apiRequest, ApiError, resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { logout, session, startSession } from '../../src/lib/auth/session.ts';

// Spec §3's session events, from the places that emit them to the app's buffer (row 3.5 of docs/conformance.md):
// `login` on a sign-in, `logout` sent before the session goes, `access_denied` on a 403 and `token_expired` on a
// 401 the session cannot survive.

const profile = { id: 7, username: 'manager', email: 'claire@acme.fr', first_name: 'Claire', last_name: 'Dubois' };
let answer: (path: string) => Response;
const logged: { type: string; details: unknown; severity: string | undefined }[] = [];
let flushed: MockInstance;
let cleared: MockInstance;

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

beforeAll(() => {
  vi.spyOn(audit, 'log').mockImplementation(async (type, details, severity) => {
    logged.push({ type, details, severity });
    return undefined;
  });
  flushed = vi.spyOn(audit, 'flush').mockResolvedValue(0);
  cleared = vi.spyOn(audit, 'clear').mockResolvedValue(undefined);
  vi.spyOn(audit, 'start').mockImplementation(() => {});
  startAudit();
});

beforeEach(() => {
  logged.length = 0;
  answer = () => json({}, 200);
  setClientEnvironment({
    baseUrl: () => 'http://backend.test',
    navigate: () => {},
    fetch: async (input: RequestInfo | URL) =>
      answer(new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).pathname),
  });
});
afterEach(() => resetApiClient());

const types = () => logged.map((e) => e.type);
const signIn = () =>
  startSession({ access_token: 'a1', refresh_token: 'opaque', expires_at: Date.now() + 3600_000 }, profile);
const quietly = { purgeOfflineData: () => {}, navigate: () => {}, setTimeout: () => 0 };

describe('session events reach the audit buffer (spec §3)', () => {
  it('records login on a sign-in, and logout before the session goes (then sends and clears the buffer)', async () => {
    await signIn();
    expect(types()).toEqual(['login']);
    await logout(quietly);
    expect(types()).toEqual(['login', 'logout']);
    expect(session.value).toBeFalsy();
    expect(flushed).toHaveBeenCalled();
    expect(cleared).toHaveBeenCalled();
  });

  it('records access_denied (warning) on a refused action, with its path', async () => {
    await signIn();
    logged.length = 0;
    answer = () => json({ detail: 'Accès refusé.', code: 'permission_denied' }, 403);
    await expect(apiRequest('/threats/', { method: 'DELETE', allowForbidden: true })).rejects.toBeInstanceOf(ApiError);
    expect(logged).toEqual([
      expect.objectContaining({ type: 'access_denied', severity: 'warning', details: expect.anything() }),
    ]);
    expect(JSON.stringify(logged[0]!.details)).toContain('/api/threats/');
    await logout(quietly);
  });

  it('records token_expired (warning) on a 401 a refresh did not mend', async () => {
    await signIn();
    logged.length = 0;
    // The refresh works, the request is refused again with the new token: the session cannot go on.
    answer = (path) => (path.includes('refresh') ? json({ access: 'a2', refresh: 'r2' }, 200) : json({}, 401));
    await expect(apiRequest('/vulnerabilities/vulnerabilities/')).rejects.toBeInstanceOf(ApiError);
    expect(types()).toContain('token_expired');
    expect(logged.find((e) => e.type === 'token_expired')?.severity).toBe('warning');
    expect(session.value).toBeFalsy();
  });
});
