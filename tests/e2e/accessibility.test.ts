import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { signInThroughForm, useServerAndBrowser } from './harness.ts';
import { PROJECT_TABS, SCREENS, firstRecord as firstRecordOn, settled, visit } from './screens.ts';
import { audit, clean } from './screen-audit.ts';

/**
 * Every screen against axe-core's WCAG 2 A and AA rules (colour contrast among them) and a 12 px floor for text:
 * signed out, signed in as a superuser on a phone (with the kiosk, the offline and sample-data banners). The desktop
 * walk of every screen for each of the four roles is layout-fit.test.ts's.
 */
const e2e = useServerAndBrowser();

describe('accessibility of every screen (axe-core WCAG 2 A/AA, text ≥ 12 px)', () => {
  describe('signed out', () => {
    it('the sign-in page on a phone makes no authenticated call and logs no console error', async () => {
      const context = await e2e.context({ width: 390, height: 844 });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(msg.text());
      });
      page.on('pageerror', (err) => errors.push(err.message));
      const calls: string[] = [];
      page.on('request', (req) => {
        if (new URL(req.url()).pathname.startsWith('/api/')) calls.push(new URL(req.url()).pathname);
      });
      await page.goto('/login');
      await settled(page);
      // The availability check runs 2 s after start.
      await page.waitForTimeout(3_000);
      expect(errors).toEqual([]);
      expect(calls.filter((c) => c.startsWith('/api/current-user'))).toEqual([]);
      expect(await audit(page)).toEqual(clean);
      await context.close();
    });

    for (const path of ['/', '/login', '/reset-password', '/register']) {
      it(`${path} on a desktop`, async () => {
        const context = await e2e.context({ width: 1280, height: 900 });
        const page = await context.newPage();
        await page.goto(path);
        await settled(page);
        expect(await audit(page)).toEqual(clean);
        await context.close();
      });
    }
  });

  // A phone's 15 px root font is where small text falls under the floor; a desktop lays out wider tables.
  describe.each([['a phone', { width: 390, height: 844 }]])('signed in as a superuser, on %s', (_, viewport) => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      context = await e2e.context(viewport);
      page = await signInThroughForm(context, 'admin');
    });
    afterAll(async () => context?.close());

    async function visit(path: string) {
      await page.goto(path);
      await settled(page);
      return audit(page);
    }

    const firstRecord = (listPath: string, pattern: RegExp) => firstRecordOn(page, listPath, pattern);

    for (const path of SCREENS) {
      it(path, async () => {
        expect(await visit(path)).toEqual(clean);
      });
    }

    it('a vulnerability', async () => {
      expect(await visit(await firstRecord('/vulnerabilities/list', /^\/vulnerabilities\/\d+$/))).toEqual(clean);
    });

    it('a blog post', async () => {
      expect(await visit(await firstRecord('/blog', /^\/blog\/(?!new$)[^/]+$/))).toEqual(clean);
    });

    it('a project, each of its tabs', async () => {
      const project = await firstRecord('/projects', /^\/projects\/\d+$/);
      const found: Record<string, unknown> = {};
      for (const tab of PROJECT_TABS) {
        const result = await visit(`${project}?tab=${tab}`);
        if (result.axe.length > 0 || result.small.length > 0) found[tab] = result;
      }
      expect(found).toEqual({});
    });

    it('the kiosk', async () => {
      await page.goto('/kiosk');
      await page.locator('h1').first().waitFor();
      await page.waitForTimeout(1_000);
      expect(await audit(page)).toEqual(clean);
    });

    it('the sample-data banner (mock API mode)', async () => {
      // The switch is an administrator's, in Préférences.
      await page.goto('/settings');
      await settled(page);
      await page.getByLabel('Mode API simulée').check();
      await page.getByTestId('sample-banner').waitFor();
      await page.goto('/vulnerabilities');
      await settled(page);
      await page.getByTestId('sample-banner').waitFor();
      const result = await audit(page);
      await page.goto('/settings');
      await settled(page);
      await page.getByLabel('Mode API simulée').uncheck();
      // The switch is stored before its confirmation shows; a reload sooner could read the old value.
      await page.getByText('Mode API simulée désactivé').waitFor();
      await page.reload();
      await settled(page);
      expect(await page.getByTestId('sample-banner').count()).toBe(0);
      expect(result).toEqual(clean);
    });

    it('the offline banner', async () => {
      await page.goto('/dashboard');
      await settled(page);
      await context.setOffline(true);
      try {
        await page.getByText('Hors ligne — l’application reste utilisable').waitFor();
        expect(await audit(page)).toEqual(clean);
      } finally {
        await context.setOffline(false);
      }
    });
  });

  // The dark theme changes colours only (src/styles/global.css's variables): a screen of each kind of part (tiles,
  // charts, tables and badges, forms, banners, the console) is enough to check its contrast.
  describe('in the dark theme, signed in as a superuser on a desktop', () => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      context = await e2e.context({ width: 1280, height: 800 });
      page = await signInThroughForm(context, 'admin', { waitForWorker: false });
      await page.evaluate(() => localStorage.setItem('vigie.theme', 'dark'));
      await page.reload();
      await settled(page);
    });
    afterAll(async () => context?.close());

    it('dashboards, lists, forms and the console pass axe and the text floor', async () => {
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      const found: Record<string, unknown> = {};
      const project = await firstRecordOn(page, '/projects', /^\/projects\/\d+$/);
      for (const path of [
        '/dashboard',
        '/vulnerabilities',
        '/vulnerabilities/list',
        '/scans',
        '/tasks',
        '/notifications',
        '/audit',
        '/settings',
        '/admin/users',
        '/admin/security',
        `${project}?tab=risks`,
      ]) {
        await visit(page, path);
        const result = await audit(page);
        if (result.axe.length > 0 || result.small.length > 0) found[path] = result;
      }
      expect(found).toEqual({});
    });
  });

  // Keyboard use: Tab reaches the navigation, the filters, the tables' links and buttons and the forms, and every
  // control it reaches shows where the focus is (an outline or a ring), in both themes.
  describe.each(['light', 'dark'])('keyboard focus, %s theme, on a desktop', (theme) => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      context = await e2e.context({ width: 1280, height: 800 });
      page = await signInThroughForm(context, 'admin', { waitForWorker: false });
      await page.evaluate((t) => localStorage.setItem('vigie.theme', t), theme);
    });
    afterAll(async () => context?.close());

    it('every control Tab reaches shows its focus', async () => {
      const unseen: Record<string, string[]> = {};
      for (const path of ['/vulnerabilities/list', '/admin/users', '/settings', '/projects']) {
        await page.goto(path);
        await settled(page);
        const missing = new Set<string>();
        const reached = new Set<string>();
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press('Tab');
          const focus = await page.evaluate(() => {
            const el = document.activeElement as HTMLElement | null;
            if (!el || el === document.body) return null;
            const style = getComputedStyle(el);
            const visible =
              (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
            const name = `${el.tagName.toLowerCase()} « ${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)} »`;
            return { name, visible };
          });
          if (!focus) continue;
          reached.add(focus.name);
          if (!focus.visible) missing.add(focus.name);
        }
        expect(reached.size, path).toBeGreaterThan(10);
        if (missing.size > 0) unseen[path] = [...missing];
      }
      expect(unseen).toEqual({});
    });
  });
});
