import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sql } from 'drizzle-orm';
import { launchChromium } from './chromium.ts';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../server/helpers.ts';

/** The service worker's /api fallback layer, seen from a real page. */
let t: TestApp;
let baseURL: string;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp({ appDir: path.resolve('dist') });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseURL = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(context: BrowserContext, username: string): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('/login');
  await page.getByLabel("Nom d'utilisateur").fill(username);
  await page.getByLabel('Mot de passe').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.waitForURL('**/dashboard');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  return page;
}

/** A GET the way the app's client makes it (Bearer and tenant from the stored session), with the SW's marks. */
function apiGet(page: Page, url: string) {
  return page.evaluate(async (u) => {
    const session = await new Promise<{
      tokens: { access_token: string };
      profile: { current_tenant?: { id: string } };
    }>((resolve) => {
      const open = indexedDB.open('vigie');
      open.onsuccess = () => {
        const get = open.result.transaction('kv').objectStore('kv').get('session');
        get.onsuccess = () => resolve(get.result);
      };
    });
    try {
      const res = await fetch(u, {
        headers: {
          Authorization: `Bearer ${session.tokens.access_token}`,
          ...(session.profile.current_tenant ? { 'X-Tenant-ID': session.profile.current_tenant.id } : {}),
        },
      });
      return {
        status: res.status,
        source: res.headers.get('x-vigie-source'),
        storedAt: res.headers.get('x-vigie-stored-at'),
        body: (await res.json()) as unknown,
      };
    } catch {
      return { status: 0, source: null, storedAt: null, body: null };
    }
  }, url);
}

const cacheContents = (page: Page) =>
  page.evaluate(async () => {
    const out: { cache: string; url: string; text: string; headers: string }[] = [];
    for (const name of await caches.keys()) {
      if (!name.startsWith('vigie-api')) continue;
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        const res = (await cache.match(req))!;
        out.push({
          cache: name,
          url: new URL(req.url).pathname,
          text: await res.text(),
          headers: JSON.stringify([...res.headers]),
        });
      }
    }
    return out;
  });

describe('service worker /api layer in Chromium', () => {
  it('serves a read from the partitioned cache when offline, marked with its date', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await signIn(context, 'admin');
    const online = await apiGet(page, '/api/admin/users/');
    expect(online).toMatchObject({ status: 200, source: 'network' });

    await context.setOffline(true);
    const offline = await apiGet(page, '/api/admin/users/');
    expect(offline.status).toBe(200);
    expect(offline.source).toBe('cache');
    expect(Number(offline.storedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(offline.body).toEqual(online.body);
    await context.setOffline(false);

    const stored = await cacheContents(page);
    expect(stored.map((s) => s.url)).toContain('/api/admin/users/');
    expect(stored.every((s) => /^vigie-api:\d+:[0-9a-f-]+$/.test(s.cache))).toBe(true);
    await context.close();
  });

  it('never shows the previous tenant’s cached data after a tenant switch', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await signIn(context, 'admin');
    expect((await apiGet(page, '/api/admin/users/')).source).toBe('network');
    // The switcher changes X-Tenant-ID; offline, the other tenant has no cached answer of its own.
    await page.getByRole('combobox').selectOption({ label: 'Banque Horizon' });
    await page.waitForFunction(
      () =>
        new Promise<boolean>((resolve) => {
          const open = indexedDB.open('vigie');
          open.onsuccess = () => {
            const get = open.result.transaction('kv').objectStore('kv').get('session');
            get.onsuccess = () => resolve(Boolean((get.result as { tenantId?: string }).tenantId));
          };
        }),
    );
    await context.setOffline(true);
    const other = await page.evaluate(async () => {
      const session = await new Promise<{ tokens: { access_token: string }; tenantId: string }>((resolve) => {
        const open = indexedDB.open('vigie');
        open.onsuccess = () => {
          const get = open.result.transaction('kv').objectStore('kv').get('session');
          get.onsuccess = () => resolve(get.result);
        };
      });
      try {
        const res = await fetch('/api/admin/users/', {
          headers: { Authorization: `Bearer ${session.tokens.access_token}`, 'X-Tenant-ID': session.tenantId },
        });
        return res.status;
      } catch {
        return 0;
      }
    });
    expect(other).toBe(0);
    await context.close();
  });

  it('substitutes marked sample data on a 404 area and when offline without a cache', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await signIn(context, 'manager');
    const blog = await apiGet(page, '/api/blog/posts/');
    expect(blog.source).toBe('sample');
    expect(JSON.stringify(blog.body)).toContain('slug');

    await context.setOffline(true);
    const notifications = await apiGet(page, '/api/notifications/notifications/');
    expect(notifications).toMatchObject({ status: 200, source: 'sample', body: { results: [] } });
    // Outside the sample areas, no cache and no network is a network error for the app to handle.
    expect((await apiGet(page, '/api/admin/permissions/')).status).toBe(0);
    await context.close();
  });

  it('never stores authentication answers or tokens, and purges everything at logout', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await signIn(context, 'admin');
    await apiGet(page, '/api/users/me/');
    await apiGet(page, '/api/admin/users/');
    const access = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const open = indexedDB.open('vigie');
          open.onsuccess = () => {
            const get = open.result.transaction('kv').objectStore('kv').get('session');
            get.onsuccess = () => resolve((get.result as { tokens: { access_token: string } }).tokens.access_token);
          };
        }),
    );
    const stored = await cacheContents(page);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((s) => s.url.startsWith('/api/users/me'))).toBe(false);
    for (const s of stored) {
      expect(s.text).not.toContain(access);
      expect(s.headers.toLowerCase()).not.toContain('authorization');
      expect(s.headers.toLowerCase()).not.toContain('set-cookie');
    }

    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(/\?logout=/);
    await expect.poll(async () => (await cacheContents(page)).length).toBe(0);

    // Another user on the same screen, offline: nothing of the first user's data.
    await signIn(context, 'manager');
    await context.setOffline(true);
    const other = await apiGet(page, '/api/admin/users/');
    expect(other.status).toBe(0);
    await context.close();
  });
});

