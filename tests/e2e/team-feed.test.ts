import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { signIn } from '../server/helpers.ts';
import { allMarkedOffline, signInThroughForm, useServerAndBrowser } from './harness.ts';

/**
 * Issue 8 end to end: a notification born of a real action reaches an open page without a reload, mark all read,
 * the audit trail exported and read back, and the three areas (audit, notifications, blog) offline.
 */
const e2e = useServerAndBrowser();

async function rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await e2e.t.database.executeSql(text, values)).rows as T[];
}

function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

const newContext = (): Promise<BrowserContext> =>
  e2e.browser.newContext({
    baseURL: e2e.baseURL,
    locale: 'fr-FR',
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });

const bell = (page: Page) => page.getByRole('link', { name: /^Notifications : / });

describe('notifications, audit export and blog in Chromium', () => {
  it('a team addition reaches the member’s open page at once; « Tout marquer comme lu » clears the bell', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'analyste');
    const errors = pageErrors(page);
    await bell(page).click();
    await page.waitForURL('**/notifications');
    await expect.poll(() => page.locator('.nt-item').count()).toBeGreaterThan(0);
    const before = await page.locator('.nt-item').count();
    const unreadBefore = Number((await bell(page).getAttribute('aria-label'))!.match(/(\d+)/)![1]);

    // The manager creates a project and staffs Marc (analyste) on it, through the API, from elsewhere.
    const manager = await signIn(e2e.t.app, 'manager');
    const headers = { authorization: `Bearer ${manager.access}` };
    const name = `Revue e2e ${Date.now().toString(36)}`;
    const created = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/projects/',
      headers,
      payload: { name, description: 'Projet créé par le test de bout en bout.' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const projectId = created.json<{ id: number }>().id;
    const [analyste] = await rows<{ id: number }>(`select id from users where username = 'analyste'`);
    const added = await e2e.t.app.inject({
      method: 'POST',
      url: `/api/projects/${projectId}/add_team_member/`,
      headers,
      payload: { user_id: analyste!.id, role: 'MEMBER' },
    });
    expect(added.statusCode, added.body).toBe(201);

    // No reload: the stream brings it into the list and the bell.
    await expect.poll(() => page.locator('.nt-item', { hasText: name }).count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('.nt-item').count()).toBe(before + 1);
    await expect
      .poll(() => bell(page).getAttribute('aria-label'))
      .toBe(`Notifications : ${unreadBefore + 1} non lue${unreadBefore + 1 > 1 ? 's' : ''}`);
    await page.locator('.nt-item', { hasText: name }).getByRole('link').first().click();
    await page.waitForURL(`**/projects/${projectId}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);

    await bell(page).click();
    await page.getByRole('button', { name: 'Tout marquer comme lu' }).click();
    await expect.poll(() => bell(page).getAttribute('aria-label')).toBe('Notifications : 0 non lue');
    await expect
      .poll(() =>
        rows<{ n: number }>(`select count(*)::int as n from notifications where user_id = $1 and not read`, [
          analyste!.id,
        ]).then((r) => r[0]!.n),
      )
      .toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('exports the audit trail as CSV and JSON, and the files hold the same events', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'admin');
    await page
      .getByRole('navigation', { name: 'Navigation principale' })
      .getByRole('link', { name: 'Journal d’audit', exact: true })
      .click();
    await expect.poll(() => page.locator('tbody tr').count()).toBeGreaterThan(0);

    const files: Record<string, string> = {};
    for (const format of ['csv', 'json'] as const) {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: `Exporter en ${format.toUpperCase()}` }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(new RegExp(`^audit-\\d{4}-\\d{2}-\\d{2}\\.${format}$`));
      files[format] = readFileSync(await file.path(), 'utf8');
      await expect.poll(() => page.getByText(new RegExp(`^Export ${format.toUpperCase()} terminé : `)).count()).toBe(1);
    }

    const csvLines = files
      .csv!.replace(/^\uFEFF/, '')
      .trimEnd()
      .split(/\r?\n/);
    expect(csvLines[0]).toMatch(/^Identifiant,Date,Type d’événement,Utilisateur,Adresse IP,Gravité/);
    const json = JSON.parse(files.json!) as { id: number; event_type: string; user: string | null }[];
    expect(json.length).toBeGreaterThan(0);
    // The CSV was taken first: the JSON holds every CSV event and the JSON export's own record.
    const csvIds = csvLines.slice(1).map((l) => Number(l.split(',')[0]));
    const jsonIds = new Set(json.map((e) => e.id));
    expect(csvIds.every((id) => jsonIds.has(id))).toBe(true);
    expect(json.some((e) => e.event_type === 'user_login' && e.user === 'admin')).toBe(true);
    expect(json.some((e) => e.event_type === 'sensitive_data_access')).toBe(true);
    await context.close();
  });

  it('audit, notifications and blog render offline from the cache, marked with their date', async () => {
    const context = await newContext();
    const page = await signInThroughForm(context, 'manager');
    const visits: [string, () => Promise<number>][] = [
      ['/notifications', () => page.locator('.nt-item').count()],
      ['/blog', () => page.getByRole('heading', { level: 2 }).count()],
      ['/audit', () => page.locator('tbody tr').count()],
    ];
    for (const [url, count] of visits) {
      await page.goto(url);
      await expect.poll(count).toBeGreaterThan(0);
    }
    await page.goto('/blog');
    const title = (await page.getByRole('heading', { level: 2 }).first().textContent())!;
    await page.getByRole('link', { name: title }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
    const postUrl = page.url();

    await context.setOffline(true);
    for (const [url, count] of [...visits, [postUrl, () => page.getByRole('heading', { level: 1 }).count()] as const]) {
      await page.goto(url);
      await expect.poll(count).toBeGreaterThan(0);
      await expect.poll(() => allMarkedOffline(page)).toBe(true);
    }
    await context.close();
  });

  it('renders a post’s Markdown without running what a writer slipped into it', async () => {
    const manager = await signIn(e2e.t.app, 'manager');
    const created = await e2e.t.app.inject({
      method: 'POST',
      url: '/api/blog/posts/',
      headers: { authorization: `Bearer ${manager.access}` },
      payload: {
        title: 'Article piégé',
        status: 'published',
        content: [
          '## Bilan',
          '',
          'Texte **gras** et [un lien](https://example.org).',
          '',
          '<script>window.__pwned = "script"</script>',
          '<img src="x" onerror="window.__pwned = \'onerror\'">',
          '<svg onload="window.__pwned = \'svg\'"></svg>',
          "[clic](javascript:window.__pwned='href')",
          '<iframe src="/"></iframe>',
        ].join('\n'),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const context = await newContext();
    const page = await signInThroughForm(context, 'analyste');
    await page.goto(`/blog/${created.json<{ slug: string }>().slug}`);
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'Bilan' }).count()).toBe(1);
    // Whatever became of the javascript: link, clicking it runs nothing.
    await page.evaluate(() =>
      document.querySelectorAll<HTMLAnchorElement>('.blog-content a:not([href^="https:"])').forEach((a) => a.click()),
    );
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    const body = page.locator('.blog-content');
    expect(await body.locator('script, iframe, svg, [onerror], [onload]').count()).toBe(0);
    expect(await body.locator('strong').textContent()).toBe('gras');
    expect(await body.getByRole('link', { name: 'un lien' }).getAttribute('href')).toBe('https://example.org');
    expect(await body.locator('a[href^="javascript:"]').count()).toBe(0);
    await context.close();
  });

  it('a backend without a blog (404) shows the two sample posts, marked as sample data', async () => {
    const context = await newContext();
    // Another backend: its blog paths answer 404 (routed before the request leaves the browser, the service worker's
    // requests included).
    await context.route('**/api/blog/**', (route) => route.fulfill({ status: 404, body: '{"detail":"Not found."}' }));
    const page = await signInThroughForm(context, 'analyste');
    await page.getByRole('link', { name: 'Blog', exact: true }).click();
    await expect.poll(() => page.getByRole('note').first().textContent()).toBe('Données d’exemple');
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
      'Citrix Bleed (CVE-2023-4966) : corriger ne suffit pas, il faut aussi fermer les sessions',
      'Prioriser les correctifs avec le catalogue KEV et les scores EPSS',
    ]);
    await context.close();
  });
});
