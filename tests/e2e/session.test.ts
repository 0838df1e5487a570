import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { signInThroughForm, storedSession, useServerAndBrowser } from './harness.ts';
import { auditEvents } from '../../server/src/db/schema.ts';

/** Session behaviour in Chromium; the test also looks into the database (client audit events). */
const e2e = useServerAndBrowser();

async function signedIn(username = 'manager'): Promise<Page> {
  return signInThroughForm(await e2e.context(), username);
}

describe('session in Chromium', () => {
  it('logout lands on /?logout=<timestamp> with nothing left in IndexedDB', async () => {
    const page = await signedIn();
    expect(await storedSession(page)).not.toBeNull();
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(/\/\?logout=\d{13}$/);
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Vous êtes déconnecté.' }).count()).toBe(1);
    expect(await storedSession(page)).toBeNull();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'user-data')).toBeUndefined();
    await page.context().close();
  });

  it('an expired session that cannot be refreshed lands on /login?session_expired=true', async () => {
    const page = await signedIn();
    // Both tokens are now worthless, as after a server-side revocation.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const open = indexedDB.open('vigie');
          open.onsuccess = () => {
            const store = open.result.transaction('kv', 'readwrite').objectStore('kv');
            const get = store.get('session');
            get.onsuccess = () => {
              const s = get.result as { tokens: Record<string, unknown> };
              s.tokens.access_token = 'x.y.z';
              s.tokens.refresh_token = 'x.y.z';
              store.put(s, 'session').onsuccess = () => resolve();
            };
          };
        }),
    );
    await page.goto('/settings'); // its first call answers 401, the refresh fails too
    await page.waitForURL('**/login?session_expired=true');
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe('Votre session a expiré. Veuillez vous reconnecter.');
    await page.context().close();
  });

  it('audit events buffered before the tab closes reach the server', async () => {
    const page = await signedIn('analyste');
    // The sign-in event sits in the buffer (it flushes at 50 events or every 30 s); closing the tab beacons it.
    const before = await e2e.t.database.db.select().from(auditEvents).where(eq(auditEvents.source, 'frontend'));
    expect(before.filter((e) => e.username === 'analyste')).toHaveLength(0);
    await page.close({ runBeforeUnload: true });
    await expect
      .poll(
        async () =>
          (await e2e.t.database.db.select().from(auditEvents).where(eq(auditEvents.source, 'frontend')))
            .filter((e) => e.username === 'analyste')
            .map((e) => e.eventType),
        { timeout: 10_000 },
      )
      .toContain('login');
  });
});
