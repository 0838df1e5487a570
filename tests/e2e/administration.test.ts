import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TEST_PASSWORD } from '../server/helpers.ts';
import { signInThroughForm, useServerAndBrowser } from './harness.ts';

/**
 * Issue 9 end to end, as an administrator works: create a tenant and a user in it, that user signs in, a security
 * policy changed in the console is enforced on them at once, and a backup is taken and restored.
 */
const e2e = useServerAndBrowser();

async function rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await e2e.t.database.executeSql(text, values)).rows as T[];
}

const adminSection = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name, exact: true }).click();

describe('the administration console in Chromium', () => {
  it('creates a tenant and a user in it, enforces a policy on that user, and restores a backup', async () => {
    const suffix = Date.now().toString(36);
    const tenantName = `Cabinet Lemaire ${suffix}`;
    const domain = `lemaire-${suffix}.fr`;
    const username = `j.lemaire.${suffix}`;
    const context = await e2e.context({ width: 1280, height: 900 });
    const page = await signInThroughForm(context, 'admin');
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    // A tenant.
    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await adminSection(page, 'Organisations');
    await page.getByRole('button', { name: 'Nouvelle organisation' }).click();
    await page.getByLabel('Nom *').fill(tenantName);
    await page.getByLabel('Domaine *').fill(domain);
    await page.getByRole('button', { name: 'Créer l’organisation' }).click();
    await expect.poll(() => page.getByRole('cell', { name: tenantName, exact: true }).count()).toBe(1);

    // A user in it, from the tenant's row.
    await page.getByRole('link', { name: `Utilisateurs de ${tenantName}` }).click();
    await expect.poll(() => page.getByText(`Organisation : ${tenantName}`).count()).toBe(1);
    await page.getByRole('button', { name: 'Nouvel utilisateur' }).click();
    const form = page.getByRole('form', { name: 'Nouvel utilisateur' });
    await form.getByLabel("Nom d'utilisateur *").fill(username);
    await form.getByLabel('E-mail *').fill(`${username}@${domain}`);
    await form.getByLabel('Prénom').fill('Jeanne');
    await form.getByLabel('Nom', { exact: true }).fill('Lemaire');
    await form.getByLabel('Mot de passe *', { exact: true }).fill(TEST_PASSWORD);
    await form.getByLabel('Confirmation du mot de passe *').fill(TEST_PASSWORD);
    await form.getByLabel('Rôle').selectOption('user');
    await page.getByRole('button', { name: 'Créer l’utilisateur' }).click();
    await expect.poll(() => page.getByText(`Utilisateur « ${username} » créé.`).count()).toBe(1);
    const [member] = await rows<{ name: string; role: string }>(
      `select t.name, m.role from memberships m join users u on u.id = m.user_id join tenants t on t.id = m.tenant_id
        where u.username = $1`,
      [username],
    );
    expect(member).toEqual({ name: tenantName, role: 'user' });

    // That user signs in and works in the new tenant.
    const userContext = await e2e.context();
    const userPage = await signInThroughForm(userContext, username);
    await expect.poll(() => userPage.getByRole('heading', { level: 1 }).textContent()).toBe('Bonjour, Jeanne Lemaire');
    expect(await userPage.getByText(tenantName).count()).toBeGreaterThan(0);

    // A policy: two-factor authentication required for the role « Utilisateurs », enforced at once.
    await adminSection(page, 'Politiques de sécurité');
    await page.getByRole('checkbox', { name: 'Utilisateurs', exact: true }).check();
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect
      .poll(() =>
        rows<{ roles: string[] }>(`select two_factor_required_roles as roles from security_policies`).then(
          (r) => r[0]?.roles,
        ),
      )
      .toEqual(['user']);
    await userPage.goto('/projects');
    await userPage.waitForURL('**/settings');
    await expect
      .poll(() =>
        userPage.getByText('Authentification à deux facteurs obligatoire : configurez-la pour continuer.').count(),
      )
      .toBeGreaterThan(0);
    await userContext.close();

    // A backup, then a change, then the restore brings the data back.
    await adminSection(page, 'Sauvegardes');
    await page.getByRole('button', { name: 'Créer une sauvegarde' }).click();
    await expect
      .poll(() => page.getByRole('region', { name: 'Sauvegardes' }).getByText('Terminée').count(), { timeout: 30_000 })
      .toBe(1);
    await rows(`update tenants set name = 'Renommé après la sauvegarde' where domain = $1`, [domain]);
    await rows(`delete from memberships where user_id = (select id from users where username = $1)`, [username]);
    await page
      .getByRole('region', { name: 'Sauvegardes' })
      .getByRole('button', { name: /^Restaurer/ })
      .click();
    await page.getByLabel('Confirmation', { exact: true }).fill('RESTAURER');
    await page.getByRole('button', { name: 'Restaurer', exact: true }).click();
    await expect
      .poll(
        () => rows<{ name: string }>(`select name from tenants where domain = $1`, [domain]).then((r) => r[0]?.name),
        { timeout: 30_000 },
      )
      .toBe(tenantName);
    expect(
      await rows(`select 1 from memberships m join users u on u.id = m.user_id where u.username = $1`, [username]),
    ).toHaveLength(1);
    // The restored policy is the one of the backup (2FA for users), and the audit trail says who restored.
    expect(
      (await rows<{ roles: string[] }>(`select two_factor_required_roles as roles from security_policies`))[0]?.roles,
    ).toEqual(['user']);
    await expect
      .poll(() =>
        rows(
          `select 1 from audit_events where event_type = 'configuration_change' and description ilike '%restaur%'`,
        ).then((r) => r.length),
      )
      .toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
