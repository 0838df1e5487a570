import path from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assets, cves, scans, tenants, vulnerabilities } from '../../server/src/db/schema.ts';
import { consoleErrors, signInThroughForm, useServerAndBrowser } from './harness.ts';

/**
 * Issue 21 end to end: a ZAP report imported from the scans screen, two findings triaged (a false positive with its
 * reason, a risk accepted by a manager until a date), ten findings assigned at once from the list, and the site made
 * critical and exposed to the Internet from its page, so that a KEV finding on it is to fix now (SSVC « Act ») and the
 * dashboard's first tile counts it.
 */
const e2e = useServerAndBrowser();
const ZAP = path.resolve('seed-data/scans/zap/zap_2.10.0_juice-shop.xml');

/** A day `days` ahead as the date fields take it (jj/mm/aaaa), and as the API spells it. */
function ahead(days: number): { typed: string; iso: string } {
  const d = new Date();
  d.setDate(d.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    typed: `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`,
    iso: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
  };
}

describe('triage in Chromium', () => {
  it('imports a ZAP report, marks a false positive, accepts a risk, and assigns ten findings at once', async () => {
    const db = () => e2e.t.database.db;
    const context = await e2e.context({ width: 1280, height: 1300 });
    const page = await signInThroughForm(context, 'analyste');
    const errors = consoleErrors(page);

    // Import from the scans screen; the server detects ZAP and processes it.
    await page.goto('/scans');
    await page.getByRole('button', { name: 'Importer un rapport' }).click();
    await page.getByLabel('Fichier du rapport *').setInputFiles(ZAP);
    await page.getByRole('button', { name: 'Importer', exact: true }).click();
    const zapFindings = async () => {
      const [acme] = await db().select({ id: tenants.id }).from(tenants).where(eq(tenants.domain, 'acme-securite.fr'));
      return db()
        .select({ id: vulnerabilities.id, assetId: vulnerabilities.assetId })
        .from(vulnerabilities)
        .where(and(eq(vulnerabilities.tenantId, acme!.id), eq(vulnerabilities.source, 'zap')))
        .orderBy(vulnerabilities.id);
    };
    const status = async () =>
      (await db().select({ status: scans.status }).from(scans).where(eq(scans.scanner, 'zap')))[0]?.status;
    await expect.poll(status, { timeout: 30_000 }).toBe('COMPLETED');
    await expect.poll(() => page.getByText('Terminé', { exact: true }).count()).toBeGreaterThan(0);
    const found = await zapFindings();
    expect(found.length).toBeGreaterThan(10);
    const [site] = await db().select({ name: assets.name }).from(assets).where(eq(assets.id, found[0]!.assetId!));
    expect(site!.name).toBe('https://juice-shop.herokuapp.com');

    // A false positive, with its reason, from the finding's page.
    const [first, second] = [found[0]!.id, found[1]!.id];
    await page.goto(`/vulnerabilities/${first}`);
    const triage = page.getByRole('region', { name: 'Traitement' });
    await expect.poll(() => triage.getByText('Nouvelle', { exact: true }).count()).toBe(1);
    await triage.getByLabel('Nouvel état').selectOption('false_positive');
    await triage.getByLabel('Justification *').fill('En-tête posé par le CDN, hors de l’application.');
    await triage.getByRole('button', { name: 'Appliquer' }).click();
    await expect.poll(() => page.locator('.detail-head .status').textContent()).toBe('Faux positif');
    await expect.poll(() => triage.locator('.finding-history').textContent()).toContain('En-tête posé par le CDN');
    await page.screenshot({ path: '/tmp/vigie-triage-false-positive.png' });

    // A manager accepts another finding's risk until a date.
    const managerContext = await e2e.context({ width: 1280, height: 1300 });
    const manager = await signInThroughForm(managerContext, 'manager');
    await manager.goto(`/vulnerabilities/${second}`);
    const managerTriage = manager.getByRole('region', { name: 'Traitement' });
    await managerTriage.getByLabel('Nouvel état').selectOption('accepted');
    const until = ahead(60);
    await managerTriage.getByLabel('Risque accepté jusqu’au *').fill(until.typed);
    await managerTriage.getByLabel('Justification *').fill('Compensé par le pare-feu applicatif');
    await managerTriage.getByRole('button', { name: 'Appliquer' }).click();
    await expect.poll(() => manager.locator('.detail-head .status').textContent()).toBe('Risque accepté');
    const [accepted] = await db().select().from(vulnerabilities).where(eq(vulnerabilities.id, second));
    expect(accepted).toMatchObject({ state: 'accepted', acceptedUntil: until.iso, isResolved: true });
    await managerContext.close();

    // Ten findings of the site assigned at once from the list.
    await page.goto(`/vulnerabilities/list?asset=${found[0]!.assetId}`);
    const bar = page.getByRole('form', { name: 'Action groupée' });
    await expect
      .poll(() => page.getByRole('checkbox', { name: /^Sélectionner / }).count(), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(10);
    const boxes = page.getByRole('checkbox', { name: /^Sélectionner / });
    for (let i = 0; i < 10; i++) await boxes.nth(i).check();
    await expect.poll(() => bar.getByRole('status').textContent()).toContain('10 vulnérabilités sélectionnées.');
    await bar.getByLabel('Assignée à').selectOption({ label: 'Marc Lefèvre' });
    await page.screenshot({ path: '/tmp/vigie-triage-bulk.png' });
    await bar.getByRole('button', { name: 'Appliquer à 10 vulnérabilités' }).click();
    await expect.poll(() => bar.textContent()).toContain('Action groupée terminée : 10 modifiées.');
    const assigned = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(vulnerabilities)
      .where(
        and(
          inArray(
            vulnerabilities.id,
            found.map((f) => f.id),
          ),
          sql`${vulnerabilities.assigneeId} = (select id from users where username = 'analyste')`,
        ),
      );
    expect(assigned[0]!.n).toBe(10);

    // Prioritisation: a finding of the site on a CVE of CISA's KEV catalogue, automatable with a total impact (its
    // scanner's vector). The site, medium and not exposed, makes it « Attend »; made critical and exposed to the
    // Internet on its page, « Act ».
    const [acme] = await db().select({ id: tenants.id }).from(tenants).where(eq(tenants.domain, 'acme-securite.fr'));
    const actNow = async () =>
      (
        await db()
          .select({ n: sql<number>`count(*)::int` })
          .from(vulnerabilities)
          .where(and(eq(vulnerabilities.tenantId, acme!.id), eq(vulnerabilities.ssvcDecision, 4)))
      )[0]!.n;
    const before = await actNow();
    const [exploited] = await db().select({ cveId: cves.cveId }).from(cves).where(eq(cves.kev, true)).limit(1);
    const [kevFinding] = await db()
      .insert(vulnerabilities)
      .values({
        tenantId: acme!.id,
        assetId: found[0]!.assetId!,
        cveId: exploited!.cveId,
        findingKey: exploited!.cveId,
        title: 'Composant exploité du site',
        severity: 'critical',
        kev: true,
        cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        source: 'manual',
      })
      .returning({ id: vulnerabilities.id, decision: vulnerabilities.ssvcDecision });
    expect(kevFinding!.decision).toBe(3);

    await page.goto(`/assets/${found[0]!.assetId}`);
    await page.getByRole('button', { name: 'Modifier l’actif' }).click();
    const assetForm = page.getByRole('form', { name: /^Modifier « / });
    await assetForm.getByLabel('Criticité').selectOption('critical');
    await assetForm.getByLabel('Exposé à Internet').check();
    await assetForm.getByRole('button', { name: 'Enregistrer' }).click();
    const facts = page.getByRole('region', { name: 'Fiche' });
    await expect.poll(() => facts.textContent()).toContain('Exposé à InternetOui');
    await expect.poll(() => facts.textContent()).toContain('Critique');
    await page.screenshot({ path: '/tmp/vigie-triage-asset-exposed.png' });
    const [decided] = await db()
      .select({ decision: vulnerabilities.ssvcDecision })
      .from(vulnerabilities)
      .where(eq(vulnerabilities.id, kevFinding!.id));
    expect(decided!.decision).toBe(4);
    expect(await actNow()).toBe(before + 1);

    // The dashboard opens on it: « À traiter maintenant », linked to the list of Act findings.
    await page.goto('/vulnerabilities');
    const tile = page.getByTestId('stat-act');
    await expect
      .poll(() => tile.textContent(), { timeout: 15_000 })
      .toBe(new Intl.NumberFormat('fr-FR').format(before + 1));
    expect(before + 1).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.stat-tiles > li').first().getAttribute('class')).toBe('tile-act');
    await page.screenshot({ path: '/tmp/vigie-triage-act-tile.png' });
    await page.locator('.tile-act a').click();
    await expect.poll(() => page.url()).toContain('/vulnerabilities/list?ssvc=act');
    await expect
      .poll(() => page.getByRole('link', { name: exploited!.cveId }).count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    await page.screenshot({ path: '/tmp/vigie-triage-act-list.png' });
    expect(errors).toEqual([]);
    await context.close();
  });
});
