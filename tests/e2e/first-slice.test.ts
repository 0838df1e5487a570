import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchChromium, launchPersistent } from './chromium.ts';

const baseURL = inject('baseURL');
const password = inject('demoPassword');

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => browser?.close());

/** A fresh profile per test, recording console errors (CSP violations show up there). */
async function newPage(
  viewport = { width: 1280, height: 800 },
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ baseURL, viewport, locale: 'fr-FR' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

async function signIn(page: Page, username: string, pass = password) {
  await page.goto('/login');
  await page.getByLabel("Nom d'utilisateur").fill(username);
  await page.getByLabel('Mot de passe').fill(pass);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}

describe('first slice in Chromium', () => {
  it('renders the French shell at / with a link to sign in', async () => {
    const { context, page, errors } = await newPage();
    await page.goto('/');
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Vigie');
    const link = page.getByRole('main').getByRole('link', { name: 'Se connecter' });
    await link.click();
    await page.waitForURL('**/login');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Connexion');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refuses a wrong password with spec §8’s « Invalid credentials » and its French sense', async () => {
    const { context, page } = await newPage();
    await signIn(page, 'manager', 'wrong-password');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Invalid credentials — identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.');
    expect(await page.getByRole('alert').locator('[lang="en"]').textContent()).toBe('Invalid credentials');
    expect(new URL(page.url()).pathname).toBe('/login');
    await context.close();
  });

  it('signs in a seeded user, greets them by name, and stays signed in after a reload', async () => {
    const { context, page, errors } = await newPage();
    await signIn(page, 'manager');
    await page.waitForURL('**/dashboard');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Bonjour, Claire Dubois');
    expect(await page.getByRole('main').getByText('Acme Sécurité', { exact: true }).isVisible()).toBe(true);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Bonjour, Claire Dubois');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends signed-out visitors of a protected area to /login', async () => {
    const { context, page } = await newPage();
    await page.goto('/dashboard');
    await page.waitForURL('**/login');
    await context.close();
  });

  it('registers the service worker, precaches the shell and loads it with the network off', async () => {
    const { context, page } = await newPage();
    await page.goto('/');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    const cached = await page.evaluate(async () => {
      const urls: string[] = [];
      for (const name of await caches.keys()) {
        for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
      }
      return urls;
    });
    expect(cached).toContain('/index.html');
    expect(cached.some((u) => /^\/assets\/index-.*\.js$/.test(u))).toBe(true);
    expect(cached).toContain('/manifest.webmanifest');

    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Vigie');
    expect(await page.getByRole('status').filter({ hasText: 'Hors ligne' }).isVisible()).toBe(true);
    // An app route never fetched online still opens from the precached shell.
    await page.goto('/login');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Connexion');
    await context.close();
  });

  it('serves a French manifest whose theme colour matches the page, with no installability errors', async () => {
    const profileDir = mkdtempSync(path.join(tmpdir(), 'vigie-profile-'));
    const context = await launchPersistent(profileDir, baseURL);
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('/');
    const themeMeta = await page.getAttribute('meta[name="theme-color"]', 'content');
    const manifest = await (await page.request.get('/manifest.webmanifest')).json();
    expect(manifest).toMatchObject({ lang: 'fr', short_name: 'Vigie', display: 'standalone', theme_color: themeMeta });
    const purposes = (manifest.icons as { sizes: string; purpose: string }[]).map((i) => `${i.sizes} ${i.purpose}`);
    expect(purposes).toEqual(
      expect.arrayContaining(['192x192 any', '512x512 any', '192x192 maskable', '512x512 maskable']),
    );
    expect((manifest.shortcuts as { name: string }[]).map((s) => s.name)).toEqual([
      'Tableau de bord',
      'Vulnérabilités',
      'Projets',
    ]);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
      installabilityErrors: { errorId: string }[];
    };
    expect(installabilityErrors).toEqual([]);
    await context.close();
    rmSync(profileDir, { recursive: true, force: true });
  });
});
