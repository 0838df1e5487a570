import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { signInThroughForm, useServerAndBrowser } from './harness.ts';
import { languageFindings } from './language.ts';
import { PROJECT_TABS, SCREENS, firstRecord, visit } from './screens.ts';
import { audit } from './screen-audit.ts';

/**
 * Issue 20, the screen walk: on a desktop (1280×800) and a tablet (820×1180), for each of the four demo roles, no
 * screen scrolls sideways as a whole (wide tables scroll inside their own frame; the menu fits or wraps), and on the
 * desktop no screen shows English or a raw enum value (tests/e2e/language.ts) nor fails axe-core's WCAG 2 A/AA
 * rules or the 12 px text floor (tests/e2e/screen-audit.ts).
 */
const e2e = useServerAndBrowser();

const SIZES = [
  ['a desktop', { width: 1280, height: 800 }],
  ['a tablet', { width: 820, height: 1180 }],
] as const;

const ROLES = ['admin', 'manager', 'analyste', 'lecteur'];

/**
 * How far the page scrolls sideways, and what sticks out past the viewport (what to fix): the elements that reach
 * farthest right, with their positioning (an absolutely placed one escapes a scrolling frame that is not positioned).
 */
function overflow(page: Page): Promise<{ by: number; culprits?: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const by = root.scrollWidth - root.clientWidth;
    if (by <= 0) return { by: 0 };
    const out = [...document.body.querySelectorAll('*')]
      .map((el) => ({ el, right: el.getBoundingClientRect().right }))
      .filter((x) => x.right > root.clientWidth + 1)
      .sort((a, b) => b.right - a.right)
      .slice(0, 3)
      .map(({ el, right }) => {
        const cls =
          typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().replace(/\s+/g, '.')}` : '';
        return `${el.tagName.toLowerCase()}${cls} (${getComputedStyle(el).position}) to ${Math.round(right)} px`;
      });
    return { by, culprits: out };
  });
}

describe.each(SIZES)('no screen scrolls sideways on %s; none speaks English or fails axe', (_, viewport) => {
  describe.each(ROLES)('signed in as %s', (role) => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      context = await e2e.context(viewport);
      page = await signInThroughForm(context, role, { waitForWorker: false });
    });
    afterAll(async () => context?.close());

    it('every screen, a finding and its CVE, a blog post and its editor, an asset, a scan, each tab of a project', async () => {
      const finding = await firstRecord(page, '/vulnerabilities/list', /^\/vulnerabilities\/\d+$/);
      const post = await firstRecord(page, '/blog', /^\/blog\/(?!new$)[^/]+$/);
      // Every route of the router: the parameterised ones through a record of each kind.
      const asset = await firstRecord(page, '/assets', /^\/assets\/\d+$/);
      const scan = await firstRecord(page, '/scans', /^\/scans\/\d+$/);
      const paths = [...SCREENS, finding, '/cve/CVE-2021-44228', post, `${post}/edit`, asset, scan];
      const project = await firstRecord(page, '/projects', /^\/projects\/\d+$/);
      paths.push(...PROJECT_TABS.map((tab) => `${project}?tab=${tab}`));
      const found: Record<string, unknown> = {};
      for (const path of paths) {
        await visit(page, path);
        const o = await overflow(page);
        if (o.by > 0) found[path] = o;
        if (viewport.width === SIZES[0][1].width) {
          const words = await languageFindings(page);
          if (words.length > 0) found[`${path} (language)`] = words;
          const { axe, small } = await audit(page);
          if (axe.length > 0) found[`${path} (axe)`] = axe;
          if (small.length > 0) found[`${path} (text under 12 px)`] = small;
        }
      }
      expect(found).toEqual({});
    });
  });
});
