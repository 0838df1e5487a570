import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { createTestApp, TEST_PASSWORD, type TestApp } from '../server/helpers.ts';

/** The built app the browser suites load: dist/, or another build (VIGIE_E2E_APP_DIR) so parallel work can build apart. */
export function e2eAppDir(): string {
  return path.resolve(process.env.VIGIE_E2E_APP_DIR ?? 'dist');
}

export interface E2e {
  t: TestApp;
  baseURL: string;
  browser: Browser;
  /** A fresh browser context on the app, in French, at this viewport (Chromium's default without one). */
  context(viewport?: { width: number; height: number }): Promise<BrowserContext>;
}

/**
 * An in-process server on a fresh database serving the real build, and one Chromium, for the suite; the test
 * can look into the database too. Read the fields inside tests (they are set in beforeAll).
 */
export function useServerAndBrowser(): E2e {
  const e2e = {
    context: (viewport) =>
      e2e.browser.newContext({ baseURL: e2e.baseURL, locale: 'fr-FR', ...(viewport && { viewport }) }),
  } as E2e;
  beforeAll(async () => {
    e2e.t = await createTestApp({ appDir: e2eAppDir() });
    await e2e.t.app.listen({ host: '127.0.0.1', port: 0 });
    e2e.baseURL = `http://127.0.0.1:${(e2e.t.app.server.address() as { port: number }).port}`;
    e2e.browser = await launchChromium();
  });
  afterAll(async () => {
    await e2e.browser?.close();
    await e2e.t?.close();
  });
  return e2e;
}

/**
 * Signs in through the form, lands on /dashboard, and (unless told not to, as a user in a hurry would not) waits
 * until the service worker controls the page.
 */
export async function signInThroughForm(
  context: BrowserContext,
  username: string,
  { waitForWorker = true } = {},
): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto('/login');
  await page.getByLabel("Nom d'utilisateur").fill(username);
  await page.getByLabel('Mot de passe').fill(TEST_PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await page.waitForURL('**/dashboard');
  if (waitForWorker) await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  return page;
}

export const OFFLINE_DATED = /^Hors ligne — données du \d{2}\/\d{2} à \d{2}:\d{2}$/;

/**
 * Whether the screen marks every block of data it shows as read offline from the cache, with its date: at least one
 * origin note, and each says so (a screen carries one per block fetched on its own, e.g. the dashboard's SLA card).
 */
export async function allMarkedOffline(page: Page): Promise<boolean> {
  const notes = await page.getByRole('note').allTextContents();
  return notes.length > 0 && notes.every((note) => OFFLINE_DATED.test(note));
}

/** The page's console errors and uncaught exceptions from now on (a resource's failed load aside). */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

export interface StoredSession {
  tokens: { access_token: string; refresh_token: string; expires_at: number };
  profile: { id: number; current_tenant?: { id: string } | null };
  tenantId?: string;
}

/** The session record the app keeps in IndexedDB (null when signed out). */
export function storedSession(page: Page): Promise<StoredSession | null> {
  return page.evaluate(
    () =>
      new Promise<StoredSession | null>((resolve) => {
        const open = indexedDB.open('vigie');
        open.onsuccess = () => {
          const get = open.result.transaction('kv').objectStore('kv').get('session');
          get.onsuccess = () => {
            resolve((get.result as StoredSession | undefined) ?? null);
            open.result.close();
          };
        };
      }),
  );
}

/** A write the way the app marks queueable ones, with the stored session's token; answers status and source. */
export async function queueableWrite(
  page: Page,
  url: string,
  body: unknown,
): Promise<{ status: number; source: string | null; body: unknown }> {
  const token = (await storedSession(page))!.tokens.access_token;
  return page.evaluate(
    async ({ url, body, token }) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${token}`,
          'X-Vigie-Queueable': '1',
          'Idempotency-Key': crypto.randomUUID(),
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, source: res.headers.get('x-vigie-source'), body: (await res.json()) as unknown };
    },
    { url, body, token },
  );
}
