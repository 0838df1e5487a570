import { describe, expect, it } from 'vitest';
import { allMarkedOffline, signInThroughForm, useServerAndBrowser } from './harness.ts';

/** What a user sees when the network goes: screens from cache or sample data, always marked. */
const e2e = useServerAndBrowser();

describe('screens offline in Chromium', () => {
  it('a first visit online, then offline: shell, dashboard and a list render from cache, marked with their date', async () => {
    const context = await e2e.context({ width: 1280, height: 800 });
    const page = await signInThroughForm(context, 'admin');

    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Utilisateurs' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'analyste', exact: true }).count()).toBe(1);
    expect(await page.getByRole('note').count()).toBe(0); // live data carries no mark

    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => page.getByRole('cell', { name: 'analyste', exact: true }).count()).toBe(1);
    await expect.poll(() => allMarkedOffline(page)).toBe(true);
    expect(await page.getByRole('status').filter({ hasText: 'Hors ligne' }).count()).toBeGreaterThan(0);

    await page.goto('/dashboard');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Bonjour, Camille Laurent');
    await context.close();
  });

  it('mock API mode answers the sample areas without touching the network', async () => {
    const seen: string[] = [];
    e2e.t.app.server.on('request', (req: { url?: string }) => seen.push(req.url ?? ''));
    const context = await e2e.context();
    // The switch is an administrator's, in Préférences.
    const page = await signInThroughForm(context, 'admin');
    expect(await page.getByLabel('Mode API simulée').count()).toBe(0);
    await page
      .getByRole('navigation', { name: 'Navigation principale' })
      .getByRole('link', { name: 'Préférences', exact: true })
      .click();
    await page.getByLabel('Mode API simulée').check();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Mode API simulée activé : les données affichées sont des données d’exemple.');
    seen.length = 0;
    await page.getByRole('banner').getByRole('link', { name: 'Notifications' }).click();
    await expect.poll(() => page.getByRole('note').textContent()).toBe('Données d’exemple');
    expect(seen.filter((u) => u.startsWith('/api/notifications'))).toEqual([]);
    await page
      .getByRole('navigation', { name: 'Navigation principale' })
      .getByRole('link', { name: 'Préférences', exact: true })
      .click();
    await page.getByLabel('Mode API simulée').uncheck();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Mode API simulée désactivé : retour aux données du serveur.');
    await context.close();
  });

  it('an area the backend does not serve shows marked sample data', async () => {
    const context = await e2e.context();
    // Another backend, without notifications: its paths answer 404 (the service worker's requests included).
    await context.route('**/api/notifications/**', (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: '{"detail":"Not found."}' }),
    );
    const page = await signInThroughForm(context, 'manager');
    await page.getByRole('banner').getByRole('link', { name: 'Notifications' }).click();
    await expect.poll(() => page.getByRole('note').textContent()).toBe('Données d’exemple');
    expect(await page.getByText('Aucune notification.').isVisible()).toBe(true);
    await context.close();
  });
});
