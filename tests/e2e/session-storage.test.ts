import { describe, expect, it } from 'vitest';
import { signInThroughForm, useServerAndBrowser } from './harness.ts';

/**
 * docs/client-storage.md (spec-gaps row 3.31): the session (tokens and profile) lives in IndexedDB only; no
 * synchronous storage any script of the page can read holds a token or the profile. The spec's user-data cookie is
 * the one script-readable copy of the profile, without tokens; every reader of the profile works from IndexedDB.
 */
const e2e = useServerAndBrowser();

interface StoredSession {
  tokens: { access_token: string; refresh_token: string };
  profile: { id: number; username: string; email: string; current_tenant?: { id: string; name: string } };
}

describe('where the session is kept in Chromium', () => {
  it('IndexedDB holds tokens and profile; local and session storage neither; the user-data cookie the profile only', async () => {
    const page = await signInThroughForm(await e2e.context(), 'manager');
    const stored = await page.evaluate(
      () =>
        new Promise<unknown>((resolve, reject) => {
          const open = indexedDB.open('vigie');
          open.onerror = () => reject(new Error(String(open.error)));
          open.onsuccess = () => {
            const get = open.result.transaction('kv').objectStore('kv').get('session');
            get.onsuccess = () => resolve(get.result);
          };
        }),
    );
    const session = stored as StoredSession;
    expect(session.tokens.access_token.split('.')).toHaveLength(3);
    expect(session.profile.username).toBe('manager');

    const synchronous = await page.evaluate(() => {
      const all = (s: Storage) => Array.from({ length: s.length }, (_, i) => s.key(i)!).map((k) => [k, s.getItem(k)]);
      return [...all(localStorage), ...all(sessionStorage)] as [string, string][];
    });
    const secrets = [
      session.tokens.access_token,
      session.tokens.refresh_token,
      session.profile.username,
      session.profile.email,
    ];
    for (const [key, value] of synchronous)
      for (const secret of secrets) expect(`${key}=${value}`, key).not.toContain(secret);

    const cookie = (await page.context().cookies()).find((c) => c.name === 'user-data')!;
    const data = JSON.parse(decodeURIComponent(cookie.value)) as Record<string, unknown>;
    expect(data).toMatchObject({ id: session.profile.id, username: 'manager', email: session.profile.email });
    expect(cookie.value).not.toContain(session.tokens.access_token);
    expect(cookie.value).not.toContain(session.tokens.refresh_token);
    expect(cookie).toMatchObject({ path: '/', sameSite: 'Lax' });

    // The readers: the app after a reload (greeting, tenant in the header) works from IndexedDB alone.
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Bonjour, Claire Dubois');
    await page.context().close();
  });
});
