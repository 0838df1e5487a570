import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  apiRequest,
  apiRequestWithOrigin,
  resetApiClient,
  setClientEnvironment,
  setSessionHooks,
  type LiveCopy,
  type SessionHooks,
} from '../../src/lib/api-client.ts';

/** The API client's device path (docs/displays.md): a paired wall screen's own credential, none of the session's. */
describe('device-mode requests', () => {
  const navigated: string[] = [];
  const copies: LiveCopy[] = [];
  let sent: { headers: Headers; credentials: RequestCredentials | undefined }[];
  let status: number;
  const refresh = vi.fn(() => Promise.resolve());
  const expireSession = vi.fn(() => Promise.resolve());
  const recordAudit = vi.fn();
  const hooks: SessionHooks = {
    accessToken: () => 'person-token',
    hasRefreshToken: () => true,
    tenantId: () => 'person-tenant',
    refresh,
    reloadCurrentUser: () => Promise.resolve(),
    expireSession,
    touchActivity: () => Promise.resolve(),
    recordAudit,
  };

  beforeEach(() => {
    resetApiClient();
    navigated.length = 0;
    copies.length = 0;
    sent = [];
    status = 200;
    refresh.mockClear();
    expireSession.mockClear();
    recordAudit.mockClear();
    setSessionHooks(hooks);
    setClientEnvironment({
      navigate: (url) => navigated.push(url),
      pathname: () => '/kiosk',
      csrfToken: () => 'csrf',
      keepCopy: (copy) => copies.push(copy),
      fetch: (_input: RequestInfo | URL, init?: RequestInit) => {
        sent.push({ headers: new Headers(init?.headers), credentials: init?.credentials });
        return Promise.resolve(
          new Response(
            JSON.stringify(
              status === 200 ? { ok: true } : { detail: 'Écran révoqué ou inconnu : appairez-le à nouveau.' },
            ),
            {
              status,
              headers: { 'content-type': 'application/json' },
            },
          ),
        );
      },
    });
  });

  afterEach(() => {
    resetApiClient();
  });

  it('sends `Display <token>` and the display’s tenant, without the person’s token, tenant, CSRF or cookies', async () => {
    await apiRequestWithOrigin('/dashboard/summary/', { device: { token: 'vgd_abc', tenantId: 't2' } });
    const { headers, credentials } = sent[0]!;
    expect(headers.get('Authorization')).toBe('Display vgd_abc');
    expect(headers.get('X-Tenant-ID')).toBe('t2');
    expect(headers.get('X-CSRFToken')).toBeNull();
    expect(credentials).toBe('omit');
    // Its answers never go to the person's offline partition.
    expect(copies).toEqual([]);
  });

  it('leaves the person’s requests as they were', async () => {
    await apiRequest('/dashboard/summary/');
    const { headers, credentials } = sent[0]!;
    expect(headers.get('Authorization')).toBe('Bearer person-token');
    expect(headers.get('X-Tenant-ID')).toBe('person-tenant');
    expect(credentials).toBe('include');
    expect(copies).toHaveLength(1);
  });

  it('hands a 401 to the kiosk with its French message: no refresh, no sign-out, no redirect', async () => {
    status = 401;
    await expect(apiRequest('/displays/me/', { device: { token: 'vgd_abc' } })).rejects.toMatchObject({
      status: 401,
      message: 'Écran révoqué ou inconnu : appairez-le à nouveau.',
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(refresh).not.toHaveBeenCalled();
    expect(expireSession).not.toHaveBeenCalled();
    expect(navigated).toEqual([]);
  });

  it('hands a 403 to the kiosk too, with no redirect and no audit line in a person’s name', async () => {
    status = 403;
    await expect(apiRequest('/projects/', { device: { token: 'vgd_abc' } })).rejects.toMatchObject({ status: 403 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(navigated).toEqual([]);
    expect(recordAudit).not.toHaveBeenCalled();
  });
});