const countOffline = async () =>
  Number(
    (
      (await t.database.db.execute(sql`select count(*)::int as n from users where username = 'hors.ligne'`)) as {
        rows: { n: number }[];
      }
    ).rows[0]!.n,
  );

describe('offline writes in Chromium', () => {
  it('queues a write made offline, shows it waiting, and replays it once back online', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await signIn(context, 'admin');
    await context.setOffline(true);
    const answer = await page.evaluate(async () => {
      const session = await new Promise<{ tokens: { access_token: string } }>((resolve) => {
        const open = indexedDB.open('vigie');
        open.onsuccess = () => {
          const get = open.result.transaction('kv').objectStore('kv').get('session');
          get.onsuccess = () => resolve(get.result);
        };
      });
      const res = await fetch('/api/admin/users/', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${session.tokens.access_token}`,
          'X-Vigie-Queueable': '1',
          'Idempotency-Key': crypto.randomUUID(),
        },
        body: JSON.stringify({
          username: 'hors.ligne',
          email: 'hors.ligne@acme.fr',
          password: 'un-mot-de-passe-solide',
        }),
      });
      return { status: res.status, source: res.headers.get('x-vigie-source'), body: (await res.json()) as unknown };
    });
    expect(answer).toMatchObject({ status: 202, source: 'queued', body: { queued: true } });
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count()).toBe(1);

    // Queued without its token: nothing in the SW's IndexedDB queue holds an Authorization header.
    const queued = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const open = indexedDB.open('workbox-background-sync');
          open.onsuccess = () => {
            const all = open.result.transaction('requests').objectStore('requests').getAll();
            all.onsuccess = () =>
              resolve(
                JSON.stringify(
                  (all.result as { requestData: { headers: unknown; body?: ArrayBuffer } }[]).map((r) => ({
                    headers: r.requestData.headers,
                    body: r.requestData.body ? new TextDecoder().decode(r.requestData.body) : '',
                  })),
                ),
              );
          };
        }),
    );
    expect(queued).toContain('hors.ligne');
    expect(queued.toLowerCase()).not.toContain('authorization');
    expect(queued).not.toContain('Bearer');

    await context.setOffline(false);
    await expect.poll(countOffline, { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count()).toBe(0);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await countOffline()).toBe(1);
    await context.close();
  });

  it('reports a queued write the server refuses for good, with the server’s message', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await signIn(context, 'admin');
    await context.setOffline(true);
    const status = await page.evaluate(async () => {
      const session = await new Promise<{ tokens: { access_token: string } }>((resolve) => {
        const open = indexedDB.open('vigie');
        open.onsuccess = () => {
          const get = open.result.transaction('kv').objectStore('kv').get('session');
          get.onsuccess = () => resolve(get.result);
        };
      });
      const res = await fetch('/api/admin/users/', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${session.tokens.access_token}`,
          'X-Vigie-Queueable': '1',
          'Idempotency-Key': crypto.randomUUID(),
        },
        // Taken by the seeded manager: the server will refuse it with a 409.
        body: JSON.stringify({
          username: 'doublon',
          email: 'claire.dubois@acme-securite.fr',
          password: 'un-mot-de-passe-solide',
        }),
      });
      return res.status;
    });
    expect(status).toBe(202);
    await context.setOffline(false);
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: 'Modification refusée par le serveur' }).textContent(), {
        timeout: 15_000,
      })
      .toContain('Un compte avec cet email existe déjà');
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count()).toBe(0);
    await context.close();
  });
});
