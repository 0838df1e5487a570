import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { consoleErrors, signInThroughForm, useServerAndBrowser } from './harness.ts';
import { audit, clean } from './screen-audit.ts';

/**
 * Issue 7 end to end, as a consultant works: create a project, staff it, link an asset, assess a risk, plan its
 * remediation, complete the actions and watch the residual risk and the completion move, file a document and read
 * it back, then work offline and see the edits applied once back online.
 */
const e2e = useServerAndBrowser();

async function rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await e2e.t.database.executeSql(text, values)).rows as T[];
}

const openTab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true }).click();

/** Chooses the option of a select whose text contains `text`. */
async function choose(page: Page, label: string, text: string) {
  const select = page.getByLabel(label, { exact: true });
  const value = await select.locator('option', { hasText: text }).first().getAttribute('value');
  await select.selectOption(value);
}

describe('the project-centred risk workflow in Chromium', () => {
  it('creates a project, staffs it, drives a risk down through remediation, files a document, and edits offline', async () => {
    const context = await e2e.browser.newContext({
      baseURL: e2e.baseURL,
      locale: 'fr-FR',
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await signInThroughForm(context, 'admin');
    const errors = consoleErrors(page);
    const name = `Audit e2e ${Date.now().toString(36)}`;

    // Create.
    await page.getByRole('link', { name: 'Projets', exact: true }).click();
    await page.getByRole('button', { name: 'Nouveau projet' }).click();
    await page.getByLabel('Nom *').fill(name);
    await page.getByRole('button', { name: 'Créer le projet' }).click();
    await expect.poll(() => page.getByText(`Projet « ${name} » créé.`).count(), { timeout: 10_000 }).toBe(1);
    const [project] = await rows<{ id: number; owner: string }>(
      `select p.id::int as id, u.username as owner from projects p join users u on u.id = p.owner_id where p.name = $1`,
      [name],
    );
    expect(project?.owner).toBe('admin');
    await page.getByRole('link', { name }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);

    // Staff it: Marc Lefèvre (analyste) as a member.
    await openTab(page, 'Équipe');
    await choose(page, 'Utilisateur', 'Marc Lefèvre');
    await page.getByLabel('Rôle', { exact: true }).selectOption('MEMBER');
    await page.getByRole('button', { name: /Ajouter/ }).click();
    await expect
      .poll(() =>
        rows(
          `select 1 from project_members m join users u on u.id = m.user_id
            where m.project_id = $1 and u.username = 'analyste' and m.role = 'MEMBER'`,
          [project!.id],
        ).then((r) => r.length),
      )
      .toBe(1);

    // Link an asset of the inventory.
    await openTab(page, 'Actifs');
    await page.getByLabel('Rechercher (nom, hôte, IP)').fill('srv-web-01');
    await page.getByRole('button', { name: 'Rechercher' }).click();
    await page.getByRole('button', { name: 'Lier au projet' }).click();
    await expect
      .poll(
        () =>
          rows(
            `select 1 from project_assets l join assets a on a.id = l.asset_id
              where l.project_id = $1 and a.name = 'srv-web-01'`,
            [project!.id],
          ).then((r) => r.length),
        { timeout: 10_000 },
      )
      .toBe(1);
    await expect.poll(() => page.getByRole('rowheader', { name: 'srv-web-01' }).count()).toBeGreaterThan(0);
    // Its findings and threats open in a panel under the table (read through the link).
    await page.getByRole('button', { name: 'Afficher : Vulnérabilités et menaces de l’actif « srv-web-01 »' }).click();
    const assetDetails = page.getByRole('region', { name: 'Vulnérabilités et menaces de l’actif « srv-web-01 »' });
    await expect
      .poll(() => assetDetails.getByRole('heading', { name: 'Vulnérabilités de l’actif' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(await audit(page)).toEqual(clean);

    // A critical risk (4 × 4).
    await openTab(page, 'Risques');
    await page.getByRole('button', { name: 'Nouveau risque' }).click();
    await page.getByLabel('Titre *').fill('Fuite de données du portail');
    await page.getByLabel('Vraisemblance', { exact: true }).selectOption('4');
    await page.getByLabel('Gravité', { exact: true }).selectOption('4');
    await page.getByRole('button', { name: 'Créer le risque' }).click();
    const riskRow = page.getByRole('row').filter({ hasText: 'Fuite de données du portail' });
    await expect.poll(() => riskRow.textContent(), { timeout: 10_000 }).toContain('Critique');

    // Its remediation plan aims at 1 × 2, with two corrective actions.
    await openTab(page, 'Remédiation');
    await page.getByRole('button', { name: 'Nouveau plan' }).click();
    await choose(page, 'Risque traité *', 'Fuite de données du portail');
    await page.getByLabel('Titre *').fill('Durcir le portail');
    await page.getByLabel('Vraisemblance cible').selectOption('1');
    await page.getByLabel('Gravité cible').selectOption('2');
    await page.getByRole('button', { name: 'Créer le plan' }).click();
    const plan = page.getByRole('region', { name: 'Plan : Durcir le portail' });
    for (const action of ['Corriger l’injection SQL', 'Activer le WAF']) {
      await plan.getByLabel('Nouvelle action').fill(action);
      await plan.getByRole('button', { name: 'Ajouter l’action' }).click();
      await expect.poll(() => plan.getByRole('rowheader', { name: action }).count(), { timeout: 10_000 }).toBe(1);
    }

    const residual = async () =>
      (
        await rows<{ l: number; i: number }>(
          `select residual_likelihood as l, residual_impact as i from risks where project_id = $1`,
          [project!.id],
        )
      )[0];
    expect(await residual()).toEqual({ l: 4, i: 4 });

    // Complete the first action: half the plan done, the residual risk halfway to the target.
    const progress = async (action: string, value: string) => {
      const form = plan.getByRole('form', { name: `Progression : ${action}` });
      await form.getByRole('textbox').fill(value);
      await form.getByRole('button', { name: 'Mettre à jour' }).click();
    };
    await progress('Corriger l’injection SQL', '100');
    await expect.poll(residual, { timeout: 10_000 }).toEqual({ l: 3, i: 3 });
    await progress('Activer le WAF', '100');
    await expect.poll(residual, { timeout: 10_000 }).toEqual({ l: 1, i: 2 });

    // The register shows the new residual level; the header's completion follows the finished actions.
    await openTab(page, 'Risques');
    await expect.poll(() => riskRow.textContent(), { timeout: 10_000 }).toContain('Faible');
    // The risk's plan, read through the risk, opens in a panel under the register.
    await page
      .getByRole('button', { name: 'Afficher : Plan de remédiation du risque « Fuite de données du portail »' })
      .click();
    const riskPlan = page.getByRole('region', {
      name: 'Plan de remédiation du risque « Fuite de données du portail »',
    });
    await expect
      .poll(() => riskPlan.getByRole('heading', { name: 'Durcir le portail' }).count(), { timeout: 10_000 })
      .toBe(1);
    expect(await riskPlan.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    expect(await audit(page)).toEqual(clean);
    await page.reload();
    await expect
      .poll(
        () =>
          page
            .getByRole('progressbar', { name: /Avancement/ })
            .first()
            .getAttribute('aria-valuenow'),
        {
          timeout: 10_000,
        },
      )
      .toBe('100');

    // A document: uploaded with its progress, downloaded back byte for byte.
    await openTab(page, 'Documents');
    await page.getByRole('button', { name: 'Ajouter un document' }).click();
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
    await page
      .getByLabel('Fichier *')
      .setInputFiles({ name: 'rapport-final.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('button', { name: 'Envoyer' }).click();
    await expect.poll(() => page.getByText('rapport-final.pdf').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const download = page.waitForEvent('download');
    await page
      .getByRole('button', { name: /Télécharger/ })
      .first()
      .click();
    const file = await (await download).path();
    expect(readFileSync(file)).toEqual(pdf);

    // Offline: a task created without network waits in the queue, then is created once back online.
    await openTab(page, 'Tâches');
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Nouvelle tâche' }).click();
    await page.getByLabel('Titre *').fill('Restitution au comité (hors ligne)');
    await page.getByRole('button', { name: 'Créer la tâche' }).click();
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count(), { timeout: 10_000 }).toBe(1);
    const tasks = () =>
      rows(`select 1 from project_tasks where project_id = $1 and title = 'Restitution au comité (hors ligne)'`, [
        project!.id,
      ]).then((r) => r.length);
    expect(await tasks()).toBe(0);
    // Still offline, the project reopens from the cache, saying how old its data is.
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 10_000 }).toBe(name);
    await expect.poll(() => page.getByText(/Hors ligne — données du/).count()).toBeGreaterThan(0);
    await context.setOffline(false);
    await expect.poll(tasks, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => page.getByText('1 modification en attente d’envoi').count()).toBe(0);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await tasks()).toBe(1);

    expect(errors).toEqual([]);
    await context.close();
  });
});
