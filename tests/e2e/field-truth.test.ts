import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { allMarkedOffline, OFFLINE_DATED, signInThroughForm, useServerAndBrowser } from './harness.ts';
import { NAV_SCREENS } from './screens.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';

/**
 * Issue 15 in Chromium: the fallback layer never passes sample data off as the user's. Cached real data always
 * wins offline, a missing record is « introuvable » (never a sample), sample data is announced by a full-width
 * banner with every headline figure marked « exemple », and mock mode reaches no server.
 */
const e2e = useServerAndBrowser();

const SAMPLE_BANNER = 'Données d’exemple — ce ne sont pas les données de votre organisation';

const NO_API_DATA = new Set(['/cve', '/admin']);

const newContext = () => e2e.context({ width: 1280, height: 900 });

/**
 * What a screen shows, without what may rightly differ between an online and an offline visit: the origin note
 * (« Hors ligne — données du … »), relative ages and loading lines.
 */
function normalise(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^(Hors ligne|Données en cache|Chargement)/.test(l))
    .map((l) =>
      l
        .replace(/il y a .*$|à l’instant/g, '~')
        // The status screen's polling state differs offline by design; its last read must not.
        .replace(/^Actualisation automatique [^.]*\. /, '')
        // A read and its stored copy are milliseconds apart.
        .replace(/(\d{2}:\d{2}):\d{2}/g, '$1'),
    )
    .join('\n');
}

/** The main region's text once it stopped changing (loading finished, charts drawn). */
async function settledText(page: Page): Promise<string> {
  let last = '';
  for (let i = 0; i < 40; i++) {
    await page.waitForTimeout(250);
    const busy = await page.locator('main [aria-busy="true"], main [role="status"]:has-text("Chargement")').count();
    const text = normalise(await page.locator('main').innerText());
    if (!busy && text === last && text !== '') return text;
    last = text;
  }
  return last;
}

function sampleBanner(page: Page) {
  return page.getByTestId('sample-banner');
}

/** Every headline figure on screen carries the « exemple » mark beside it. */
async function unmarkedFigures(page: Page): Promise<number> {
  return page
    .locator('main [data-figure]')
    .evaluateAll((figures) => figures.filter((f) => !f.nextElementSibling?.hasAttribute('data-sample-mark')).length);
}

