import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { signInThroughForm, useServerAndBrowser } from './harness.ts';
import { PROJECT_TABS, SCREENS, firstRecord as firstRecordOn, settled } from './screens.ts';

/**
 * Every screen against axe-core's WCAG 2 A and AA rules (colour contrast among them) and a 12 px floor for text,
 * signed out and signed in (a superuser sees every screen), with the offline and sample-data banners.
 */
const e2e = useServerAndBrowser();

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MIN_TEXT_PX = 12;

interface Finding {
  rule: string;
  nodes: string[];
}

/** axe-core's WCAG 2 A/AA violations on the page as it stands (evaluated through the protocol: no CSP change). */
async function axeViolations(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<AxeResults> } }).axe;
    interface AxeResults {
      violations: { id: string; nodes: { target: unknown[]; failureSummary?: string }[] }[];
    }
    const results = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return results.violations.map((v) => ({
      rule: v.id,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`),
    }));
  });
  return violations;
}

/** Visible text whose computed size is under the floor. */
function smallText(page: Page): Promise<string[]> {
  return page.evaluate((min) => {
    const found = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const el = node.parentElement;
      if (!text || !el || !el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < min) found.add(`${el.tagName.toLowerCase()}.${el.className}: « ${text.slice(0, 40)} » ${size}px`);
    }
    return [...found];
  }, MIN_TEXT_PX);
}

async function audit(page: Page): Promise<{ axe: Finding[]; small: string[] }> {
  return { axe: await axeViolations(page), small: await smallText(page) };
}

const clean = { axe: [], small: [] };

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
  describe.each([
    ['a phone', { width: 390, height: 844 }],
    ['a desktop', { width: 1280, height: 900 }],
  ])('signed in as a superuser, on %s', (_, viewport) => {
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
});
