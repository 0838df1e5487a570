import { describe, expect, it } from 'vitest';
import {
  replayRequest,
  AUTH_SCHEME_HEADER,
  storedAuthScheme,
  foreignPartitions,
  freshness,
  isApiPath,
  isAuthEndpoint,
  isDownloadPath,
  isCacheable,
  normalizePath,
  partitionName,
  ttlSeconds,
} from '../../sw/policy.ts';

describe('service-worker routing decisions', () => {
  it.each([
    '/api/token/',
    '/api/token/refresh/',
    '/api/auth/logout/',
    '/api/logout/',
    '/api/register/',
    '/api/accounts/2fa/enable/',
    '/api/accounts/2fa/verify/',
    '/api/accounts/password/reset/',
    '/api/accounts/me/',
    '/api/users/me/',
    '/api/user/profile/',
    '/api/v1/api/users/me/',
    '/api/current-user/',
    '/api/tenants/user-data/',
    '/api/audit/events/',
    '/api/api/token/',
  ])('%s is an authentication endpoint: network only, never cached', (path) => {
    expect(isAuthEndpoint(path)).toBe(true);
  });

  it.each([
    '/api/vulnerabilities/summary/',
    '/api/projects/',
    '/api/admin/users/',
    '/api/tokens-report/',
    '/api/audit/results/',
    // A read of the account's 2FA state: the settings screen shows it offline too.
    '/api/accounts/2fa/status/',
  ])('%s may be cached', (path) => {
    expect(isAuthEndpoint(path)).toBe(false);
  });

  it.each([
    '/api/vulnerabilities/export/',
    '/api/audit/export/csv/',
    '/api/admin/logs/export/',
    '/api//api/audit/export/json/',
    '/api/projects/documents/12/download/',
    '/api/projects/documents/0b6f2c1e-7d1a-4c3e-9a51-2f0a8d3c4b7e/download',
    '/api/api//projects/documents/3/download/',
  ])('%s is a file download: network only, never cached', (path) => {
    expect(isDownloadPath(path)).toBe(true);
  });

  it.each([
    '/api/vulnerabilities/vulnerabilities/',
    '/api/exports-list/',
    '/api/vulnerabilities/summary/',
    '/api/projects/documents/',
    '/api/projects/documents/12/',
    '/api/projects/downloads-report/',
  ])('%s is not a download', (path) => {
    expect(isDownloadPath(path)).toBe(false);
  });

  it('recognises /api paths only', () => {
    expect(isApiPath('/api/projects/')).toBe(true);
    expect(isApiPath('//api//projects/')).toBe(true);
    expect(isApiPath('/apiary')).toBe(false);
    expect(isApiPath('/dashboard')).toBe(false);
    expect(normalizePath('/api/api//projects/')).toBe('/api/projects/');
  });

  it('uses the spec §9 TTLs', () => {
    expect(ttlSeconds('/api/notifications/notifications/')).toBe(60);
    expect(ttlSeconds('/api/admin/tenants/')).toBe(300);
    expect(ttlSeconds('/api/tenants/')).toBe(300);
    expect(ttlSeconds('/api/health/')).toBe(60);
    expect(ttlSeconds('/api/system/health/')).toBe(60);
    expect(ttlSeconds('/api/projects/')).toBe(30);
  });

  it('is fresh strictly within the TTL, stale after, none without a stored time', () => {
    expect(freshness(1_000, 1_000 + 29_999, 30)).toBe('fresh');
    expect(freshness(1_000, 1_000 + 30_000, 30)).toBe('stale');
    expect(freshness(undefined, 5, 30)).toBe('none');
    expect(freshness(Number.NaN, 5, 30)).toBe('none');
    // A stored time in the future (clock moved back) is not trusted as fresh.
    expect(freshness(10_000, 5_000, 30)).toBe('stale');
    // A write after the copy was stored makes it stale at once; a copy stored after the write is fresh again.
    expect(freshness(1_000, 2_000, 30, 1_500)).toBe('stale');
    expect(freshness(1_000, 2_000, 30, 1_000)).toBe('stale');
    expect(freshness(1_600, 2_000, 30, 1_500)).toBe('fresh');
  });

  it('partitions by user and tenant, and caches nothing signed out', () => {
    expect(partitionName(7, 'acme')).toBe('vigie-api:7:acme');
    expect(partitionName(7, undefined)).toBe('vigie-api:7:none');
    expect(partitionName(7, '../../x')).toBe('vigie-api:7:______x');
    expect(partitionName(undefined, 'acme')).toBeNull();
    expect(partitionName('', 'acme')).toBeNull();
    expect(partitionName(7, 'a')).not.toBe(partitionName(7, 'b'));
    expect(partitionName(7, 'a')).not.toBe(partitionName(8, 'a'));
  });

  it('finds every other user’s partitions to purge, and all of them when signed out', () => {
    const names = ['vigie-api:7:a', 'vigie-api:7:b', 'vigie-api:8:a', 'vigie-api:70:a', 'workbox-precache-v2'];
    expect(foreignPartitions(names, 7)).toEqual(['vigie-api:8:a', 'vigie-api:70:a']);
    expect(foreignPartitions(names, undefined)).toEqual([
      'vigie-api:7:a',
      'vigie-api:7:b',
      'vigie-api:8:a',
      'vigie-api:70:a',
    ]);
  });

  it('keeps successful JSON answers and a record’s 404 or 403, nothing else', () => {
    expect(isCacheable(200, 'application/json; charset=utf-8', 'no-store')).toBe(true);
    // Offline, a project that does not exist (or is refused) must still read so.
    expect(isCacheable(404, 'application/json', null)).toBe(true);
    expect(isCacheable(403, 'application/json', null)).toBe(true);
    expect(isCacheable(404, 'text/html', null)).toBe(false);
    expect(isCacheable(401, 'application/json', null)).toBe(false);
    expect(isCacheable(500, 'application/json', null)).toBe(false);
    expect(isCacheable(201, 'application/json', null)).toBe(false);
    expect(isCacheable(200, 'text/html', null)).toBe(false);
    expect(isCacheable(200, 'application/json', 'no-store, no-cache-sw')).toBe(false);
  });
});

