/**
 * Median time for an /api answer seen from the page: served by the service worker's cache (within its TTL)
 * against the network answer on loopback. Needs a build (dist/).
 */
import path from 'node:path';
import { launchChromium } from '../e2e/chromium.ts';
import { createTestApp, TEST_PASSWORD } from '../server/helpers.ts';

export async function benchServiceWorkerCache(runs: number, median: (v: number[]) => number): Promise<string> {
  const t = await createTestApp({ appDir: path.resolve('dist') });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const baseURL = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    await page.goto('/login');
    await page.getByLabel("Nom d'utilisateur").fill('admin');
    await page.getByLabel('Mot de passe').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForURL('**/dashboard');
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // tsx keeps function names with a __name helper that the page does not have.
    await page.evaluate('window.__name = (f) => f');
    const timings = await page.evaluate(async (n) => {
      const session = await new Promise<{ tokens: { access_token: string } }>((resolve) => {
        const open = indexedDB.open('vigie');
        open.onsuccess = () => {
          const get = open.result.transaction('kv').objectStore('kv').get('session');
          get.onsuccess = () => resolve(get.result);
        };
      });
      const headers = { Authorization: `Bearer ${session.tokens.access_token}` };
      const time = async (url: string) => {
        const t0 = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        return { ms: performance.now() - t0, source: res.headers.get('x-vigie-source') };
      };
      const network: number[] = [];
      const cached: number[] = [];
      for (let i = 0; i < n; i++) {
        // A new URL each time: the worker has no copy, so it goes to the network (and keeps one).
        const url = `/api/admin/users/?page_size=${(i % 90) + 10}&page=${i + 1}`;
        const first = await time(url);
        if (first.source === 'network') network.push(first.ms);
        const again = await time(url);
        if (again.source === 'cache') cached.push(again.ms);
      }
      return { network, cached };
    }, runs);
    const net = median(timings.network);
    const hit = median(timings.cached);
    return `SW /api answer seen from the page: cached median ${hit.toFixed(2)} ms (${timings.cached.length} runs) vs network on loopback median ${net.toFixed(2)} ms (${timings.network.length} runs); ratio ${(net / hit).toFixed(1)}x`;
  } finally {
    await browser.close();
    await t.close();
  }
}
