import path from 'node:path';
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { consoleErrors, signInThroughForm, useServerAndBrowser } from './harness.ts';
import { DEMO_CVE_IDS } from '../../server/src/db/seed-cves.ts';

/** Issue 6 end to end: real CVEs on the dashboard, the list, resolving, a CVE update, the kiosk without backend. */
const e2e = useServerAndBrowser();

const dialect = new PgDialect();
function toRaw(query: ReturnType<typeof sql>): [string, unknown[]] {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return [text, params];
}

async function scalar(query: ReturnType<typeof sql>): Promise<number> {
  const result = await e2e.t.database.executeSql(...toRaw(query));
  return Number(Object.values(result.rows[0] ?? {})[0]);
}

describe('vulnerability management in Chromium', () => {
  it('the dashboard shows the seeded real CVEs; the list filters through the URL; a finding is marked resolved', async () => {
    const context = await e2e.context({ width: 1280, height: 900 });
    const page = await signInThroughForm(context, 'analyste');
    const errors = consoleErrors(page);

    await page.getByRole('link', { name: 'Vulnérabilités', exact: true }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Vulnérabilités');
    const recent = page.getByRole('region', { name: 'Ajoutées récemment' });
    await expect.poll(() => recent.textContent(), { timeout: 15_000 }).toMatch(/CVE-\d{4}-\d{4,}/);
    const shown = ((await recent.textContent()) ?? '').match(/CVE-\d{4}-\d{4,}/g) ?? [];
    expect(shown.length).toBeGreaterThan(0);
    for (const id of shown) expect(DEMO_CVE_IDS).toContain(id);
    expect(await page.getByRole('note').count()).toBe(0); // live data, not sample

    // The list, filtered on open critical findings: the total matches the database.
    const expected = await scalar(sql`
      select count(*) from vulnerabilities v join tenants t on t.id = v.tenant_id
      where t.domain = 'acme-securite.fr' and v.severity = 'critical' and not v.is_resolved`);
    expect(expected).toBeGreaterThan(0);
    await page.goto('/vulnerabilities/list?severity=critical&is_resolved=false');
    const total = page.getByText(/\d+ vulnérabilités?$/);
    await expect.poll(() => total.first().textContent(), { timeout: 15_000 }).toContain(`${expected} vulnérabilit`);
    expect(new URL(page.url()).searchParams.get('severity')).toBe('critical');

    // Open the first row, mark it resolved; the database agrees and the list shrinks by one.
    const grid = page.getByRole('region', { name: /liste défilante/ });
    const firstLink = grid.getByRole('link').first();
    const cveId = (await firstLink.textContent())?.trim() ?? '';
    await firstLink.click();
    await page.waitForURL(/\/vulnerabilities\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByRole('button', { name: 'Marquer comme résolue' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Rouvrir' }).count()).toBe(1);
    expect(await scalar(sql`select count(*) from vulnerabilities where id = ${id} and is_resolved`)).toBe(1);
    expect(cveId).toMatch(/CVE-|—|\w/);

    await page.goto('/vulnerabilities/list?severity=critical&is_resolved=false');
    await expect.poll(() => total.first().textContent()).toContain(`${expected - 1} vulnérabilit`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an administrator launches the CVE update and watches it finish', async () => {
    // A small source keeps the run short; the task reads the sources when it runs.
    const previous = process.env.VIGIE_CVE_SOURCES;
    process.env.VIGIE_CVE_SOURCES = path.resolve('seed-data/kev/known_exploited_vulnerabilities.json');
    try {
      const context = await e2e.context();
      const page = await signInThroughForm(context, 'admin');
      await page
        .getByRole('navigation', { name: 'Navigation principale' })
        .getByRole('link', { name: 'Tâches', exact: true })
        .click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Tâches de fond');
      await page.getByRole('combobox', { name: /^Tâche/ }).selectOption('vulnerabilities.tasks.update_cve_database');
      await page.getByRole('button', { name: 'Lancer' }).click();

      // The launch answers asynchronously: wait for its row rather than racing the click.
      await expect
        .poll(() =>
          scalar(sql`select count(*) from task_runs where task_name = 'vulnerabilities.tasks.update_cve_database'`),
        )
        .toBeGreaterThan(0);
      const row = page.getByRole('row').filter({ hasText: 'Mise à jour quotidienne des CVE' }).first();
      await expect.poll(() => row.textContent(), { timeout: 60_000, interval: 500 }).toContain('Réussie');
      expect(
        await scalar(sql`select count(*) from task_runs
          where task_name = 'vulnerabilities.tasks.update_cve_database' and status = 'SUCCESS'`),
      ).toBeGreaterThan(0);
      expect(await scalar(sql`select count(*) from cves where kev`)).toBeGreaterThan(1000);
      await context.close();
    } finally {
      if (previous === undefined) delete process.env.VIGIE_CVE_SOURCES;
      else process.env.VIGIE_CVE_SOURCES = previous;
    }
  });

  it('the kiosk rotates its panels and keeps rendering while the backend is down', async () => {
    const context = await e2e.context({ width: 1920, height: 1080 });
    const page = await signInThroughForm(context, 'manager');
    await page.goto('/kiosk?panels=vulnerabilities,threats&interval=5');
    const title = page.locator('h1');
    await expect.poll(() => title.textContent(), { timeout: 10_000 }).toBe('Vulnérabilités');
    await expect.poll(() => title.textContent(), { timeout: 15_000 }).toBe('Menaces');
    await expect.poll(() => title.textContent(), { timeout: 15_000 }).toBe('Vulnérabilités');
    await expect.poll(() => page.locator('main').textContent(), { timeout: 15_000 }).toMatch(/\d/);

    // Stop the backend: no new connections, existing ones cut.
    const server = e2e.t.app.server;
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    try {
      await page.reload();
      await expect.poll(() => title.textContent(), { timeout: 15_000 }).toMatch(/Vulnérabilités|Menaces/);
      await expect.poll(() => page.locator('main').textContent(), { timeout: 15_000 }).toMatch(/\d/);
      await expect.poll(() => page.locator('main').textContent(), { timeout: 15_000 }).toMatch(/Données/);
      // Still rotating, still not blank.
      const before = await title.textContent();
      await expect.poll(() => title.textContent(), { timeout: 15_000 }).not.toBe(before);
      expect(((await page.locator('main').textContent()) ?? '').trim().length).toBeGreaterThan(10);
    } finally {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    }
    await context.close();
  });
});
