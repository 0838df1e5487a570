import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MIN_TEXT_PX = 12;

export interface Finding {
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

export async function audit(page: Page): Promise<{ axe: Finding[]; small: string[] }> {
  return { axe: await axeViolations(page), small: await smallText(page) };
}

/** What a screen that passes looks like. */
export const clean = { axe: [], small: [] };
