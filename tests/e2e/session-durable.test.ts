import { describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { BrowserContext, Page } from 'playwright-core';
import {
  allMarkedOffline,
  signInThroughForm,
  storedSession,
  useServerAndBrowser,
  type StoredSession,
} from './harness.ts';
import { signIn } from '../server/helpers.ts';
import { auditEvents } from '../../server/src/db/schema.ts';

/**
 * Issue 15 in Chromium: the analyst opens the app the next morning (the page's clock moved 14 h ahead, no real
 * waiting), online or offline, and stays signed in; the expired access token is refreshed when the network allows.
 */
const e2e = useServerAndBrowser();

const HOUR = 3_600_000;

/** Pages the tab went to (main frame), to prove it never passed by the sign-in page. */
function visited(page: Page): string[] {
  const urls: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) urls.push(new URL(frame.url()).pathname);
  });
  return urls;
}

/** The analyst signed in on the vulnerability dashboard, its data on screen (and in the service worker's cache). */
async function analystOnVulnerabilities(): Promise<{ context: BrowserContext; page: Page; total: string }> {
  const context = await e2e.context();
  // The page's clock runs normally until a test moves it.
  await context.clock.install();
  const page = await signInThroughForm(context, 'analyste');
  await page.getByRole('link', { name: 'Vulnérabilités', exact: true }).click();
  const total = page.getByTestId('stat-total');
  await expect.poll(() => total.count(), { timeout: 15_000 }).toBe(1);
  expect(await page.getByRole('note').count()).toBe(0); // live data
  return { context, page, total: (await total.textContent()) ?? '' };
}

/**
 * Access JWTs carry no unique id: issued within the same second with the same claims, two are identical. Waits (at
 * most a second) until the server's next one can differ, so "the access token changed" is a real observation.
 */
async function nextSecondAfter(tokens: StoredSession['tokens']): Promise<void> {
  const payload = JSON.parse(Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString()) as {
    iat: number;
  };
  const wait = (payload.iat + 1) * 1000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50));
}

const dialect = new PgDialect();
async function scalar(query: ReturnType<typeof sql>): Promise<number> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const result = await e2e.t.database.executeSql(text, params);
  return Number(Object.values(result.rows[0] ?? {})[0]);
}

describe('sessions survive the night in Chromium', () => {
  it('online: a reload 14 h later stays on /vulnerabilities, signed in, with a refreshed token', async () => {
    const { context, page, total } = await analystOnVulnerabilities();
    const before = (await storedSession(page))!;
    await nextSecondAfter(before.tokens);
    const urls = visited(page);

    await context.clock.setSystemTime(Date.now() + 14 * HOUR);
    await page.reload();

    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Vulnérabilités');
    await expect.poll(() => page.getByTestId('stat-total').textContent()).toBe(total);
    expect(await page.getByRole('button', { name: 'Se déconnecter' }).count()).toBe(1);
    const after = (await storedSession(page))!;
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(after.tokens.refresh_token).not.toBe(before.tokens.refresh_token);
    // Valid for an hour from the page's (moved) clock.
    expect(after.tokens.expires_at).toBeGreaterThan(before.tokens.expires_at + 13 * HOUR);
    expect(new URL(page.url()).pathname).toBe('/vulnerabilities');
    expect(urls.filter((u) => u.startsWith('/login'))).toEqual([]);

    // The refresh is in the audit trail (the buffer beacons what it holds when the tab closes), without tokens.
    await page.close({ runBeforeUnload: true });
    const refreshes = async () =>
      (await e2e.t.database.db.select().from(auditEvents).where(eq(auditEvents.eventType, 'token_refresh'))).filter(
        (e) => e.username === 'analyste',
      );
    await expect.poll(async () => (await refreshes()).length, { timeout: 10_000 }).toBe(1);
    const [event] = await refreshes();
    expect(event!.severity).toBe('INFO');
    expect(event!.details).toMatchObject({ client: { trigger: 'start' } });
    expect(JSON.stringify(event!.details)).not.toContain(after.tokens.refresh_token);
    expect(JSON.stringify(event!.details)).not.toContain(after.tokens.access_token);
    await context.close();
  });

  it('offline: the cached screen shows, marked « Hors ligne »; back online the token is refreshed and fresh data replaces it', async () => {
    const { context, page, total } = await analystOnVulnerabilities();
    const before = (await storedSession(page))!;
    await nextSecondAfter(before.tokens);
    const urls = visited(page);

    // Overnight a finding of the analyst's tenant was resolved: the live figure is one lower than the cached one.
    const id = await scalar(sql`
      select v.id from vulnerabilities v join tenants t on t.id = v.tenant_id
      where t.domain = 'acme-securite.fr' and not v.is_resolved order by v.id limit 1`);
    const colleague = await signIn(e2e.t.app, 'analyste');
    const resolved = await e2e.t.app.inject({
      method: 'POST',
      url: `/api/vulnerabilities/vulnerabilities/${id}/mark_resolved/`,
      headers: { authorization: `Bearer ${colleague.access}` },
      payload: { is_resolved: true },
    });
    expect(resolved.statusCode).toBe(200);
    const fresh = new Intl.NumberFormat('fr-FR').format(Number(total.replace(/\D/g, '')) - 1);

    await context.setOffline(true);
    await context.clock.setSystemTime(Date.now() + 14 * HOUR);
    await page.reload();

    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Vulnérabilités');
    await expect.poll(() => allMarkedOffline(page)).toBe(true);
    expect(await page.getByTestId('stat-total').textContent()).toBe(total);
    expect(await page.getByRole('button', { name: 'Se déconnecter' }).count()).toBe(1);
    // Nothing could be refreshed offline, and nothing was lost.
    expect((await storedSession(page))!.tokens).toEqual(before.tokens);

    await context.setOffline(false);
    await expect
      .poll(async () => (await storedSession(page))?.tokens.refresh_token, { timeout: 10_000 })
      .not.toBe(before.tokens.refresh_token);
    const after = (await storedSession(page))!;
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);

    // The next loads bring the live figure (a copy younger than its 30 s TTL is served once more and revalidated).
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByTestId('stat-total').waitFor();
          return page.getByTestId('stat-total').textContent();
        },
        { timeout: 20_000 },
      )
      .toBe(fresh);
    expect((await page.getByRole('note').allTextContents()).join(' ')).not.toMatch(/Hors ligne/);
    expect(new URL(page.url()).pathname).toBe('/vulnerabilities');
    expect(urls.filter((u) => u.startsWith('/login'))).toEqual([]);
    await context.close();
  });
});
