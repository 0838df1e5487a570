import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { createTestApp, type TestApp } from '../server/helpers.ts';
import { precompressDir } from '../../server/src/cli/precompress.ts';

/** A new version is offered, never forced: the page asks, and the new worker takes over on 'Recharger'. */
let t: TestApp;
let baseURL: string;
let browser: Browser;
let appDir: string;

beforeAll(async () => {
  appDir = mkdtempSync(path.join(tmpdir(), 'vigie-update-'));
  cpSync(path.resolve('dist'), appDir, { recursive: true });
  t = await createTestApp({ appDir });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseURL = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  rmSync(appDir, { recursive: true, force: true });
});

describe('updates in Chromium', () => {
  it('offers "Nouvelle version disponible — Recharger" and switches to the new worker when asked', async () => {
    const context = await browser.newContext({ baseURL, locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto('/');
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

    // Deploy a new version: a service worker that differs byte for byte, compressed as the build does.
    const sw = path.join(appDir, 'sw.js');
    writeFileSync(sw, `${readFileSync(sw, 'utf8')}\n// version 2\n`);
    await precompressDir(appDir);
    await page.evaluate(async () => {
      await (await navigator.serviceWorker.getRegistration())!.update();
    });

    const banner = page.getByRole('status').filter({ hasText: 'Nouvelle version disponible' });
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(1);
    // Until asked, the old worker keeps control (nothing changes under the user's feet).
    const waiting = await page.evaluate(async () =>
      Boolean((await navigator.serviceWorker.getRegistration())!.waiting),
    );
    expect(waiting).toBe(true);

    await banner.getByRole('button', { name: 'Recharger' }).click();
    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const reg = await navigator.serviceWorker.getRegistration();
            return Boolean(reg && !reg.waiting && reg.active && navigator.serviceWorker.controller);
          }),
        { timeout: 20_000 },
      )
      .toBe(true);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Vigie');
    expect(await banner.count()).toBe(0);
    await context.close();
  });
});
