import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** Every screen of the navigation, main and administration, as the admin sees it. */
export const NAV_SCREENS = [
  '/dashboard',
  '/vulnerabilities',
  '/vulnerabilities/list',
  '/cve',
  '/scans',
  '/assets',
  '/threats',
  '/tasks',
  '/projects',
  '/notifications',
  '/blog',
  '/audit',
  '/settings',
  '/admin',
  '/admin/tenants',
  '/admin/users',
  '/admin/models',
  '/admin/settings',
  '/admin/security',
  '/admin/permissions',
  '/admin/config',
  '/admin/logs',
  '/admin/backups',
  '/admin/status',
];

// The screens the accessibility and layout walks visit: every route of src/app/app.tsx without a parameter.
export const SCREENS = [...NAV_SCREENS, '/blog/new', '/tenants', '/organizations', '/displays'];

/** A project's tabs (`?tab=`). */
export const PROJECT_TABS = [
  'dashboard',
  'team',
  'assets',
  'risks',
  'remediation',
  'vulnerabilities',
  'threats',
  'tasks',
  'documents',
];

/** Waits for the screen's heading and for its data (no busy region, no « Chargement… » left). */
export async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor({ timeout: 15_000 });
  await page.waitForFunction(
    () =>
      !document.querySelector('[aria-busy="true"]') &&
      ![...document.querySelectorAll('main [role="status"], main p')].some((el) =>
        /^Chargement/.test(el.textContent ?? ''),
      ),
    undefined,
    { timeout: 15_000 },
  );
  // Charts and late widgets draw after their data.
  await page.waitForTimeout(300);
}

/** The first link of the screen's main area whose address matches, for a record's page. */
export async function firstRecord(page: Page, listPath: string, pattern: RegExp): Promise<string> {
  await visit(page, listPath);
  const hrefs = await page.locator('main a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  const href = hrefs.find((h): h is string => !!h && pattern.test(h));
  expect(href, `a record link on ${listPath}`).toBeDefined();
  return href!;
}

/**
 * Opens `path` inside the running app (history.pushState, which the router follows) rather than reloading the page:
 * a walk of forty screens then costs their data, not forty start-ups. The router renders the new route at once (a
 * screen whose code is still loading shows « Chargement… »); two frames later `settled` waits for its data. A change
 * of query string only, which keeps the screen mounted, reloads.
 */
export async function visit(page: Page, path: string): Promise<void> {
  const here = new URL(page.url());
  const there = new URL(path, here);
  if (here.origin !== there.origin || here.pathname === there.pathname) {
    await page.goto(path);
    return settled(page);
  }
  await page.evaluate(async (to) => {
    history.pushState(null, '', to);
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  }, path);
  await settled(page);
}
