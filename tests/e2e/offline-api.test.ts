import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { queueableWrite, signInThroughForm, storedSession, useServerAndBrowser } from './harness.ts';

/** The service worker's /api fallback layer, seen from a real page. */
const e2e = useServerAndBrowser();
const newContext = () => e2e.context();

/** A GET the way the app's client makes it (Bearer and tenant from the stored session), with the SW's marks. */
async function apiGet(page: Page, url: string) {
  const session = (await storedSession(page))!;
  const tenant = session.tenantId ?? session.profile.current_tenant?.id;
  return page.evaluate(
    async ({ url, token, tenant }) => {
      try {
        const res = await fetch(url, {
          headers: { Authorization: `Bearer ${token}`, ...(tenant ? { 'X-Tenant-ID': tenant } : {}) },
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
    },
    { url, token: session.tokens.access_token, tenant },
  );
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
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
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
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    expect((await apiGet(page, '/api/admin/users/')).source).toBe('network');
    // The switcher changes X-Tenant-ID; offline, the other tenant has no cached answer of its own.
    await page.getByRole('combobox').selectOption({ label: 'Banque Horizon' });
    await expect.poll(async () => (await storedSession(page))?.tenantId).toBeTruthy();
    await context.setOffline(true);
    expect((await apiGet(page, '/api/admin/users/')).status).toBe(0);
    await context.close();
  });

  it('substitutes marked sample data on a 404 area and when offline without a cache', async () => {
    const context = await newContext();
    // A backend without a blog: its blog paths answer 404 (the service worker's requests included).
    await context.route('**/api/blog/**', (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: '{"detail":"Not found."}' }),
    );
    const page = await signInThroughForm(context, 'manager');
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
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    await apiGet(page, '/api/users/me/');
    await apiGet(page, '/api/admin/users/');
    const access = (await storedSession(page))!.tokens.access_token;
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
    expect(await storedSession(page)).toBeNull();

    // Another user on the same screen, offline: nothing of the first user's data.
    await signInThroughForm(context, 'manager');
    await context.setOffline(true);
    expect((await apiGet(page, '/api/admin/users/')).status).toBe(0);
    await context.close();
  });
});

const countUsers = async (username: string) =>
  Number(
    (
      (await e2e.t.database.db.execute(sql`select count(*)::int as n from users where username = ${username}`)) as {
        rows: { n: number }[];
      }
    ).rows[0]!.n,
  );

describe('offline writes in Chromium', () => {
  it('queues a write made offline, shows it waiting, and replays it once back online', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    await context.setOffline(true);
    const answer = await queueableWrite(page, '/api/admin/users/', {
      username: 'hors.ligne',
      email: 'hors.ligne@acme.fr',
      password: 'un-mot-de-passe-solide',
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
    await expect.poll(() => countUsers('hors.ligne'), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count()).toBe(0);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await countUsers('hors.ligne')).toBe(1);
    await context.close();
  });

  it('reports a queued write the server refuses for good, with the server’s message', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    await context.setOffline(true);
    // Taken by the seeded manager: the server will refuse it with a 409.
    const answer = await queueableWrite(page, '/api/admin/users/', {
      username: 'doublon',
      email: 'claire.dubois@acme-securite.fr',
      password: 'un-mot-de-passe-solide',
    });
    expect(answer.status).toBe(202);
    await context.setOffline(false);
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: 'Modification refusée par le serveur' }).textContent(), {
        timeout: 15_000,
      })
      .toContain('Un compte avec cet email existe déjà');
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count()).toBe(0);
    expect(await countUsers('doublon')).toBe(0);
    await context.close();
  });
});