async function accessToken(username: string): Promise<string> {
  const res = await fetch(`${e2e.baseURL}/api/token/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password: TEST_PASSWORD }),
  });
  return ((await res.json()) as { access: string }).access;
}

describe('field truth in Chromium', () => {
  it('the first visit, made before the service worker controls the page, is what the screen shows offline', async () => {
    const context = await newContext();
    // No waiting for the worker: the analyst goes straight to the dashboard.
    const page = await signInThroughForm(context, 'admin', { waitForWorker: false });
    await page.getByRole('link', { name: 'Vulnérabilités', exact: true }).first().click();
    const total = await page.getByTestId('stat-total').textContent();
    const critical = await page.getByTestId('stat-critical').textContent();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

    await context.setOffline(true);
    await page.reload();
    await expect.poll(() => page.getByTestId('stat-total').textContent()).toBe(total);
    expect(await page.getByTestId('stat-critical').textContent()).toBe(critical);
    await expect.poll(() => allMarkedOffline(page)).toBe(true);
    expect(await sampleBanner(page).count()).toBe(0);
    await context.close();
  });

  it('every screen of the navigation shows offline the figures and rows it showed online, dated, never sample', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    const online = new Map<string, string>();
    for (const path of NAV_SCREENS) {
      await page.goto(path);
      online.set(path, await settledText(page));
      expect(await sampleBanner(page).count(), path).toBe(0);
    }

    await context.setOffline(true);
    const outcome: string[] = [];
    for (const path of NAV_SCREENS) {
      await page.goto(path);
      const text = await settledText(page);
      expect(text, `${path} offline`).toBe(online.get(path));
      expect(await sampleBanner(page).count(), path).toBe(0);
      expect(await page.getByText('Données d’exemple').count(), path).toBe(0);
      const notes = await page.locator('main .data-origin').allTextContents();
      for (const note of notes) expect(note, path).toMatch(OFFLINE_DATED);
      // Screens that show API data say how old it is (the greeting, the empty CVE search and the console's index
      // read none).
      if (!NO_API_DATA.has(path)) expect(notes.length, `${path} dated`).toBeGreaterThan(0);
      outcome.push(`${path}: same, ${notes.length ? 'dated' : 'no API data'}`);
    }
    console.log(`screens checked offline:\n${outcome.join('\n')}`);
    await context.close();
  }, 300_000);

  it('with nothing cached, every screen that falls back to samples says so, and marks each figure', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    await context.setOffline(true);
    for (const path of ['/vulnerabilities', '/projects', '/tasks', '/audit', '/notifications', '/blog']) {
      await page.goto(path);
      await settledText(page);
      await expect.poll(() => sampleBanner(page).textContent(), { message: path }).toBe(SAMPLE_BANNER);
      expect(await page.locator('main [data-figure]').count(), path).toBeGreaterThan(0);
      expect(await unmarkedFigures(page), path).toBe(0);
    }
    // Sample projects and posts do not exist: nothing links into them.
    await page.goto('/projects');
    await expect.poll(() => page.locator('main tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('main tbody a[href^="/projects/"]').count()).toBe(0);
    await page.goto('/blog');
    await expect.poll(() => page.locator('main .blog-card').count()).toBe(2);
    expect(await page.locator('main .blog-card a[href^="/blog/"]').count()).toBe(0);
    await context.close();
  });

  it('a project that does not exist, or belongs to another tenant, reads « introuvable » online and offline', async () => {
    const [acme] = (
      await e2e.t.database.executeSql(
        `select p.id::int as id from projects p join tenants t on t.id = p.tenant_id
          where t.name = 'Acme Sécurité' order by p.id limit 1`,
      )
    ).rows as { id: number }[];
    expect(acme).toBeDefined();
    const context = await newContext();
    const page = await signInThroughForm(context, 'lecteur');
    const paths = ['/projects/999999', `/projects/${acme!.id}`];
    for (const path of paths) {
      await page.goto(path);
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { message: path })
        .toBe('Projet introuvable');
      expect(await sampleBanner(page).count()).toBe(0);
    }
    await context.setOffline(true);
    for (const path of paths) {
      await page.goto(path);
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { message: `${path} offline` })
        .toBe('Projet introuvable');
      expect(await sampleBanner(page).count()).toBe(0);
    }
    await context.close();
  });

  it('mock mode: a click through every screen reaches the server zero times, and a launch is simulated', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    const seen: string[] = [];
    const listener = (req: { url?: string; method?: string }) => seen.push(`${req.method} ${req.url ?? ''}`);
    await page
      .getByRole('navigation', { name: 'Navigation principale' })
      .getByRole('link', { name: 'Préférences', exact: true })
      .click();
    await page.getByLabel('Mode API simulée').check();
    await expect.poll(() => sampleBanner(page).count()).toBe(1);
    // The switch is stored when its alert shows (a reload before that would find it off).
    await expect
      .poll(() => page.locator('.mock-message').textContent())
      .toBe('Mode API simulée activé : les données affichées sont des données d’exemple.');
    // A fresh start in mock mode too: nothing may slip through before the worker controls the page.
    e2e.t.app.server.on('request', listener);
    try {
      await page.reload();
      for (const path of NAV_SCREENS) {
        await page
          .locator(`header a[href="${path}"], nav a[href="${path}"]`)
          .first()
          .click()
          .catch(async () => {
            await page.goto(path);
          });
        await settledText(page);
        expect(await page.getByText('Écran indisponible').count(), path).toBe(0);
        expect(await sampleBanner(page).textContent(), path).toBe(SAMPLE_BANNER);
        expect(await unmarkedFigures(page), path).toBe(0);
      }
      await page.goto('/tasks');
      await page
        .getByRole('button', { name: /Lancer/ })
        .first()
        .click();
      await expect
        .poll(() => page.getByText('Tâche lancée avec succès (simulation)').count(), { timeout: 10_000 })
        .toBeGreaterThan(0);
      // The health check and probes are answered on the device as well.
      expect(seen.filter((r) => r.includes('/api/'))).toEqual([]);
    } finally {
      e2e.t.app.server.off('request', listener);
    }
    expect(await accessToken('admin')).not.toBe('');
    await context.close();
  }, 180_000);

  it('a backend whose launch URL answers 404 gives the marked launch simulation, and the server runs nothing', async () => {
    const context = await newContext();
    const launches: string[] = [];
    await context.route(/\/api\/celery\/tasks\/run\/?$/, (route) => {
      launches.push(route.request().method());
      return route.fulfill({ status: 404, contentType: 'application/json', body: '{"detail":"Not found."}' });
    });
    const page = await signInThroughForm(context, 'admin');
    const before = (await e2e.t.database.executeSql('select count(*)::int as n from task_runs')).rows as {
      n: number;
    }[];
    await page.goto('/tasks');
    await page
      .getByRole('button', { name: /Lancer/ })
      .first()
      .click();
    const launched = page.locator('.task-launched');
    await expect
      .poll(() => launched.textContent(), { timeout: 10_000 })
      .toContain('Tâche lancée avec succès (simulation)');
    expect(await launched.locator('.data-origin').textContent()).toBe('Données d’exemple');
    expect(await launched.textContent()).toContain('En attente');
    expect(launches).toEqual(['POST']);
    const after = (await e2e.t.database.executeSql('select count(*)::int as n from task_runs')).rows as { n: number }[];
    expect(after[0]!.n).toBe(before[0]!.n);
    await context.close();
  });

  it('a backend without the projects, audit, notifications and blog areas gets the marked spec §8 samples', async () => {
    const context = await newContext();
    for (const area of ['projects', 'audit', 'notifications', 'blog']) {
      await context.route(new RegExp(`/api/${area}/`), (route) =>
        route.fulfill({ status: 404, contentType: 'application/json', body: '{"detail":"Not found."}' }),
      );
    }
    const page = await signInThroughForm(context, 'manager');
    for (const path of ['/projects', '/audit', '/notifications', '/blog']) {
      await page.goto(path);
      await expect.poll(() => sampleBanner(page).textContent(), { message: path }).toBe(SAMPLE_BANNER);
      expect(await page.locator('main .data-origin.sample').count(), path).toBeGreaterThan(0);
      expect(await unmarkedFigures(page), path).toBe(0);
    }
    // One record of a served area that does not exist is passed on as « introuvable », not replaced.
    await context.unroute(/\/api\/projects\//);
    await page.goto('/projects/999999');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Projet introuvable');
    await context.close();
  });
});