describe('replaying a queued write', () => {
  const stored = () =>
    new Request('https://vigie.test/api/projects/tasks/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Vigie-Queueable': '1', 'Idempotency-Key': 'k-1' },
      body: JSON.stringify({ title: 'Restitution' }),
    });

  it('sends the current token without the queueable mark, keeping the idempotency key and the body', async () => {
    const request = replayRequest(stored(), 'jeton', 'X-Vigie-Queueable');
    expect(request.method).toBe('POST');
    expect(request.headers.get('Authorization')).toBe('Bearer jeton');
    expect(request.headers.has('X-Vigie-Queueable')).toBe(false);
    expect(request.headers.get('Idempotency-Key')).toBe('k-1');
    expect(await request.text()).toBe('{"title":"Restitution"}');
  });

  it('keeps the style the write was sent with, never its token: a Token-style backend gets Token again (spec §7)', () => {
    expect(storedAuthScheme('Token ancien')).toBe('Token');
    expect(storedAuthScheme('Bearer ancien')).toBeUndefined();
    expect(storedAuthScheme(null)).toBeUndefined();
    const storedAs = (scheme?: string) =>
      new Request('https://vigie.test/api/projects/tasks/', {
        method: 'POST',
        headers: { 'X-Vigie-Queueable': '1', ...(scheme ? { [AUTH_SCHEME_HEADER]: scheme } : {}) },
        body: '{}',
      });
    const token = replayRequest(storedAs('Token'), 'neuf', 'X-Vigie-Queueable');
    expect(token.headers.get('Authorization')).toBe('Token neuf');
    expect(token.headers.has(AUTH_SCHEME_HEADER)).toBe(false);
    expect(replayRequest(storedAs(), 'neuf', 'X-Vigie-Queueable').headers.get('Authorization')).toBe('Bearer neuf');
  });

  it('leaves the stored request whole once the replay is sent, so a failed attempt can go back in the queue', async () => {
    const original = stored();
    const first = replayRequest(original, 'jeton', 'X-Vigie-Queueable');
    await first.arrayBuffer(); // what fetch does with the body, whether the network answers or not
    expect(original.bodyUsed).toBe(false);
    // Queued again (Workbox clones it) and replayed a second time: the same body.
    const again = replayRequest(original.clone(), 'jeton', 'X-Vigie-Queueable');
    expect(await again.text()).toBe('{"title":"Restitution"}');
  });
});
